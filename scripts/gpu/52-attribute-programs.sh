#!/usr/bin/env bash
# Stage: `divbench attribute` on ordinary programs (tests/attribute/programs.cu, one mode a program): code as
# nvcc, NVRTC and CUB lay it out (IEEE slow paths after a kernel's EXIT, double math, a callee shared by two
# kernels, calls through a register, a jump table, recursion, a CUDA graph, CUB histogram/scan/sort/select/
# reduce-by-key/unique). Each must attribute with exit 0 and every launched kernel counted, its counts
# against ncu's within 0.5% (docs/attribute.md "Programs"; the rule in scripts/divbench/attribute_programs.py).
#   attribute/programs/<mode>.json        attribute on the mode (PC sampling off: the counts are the question)
#   attribute/programs/<mode>.stderr      its stderr
#   attribute/programs/<mode>.stdout      the program's stdout (what ran)
#   attribute/programs/<mode>_ncu.csv     ncu on the same mode: per launch inst, thread inst, divergent targets
#   attribute/programs/<mode>_ncu2.csv    ncu again: its own run-to-run change (decoupled look-back waits)
#   attribute/programs/<mode>_counts/     the recorded counts (--save-counts) of recursion, indirect, jump_table
#   attribute/programs/fault.stderr       attribute on a program whose kernel faults (illegal address): it
#                                         must fail naming compute-sanitizer
#   attribute/programs.json               python3 -m divbench.attribute_programs over the folder
STAGE=attribute-programs
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
P="$G/attribute/programs"
rm -rf "$P"
mkdir -p "$P"
PROG="$BIN/divbench_attribute_programs"
MODES="gaussian particlefilter ieee double_math shared_callee indirect jump_table recursion nvrtc graph cub"
for m in $MODES; do
  save=()
  case $m in recursion|indirect|jump_table) save=(--save-counts "$P/${m}_counts") ;; esac
  "$DIVBENCH" attribute --quiet --no-pc-sampling "${save[@]}" --out "$P/$m.json" -- "$PROG" "$m" >"$P/$m.stdout" 2>"$P/$m.stderr"
  echo "rc=$?" >>"$P/$m.stderr"
  for r in "" 2; do
    step "ncu$r $m" ncu --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__sass_branch_targets_threads_divergent.sum \
      --csv --print-units base --print-kernel-base mangled --log-file "$P/${m}_ncu$r.csv" "$PROG" "$m" >/dev/null
  done
done
find "$P" -name program.log -delete
"$DIVBENCH" attribute --quiet --no-pc-sampling --out "$P/fault.json" -- "$PROG" fault >/dev/null 2>"$P/fault.stderr"
echo "rc=$?" >>"$P/fault.stderr"
step "programs summary" python3 -m divbench.attribute_programs "$P" --out "$G/attribute/programs.json"
python3 -m divbench.attribute_programs "$P" --summary >>"$RESULTS/summary.txt" || fail=1
exit "$fail"
