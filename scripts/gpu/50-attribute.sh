#!/usr/bin/env bash
# Stage: `divbench attribute` validated on the GPU (docs/attribute.md "Validation").
#   kway_n<N>.json            divbench --sweep k, fma_chain, k 1,2,4,8,16,32, one placement: measured T(k)
#   kway_k<K>_n<N>.json       attribute on the same kernel (tests/attribute/targets.cu kway) with .target.json
#                             (what the program ran): estimated cycles lost per warp vs T(k) - T(1)
#   predication.json          attribute on the predicated and branchy K=2 kernels (+ .target.json)
#   lanes.json, lanes/        attribute on kernels with host-known lane counts (+ .target.json);
#                             lanes/ keeps the raw counts (--save-counts: tests/data/attribute/lanes/ is
#                             made from it)
#   thrust.json, thrust.md    attribute on Thrust/CUB (tests/attribute/thrust_cub.cu), its report
#   thrust_ncu.csv            ncu on the same program: per-launch inst, thread inst, divergent targets
#   thrust_ncu2.csv           the same again: how much ncu's own counts change from run to run
#   thrust_one_kernel.json    attribute --kernel on one kernel (the overhead of a targeted question)
#   timing.txt                wall milliseconds: the plain program (5 runs), each attribute call (the
#                             overhead calls on Thrust/CUB and the 128 kernels three times each)
#   shapes_time.json          tests/attribute/shapes.cu: warp cycles of every shape in the random and the sorted
#                             order (5 launches each)
#   shapes_<order>.json, .md, shapes_<order>/  attribute on each order (PC sampling on), its report, its
#                             recorded counts
#   shapes_<order>_model.json attribute on each order with --no-pc-sampling (the issue model alone)
#   call_path/                the call-path calibration (shapes.cu --set calibration): shapes_time.json,
#                             none_<order>.json (--call-path none) and their counts, round_trip.json (a call's
#                             round trip), shapes_<order>.json (the counts priced with it); ../call_path.json
#   shapes_<order>_no_call_path.json  each order's counts again with --call-path none (the control)
#   shapes_random_jobs1.json  the random order with --jobs 1: the PC-sampling run alone on the GPU, after the
#                             counting run (the control of running them side by side)
#   thrust_no_sampling.json   attribute on Thrust/CUB without the PC-sampling run (overhead)
#   many.json                 attribute on the generated program of 128 kernels (overhead)
#   many_no_sampling.json, many_graph.json, many_threads.json  the same without PC sampling, launched as one CUDA
#                             graph, and from four host threads (counts must agree kernel by kernel)
#   thrust_repeat.json        attribute --repeat 2 on Thrust/CUB: the kernels whose counts differ between runs
#   many_parts_* (timing.txt only)  the overhead by part: each of attribute's program runs alone (sampling at
#                             two periods, counting every kernel or none), the two together, the plain program
#   many_late_disassembly*, thrust_late_disassembly* (timing.txt only)  the control of the overhead: the
#                             same calls with DIVBENCH_EARLY_FROM_EXECUTABLE=0 (no disassembly of the executable's
#                             cubins before the program loads them), three each
#   gpu_test.log              tests/attribute/gpu_test.sh (the ctest GPU test of attribute) on this GPU
#   hostile.log, hostile/     tests/attribute/hostile_test.sh: programs that trap, hang, ignore TERM, fork, unload
#                             an NVRTC module; each case's line, and the documents and stderr of each call
#   validation.json           python3 -m divbench.attribute_validation over the folder
# and, beside the folder, ../memory.json: divbench --sweep memory (a dependent load's cycles against its
# lanes, one sector each, per memory level), which the shapes' attribute calls read (--memory) and which
# `divbench attribute` finds beside the committed constants (results/<gpu>/memory.json).
STAGE=attribute
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
A="$G/attribute"
rm -rf "$A"
mkdir -p "$A"
T="$BIN/divbench_attribute_targets"
TH="$BIN/divbench_attribute_thrust"
: >"$A/timing.txt"
timed() {  # timed NAME CMD... : wall milliseconds of CMD into timing.txt
  local name=$1 t0 t1 rc
  shift
  t0=$(date +%s%N)
  "$@"
  rc=$?
  t1=$(date +%s%N)
  echo "$name $(( (t1 - t0) / 1000000 )) ms rc=$rc" >>"$A/timing.txt"
  return $rc
}

# The GPU test and the hostile programs: their logs are kept whatever they give, and a failure of either
# fails the stage (its exit status), as a failed step does.
bash tests/attribute/gpu_test.sh "$DIVBENCH" "$T" scripts >"$A/gpu_test.log" 2>&1
rc=$?
echo "rc=$rc" >>"$A/gpu_test.log"
note "attribute: gpu test $(tail -1 "$A/gpu_test.log") (expect rc=0)"
[ "$rc" = 0 ] || fail=1
bash tests/attribute/hostile_test.sh "$DIVBENCH" "$BIN/divbench_attribute_hostile" "$A/hostile" >"$A/hostile.log" 2>&1
rc=$?
echo "rc=$rc" >>"$A/hostile.log"
[ "$rc" = 0 ] || fail=1
note "attribute: hostile programs $(tail -2 "$A/hostile.log" | tr '\n' ' ')(expect 0 failure(s) rc=0)"

# 1. divbench's own k-way kernel: measured T(k), then attributed, at two loop lengths.
for n in 1000 10000; do
  step "kway sweep n=$n" "$DIVBENCH" --sweep k --body fma_chain --k 1,2,4,8,16,32 --iters "$n" --placements 1 \
    --no-samples --quiet --out "$A/kway_n$n.json"
  for k in 1 2 4 8 16 32; do
    step "attribute kway k=$k n=$n" timed "kway_k${k}_n$n" "$DIVBENCH" attribute --quiet --no-pc-sampling --kernel kway_kernel \
      --out "$A/kway_k${k}_n$n.json" -- "$T" kway fma_chain "$k" "$n" 3 >"$A/kway_k${k}_n$n.target.json"
  done
done

# 2. Predication: no divergent branch in the predicated kernel's work; the branchy twin diverges.
step "attribute predication" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$A/predication.json" -- "$T" predication 1000 3 \
  >"$A/predication.target.json"

# 3. Host-known lane counts; the raw counts kept for the CPU test of the join on recorded data.
step "attribute lanes" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$A/lanes.json" --save-counts "$A/lanes" -- "$T" lanes 2 \
  >"$A/lanes.target.json"
find "$A/lanes" -name program.log -delete

# 4. Thrust/CUB: the report, ncu's counters on the same launches, and the overhead.
for i in 1 2 3 4 5; do timed "thrust_plain_$i" "$TH" >/dev/null; done
step "attribute thrust" timed thrust_attribute "$DIVBENCH" attribute --out "$A/thrust.json" --report "$A/thrust.md" \
  -- "$TH" >"$A/thrust.stdout" 2>"$A/thrust.stderr"
# The overhead from three calls (the first writes the files above): timing.txt's median of each.
for i in 2 3; do
  step "attribute thrust again ($i)" timed "thrust_attribute_$i" "$DIVBENCH" attribute --quiet --out "$A/.again.json" \
    -- "$TH" >/dev/null 2>&1
done
rm -f "$A/.again.json"
# ncu twice: the second run is the control for run-to-run change (decoupled look-back waits).
for r in 1 2; do
  step "ncu thrust $r" ncu --metrics smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_branch_targets_threads_divergent.sum \
    --csv --print-units base --print-kernel-base mangled --log-file "$A/thrust_ncu$([ $r = 2 ] && echo 2).csv" "$TH" >/dev/null
done
step "attribute thrust no sampling" timed thrust_attribute_no_sampling "$DIVBENCH" attribute --quiet --no-pc-sampling \
  --out "$A/thrust_no_sampling.json" -- "$TH" >/dev/null
step "attribute thrust repeat" "$DIVBENCH" attribute --quiet --no-pc-sampling --repeat 2 --out "$A/thrust_repeat.json" \
  -- "$TH" >/dev/null

# 5. Ground truth by compaction, out of sample: thirty shapes (eighteen held out, in six sets), each in a
# random and a sorted order. First divbench's memory probe (--sweep memory: a dependent load's cycles against
# the lanes, one sector each, per memory level), whose levels the shapes' attribute calls use (--memory), and
# the call-path calibration (the shapes program's `--set calibration`: one indirect call through M callees
# of alike bodies, by compaction, attribute with --call-path none; python3 -m divbench.call_path writes
# ../call_path.json, the cycles of an indirect call's extra path, which the shapes' calls read).
step "memory probe" "$DIVBENCH" --sweep memory --quiet --no-samples --out "$G/memory.json"
MEM=()
[ -f "$G/memory.json" ] && MEM=(--memory "$G/memory.json")
S="$BIN/divbench_attribute_shapes"
C="$A/call_path"
mkdir -p "$C"
step "call-path time" "$S" time --launches 5 --set calibration >"$C/shapes_time.json"
for o in random sorted; do
  step "call-path attribute $o" "$DIVBENCH" attribute --quiet "${MEM[@]}" --call-path none --out "$C/none_$o.json" \
    --save-counts "$C/shapes_$o" -- "$S" run "$o" --launches 10 --set calibration >"$C/shapes_$o.target.json"
  find "$C/shapes_$o" -name program.log -delete
done
rm -f "$G/call_path.json"
# First a call's round trip (the uniform direct calls), then the same counts priced with it, then the
# indirect call's extra path on those.
step "call round trip fit" env PYTHONPATH=scripts python3 -m divbench.call_path round-trip "$C" --out "$C/round_trip.json"
for o in random sorted; do
  step "call-path attribute $o with the round trip" "$DIVBENCH" attribute --quiet "${MEM[@]}" --call-path "$C/round_trip.json" \
    --from-counts "$C/shapes_$o" --out "$C/shapes_$o.json"
done
step "call-path fit" env PYTHONPATH=scripts python3 -m divbench.call_path path "$C" --out "$G/call_path.json"
CALLS=(--call-path none)
[ -f "$G/call_path.json" ] && CALLS=(--call-path "$G/call_path.json")
step "shapes time" "$S" time --launches 5 >"$A/shapes_time.json"
for o in random sorted; do
  step "attribute shapes $o" timed "shapes_$o" "$DIVBENCH" attribute --quiet "${MEM[@]}" "${CALLS[@]}" --out "$A/shapes_$o.json" \
    --report "$A/shapes_$o.md" --save-counts "$A/shapes_$o" -- "$S" run "$o" --launches 10 >"$A/shapes_$o.target.json"
  find "$A/shapes_$o" -name program.log -delete
  step "attribute shapes $o model" "$DIVBENCH" attribute --quiet "${MEM[@]}" "${CALLS[@]}" --no-pc-sampling --out "$A/shapes_${o}_model.json" \
    -- "$S" run "$o" --launches 10 >/dev/null
done
# The control of the call path: the random and sorted orders re-analysed from their counts with --call-path
# none (an indirect call's extra path priced at D_path, the rule before).
for o in random sorted; do
  step "attribute shapes $o no call path" "$DIVBENCH" attribute --quiet "${MEM[@]}" --call-path none \
    --from-counts "$A/shapes_$o" --out "$A/shapes_${o}_no_call_path.json"
done

# The control of the sampling run beside the counting run (the default): the random order again with
# --jobs 1 (one run at a time, the sampling run alone on the GPU): the estimates must agree.
step "attribute shapes random jobs 1" "$DIVBENCH" attribute --quiet "${MEM[@]}" "${CALLS[@]}" --jobs 1 --out "$A/shapes_random_jobs1.json" \
  -- "$S" run random --launches 10 >/dev/null

# 6. A generated program of 128 kernels: the overhead of attributing every kernel of one run.
M="$BIN/divbench_attribute_many"
for i in 1 2 3 4 5; do timed "many_plain_$i" "$M" >/dev/null; done
step "attribute many" timed many_attribute "$DIVBENCH" attribute --quiet --out "$A/many.json" -- "$M" >/dev/null
for i in 2 3; do
  step "attribute many again ($i)" timed "many_attribute_$i" "$DIVBENCH" attribute --quiet --out "$A/.again.json" -- "$M" \
    >/dev/null
done
rm -f "$A/.again.json"
# The control: the same calls without the executable's cubins disassembled from the start.
for i in 1 2 3; do
  sfx=$([ "$i" = 1 ] || echo "_$i")
  step "attribute many late disassembly ($i)" timed "many_late_disassembly$sfx" env DIVBENCH_EARLY_FROM_EXECUTABLE=0 \
    "$DIVBENCH" attribute --quiet --out "$A/.late.json" -- "$M" >/dev/null
  step "attribute thrust late disassembly ($i)" timed "thrust_late_disassembly$sfx" env DIVBENCH_EARLY_FROM_EXECUTABLE=0 \
    "$DIVBENCH" attribute --quiet --out "$A/.late.json" -- "$TH" >/dev/null
done
rm -f "$A/.late.json"
step "attribute many no sampling" timed many_attribute_no_sampling "$DIVBENCH" attribute --quiet --no-pc-sampling \
  --out "$A/many_no_sampling.json" -- "$M" >/dev/null
# Where the overhead goes, run by run (timing.txt, `many_parts_*`): each of attribute's two program runs
# alone, with the same injection environment attribute gives it (CUPTI 13.4 from the bundle), three
# times each: the PC-sampling library at attribute's period (2^12 cycles) and at 2^20 (few samples:
# what sampling costs beyond loading CUPTI and enabling it), the counting library on every kernel, the
# counting library with a target no kernel has (CUPTI loaded, nothing instrumented), and the two
# started together as attribute starts them (the wall of the pair).
P="$BIN/libdivbench_pcsample.so"
I="$BIN/libdivbench_inject.so"
part_dir="$A/.parts"
part() {  # part NAME INJECT-LIB [VAR=VALUE...]: one injected run of the program, timed
  local name=$1 lib=$2
  shift 2
  rm -rf "$part_dir" && mkdir -p "$part_dir"
  timed "$name" env CUDA_INJECTION64_PATH="$lib" DIVBENCH_ATTRIBUTE_DIR="$part_dir" "$@" "$M" >/dev/null 2>&1
}
pair() {  # pair NAME: the counting and the sampling run started together; the wall until both ended
  local t0 t1 rc=0
  rm -rf "$part_dir" && mkdir -p "$part_dir/c" "$part_dir/s"
  t0=$(date +%s%N)
  env CUDA_INJECTION64_PATH="$I" DIVBENCH_ATTRIBUTE_DIR="$part_dir/c" DIVBENCH_ATTRIBUTE_TARGET='*all*' "$M" >/dev/null 2>&1 &
  local c=$!
  env CUDA_INJECTION64_PATH="$P" DIVBENCH_ATTRIBUTE_DIR="$part_dir/s" DIVBENCH_PCSAMPLE_PERIOD=12 "$M" >/dev/null 2>&1 &
  local s=$!
  wait "$c" || rc=$?
  wait "$s" || rc=$?
  t1=$(date +%s%N)
  echo "$1 $(( (t1 - t0) / 1000000 )) ms rc=$rc" >>"$A/timing.txt"
}
if [ -f "$P" ] && [ -f "$I" ]; then
  for i in 1 2 3; do
    part "many_parts_sampling_p12_$i" "$P" DIVBENCH_PCSAMPLE_PERIOD=12
    part "many_parts_sampling_p20_$i" "$P" DIVBENCH_PCSAMPLE_PERIOD=20
    part "many_parts_counting_all_$i" "$I" DIVBENCH_ATTRIBUTE_TARGET='*all*'
    part "many_parts_counting_none_$i" "$I" DIVBENCH_ATTRIBUTE_TARGET='no_such_kernel'
    pair "many_parts_pair_$i"
    timed "many_parts_plain_$i" "$M" >/dev/null
  done
else
  note "attribute: many_parts_* not timed (no $P or $I)"
fi
rm -rf "$part_dir"
# The same kernels launched as one CUDA graph and from four host threads: one run must count them alike.
for mode in graph threads; do
  step "attribute many $mode" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$A/many_$mode.json" -- "$M" 128 "$mode" \
    >/dev/null
done

top=$(python3 -m divbench.attribute_top "$A/thrust.json" 2>/dev/null)
if [ -n "$top" ]; then
  step "attribute thrust one kernel" timed thrust_one_kernel "$DIVBENCH" attribute --quiet --kernel "^${top}\$" \
    --out "$A/thrust_one_kernel.json" -- "$TH" >/dev/null
fi

step "validation" python3 -m divbench.attribute_validation "$A" --out "$A/validation.json"
python3 -m divbench.stage_summary attribute "$A/validation.json" >>"$RESULTS/summary.txt" 2>&1 || fail=1
# The goals validation.json judges (the shapes against their compaction truth among them): one not met fails
# the stage; its files are still written and committed, the miss named in them.
python3 - "$A/validation.json" >>"$RESULTS/summary.txt" 2>&1 <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
missed = [k for k in ("kway_ok", "lanes_ok", "predication_ok", "ncu_ok", "shapes_ok", "launch_modes_ok", "hostile_ok")
          if s.get(k) is False]
print("attribute goals: " + ("all met" if not missed else "NOT met: " + ", ".join(missed)))
sys.exit(1 if missed else 0)
PY
exit $fail
