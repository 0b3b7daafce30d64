#!/usr/bin/env bash
# Probe (not a stage): where attribute's counting run spends its time on a program that computes
# (docs/attribute.md "Launch sampling"): tests/attribute/many_kernels.cu with 120 kernels, one or three
# rounds of launches, WORK 1 (a kernel does little) or 2000 (about 0.1 ms a kernel on the H200). Under
# the counting library alone (CUDA_INJECTION64_PATH, DIVBENCH_ATTRIBUTE_TARGET='*all*', as attribute's
# counting run) against the plain program, three runs each: the difference between one and three rounds
# is the cost of executing patched code, what one round costs beyond it is the patching. Run on the GPU
# machine with the bundle unpacked; writes $OUT/results/<gpu>/probes/launch-cost/.
#   timing.txt       wall ms of each run (NAME ms rc)
#   attribute_*.json divbench attribute (its phases_s) on 120 x 3 x 2000, with and without PC sampling
#   launch sampling: the counting run with DIVBENCH_ATTRIBUTE_LAUNCHES=1 (each kernel's first launch),
#     timed on 120 x 3 x 2000; sampled_many.json / full_many.json its counts and the full ones on
#     120 x 3 x 1; sampled_programs.json / full_programs.json on tests/attribute/programs.cu all
#   run.txt          the GPU and the commit
# The committed results/h200/probes/launch-cost/ is the run with the library of 6f02347, which also had a
# counter-granularity switch (DIVBENCH_ATTRIBUTE_GRANULARITY=sm|smsp: counted_sm_*/counted_smsp_* in
# timing.txt, counts_gpu/sm/smsp.json on 120 x 1 x 1; the per-SM counts summed to 2.06x the others, so the
# switch was removed in 9bdabde and its runs with it) and reopened a closed range (sampled_programs.json: it
# counted nothing after the reopening, which is why attribute now runs the program again instead).
PROBE=launch-cost
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
M="$BIN/divbench_attribute_many"
I="$BIN/libdivbench_inject.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$D/timing.txt"
counted() {  # counted [VAR=VALUE...] PROGRAM ARGS...: under the counting library, every kernel instrumented
  rm -rf "$tmp/c" && mkdir -p "$tmp/c"
  env CUDA_INJECTION64_PATH="$I" DIVBENCH_ATTRIBUTE_DIR="$tmp/c" DIVBENCH_ATTRIBUTE_TARGET='*all*' "$@"
}
keep() {  # keep NAME: the last counting run's counts file as $D/NAME.json
  cp "$tmp"/c/counts-*.json "$D/$1.json" 2>>"$D/run.txt" || echo "keep $1: no counts file" >>"$D/run.txt"
}
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for i in 1 2 3; do
  for shape in "1 1" "3 1" "1 2000" "3 2000"; do
    set -- $shape
    timed "plain_r$1_w$2_$i" "$M" 120 plain "$1" "$2"
    timed "counted_r$1_w$2_$i" counted "$M" 120 plain "$1" "$2"
  done
done
for s in "" --no-pc-sampling; do
  timed "attribute${s:+_no_sampling}_r3_w2000" "$BIN/divbench" attribute --quiet $s \
    --out "$D/attribute${s:+_no_sampling}.json" -- "$M" 120 plain 3 2000
done
for i in 1 2 3; do timed "counted_sampled1_r3_w2000_$i" counted DIVBENCH_ATTRIBUTE_LAUNCHES=1 "$M" 120 plain 3 2000; done
counted DIVBENCH_ATTRIBUTE_LAUNCHES=1 "$M" 120 plain 3 1 >/dev/null 2>>"$D/run.txt"; keep sampled_many
counted "$M" 120 plain 3 1 >/dev/null 2>>"$D/run.txt"; keep full_many
counted DIVBENCH_ATTRIBUTE_LAUNCHES=1 "$BIN/divbench_attribute_programs" all >/dev/null 2>>"$D/run.txt"; keep sampled_programs
counted "$BIN/divbench_attribute_programs" all >/dev/null 2>>"$D/run.txt"; keep full_programs
