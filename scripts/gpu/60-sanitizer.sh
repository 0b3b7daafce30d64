#!/usr/bin/env bash
# Stage: compute-sanitizer (memcheck, racecheck, synccheck) over every dynamic kernel, small runs:
# --all, the k sweep's other bodies, the cost sweep's kernels (divergent and control) and the validation loops.
# Last stage on purpose: the tools slow kernels down by large factors; each run has a timeout.
STAGE=sanitizer
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
mkdir -p "$G"
# compute-sanitizer over every kernel: small runs (2 launches, short work), each tool. A probe
# that reaches its cap under a tool still exits 0 (and says so in its JSON); the tools' verdicts are
# the "ERROR SUMMARY" lines.
# Under a tool every kernel runs many times slower and unevenly across SMs, so divbench's own verdict on
# its timings is "measured but not trustworthy" (exit 4, --max-attempts 1: no re-measuring): expected
# here, where no time is kept. A tool's finding makes compute-sanitizer exit 86 (--error-exitcode);
# any other failure of divbench exits with its own code. Both fail the step.
sanitized() {  # sanitized CMD...: CMD's exit status, with divbench's 4 (timings disturbed) taken as 0
  "$@"
  local rc=$?
  [ "$rc" -eq 4 ] && return 0
  return "$rc"
}
if command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck synccheck; do
    log="$G/sanitizer_$tool.log"
    : >"$log"
    step "sanitizer_$tool/all" sanitized timeout 150 compute-sanitizer --error-exitcode 86 --tool "$tool" \
      "$DIVBENCH" --all --reps 2 --warmup 1 --iters 200 --max-attempts 1 --quiet --out "$(mktemp -d)/" >>"$log" 2>&1
    # The other bodies differ only in the body's arithmetic and loads (no shared memory, no extra
    # synchronization): memcheck covers them; racecheck and synccheck see their kernel shape in --all.
    [ "$tool" = memcheck ] && for b in fma_indep int_alu sfu mem_divergent; do
      step "sanitizer_$tool/$b" sanitized timeout 60 compute-sanitizer --error-exitcode 86 --tool "$tool" "$DIVBENCH" \
        --sweep k --body "$b" --k 1,2,32 --reps 2 --warmup 1 --iters 50 --max-attempts 1 --quiet >>"$log" 2>&1
    done
    # The kernels --all does not launch: the cost sweep's divergent and no-divergence control kernels of
    # every body, and the validation loops (experiments/loops/), one placement each, short work.
    if [ "$tool" = memcheck ]; then
      for b in fma_chain fma_indep int_alu sfu mem_divergent; do
        step "sanitizer_$tool/cost_$b" sanitized timeout 90 compute-sanitizer --error-exitcode 86 --tool "$tool" \
          "$DIVBENCH" --sweep cost --body "$b" --k 1,2 --n 0,10 --placements 1 --reps 2 --warmup 1 --max-attempts 1 \
          --quiet --out "$(mktemp -d)/cost.json" >>"$log" 2>&1
      done
      step "sanitizer_$tool/loops" sanitized timeout 120 compute-sanitizer --error-exitcode 86 --tool "$tool" \
        "$DIVBENCH" --sweep loops --placements 1 --reps 2 --warmup 1 --max-attempts 1 --quiet \
        --out "$(mktemp -d)/loops.json" >>"$log" 2>&1
    fi
    note "dynamic sanitizer $tool: $(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
  done
else
  note "dynamic sanitizer: compute-sanitizer not found"
fi

exit $fail
