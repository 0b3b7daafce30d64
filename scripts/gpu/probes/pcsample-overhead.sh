#!/usr/bin/env bash
# Probe (not a stage): where the PC-sampling run's time goes on the 128-kernel program
# (docs/attribute.md "Where the 128-kernel overhead goes"). Run on the GPU machine after
# scripts/run_on_gpu.sh has unpacked .gpubundle/ (or with it present); writes
# $OUT/results/<gpu>/probes/pcsample-overhead/ and packs $OUT/results.tar.gz again.
#   timing.txt      wall ms of each run: the plain program, the sampling run with CUPTI's default
#                   buffers (hardware 512 MiB, scratch 16 MiB as divbench sets them) and with smaller
#                   ones (DIVBENCH_PCSAMPLE_HW_MIB, DIVBENCH_PCSAMPLE_SCRATCH_MIB), three runs each
#   debug_*.log     the sampling library's debug log (DIVBENCH_ATTRIBUTE_DEBUG=1: each step stamped with
#                   the ms since the library was loaded) of one run each, default and small buffers
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
: "${OUT:=$PWD/out}"
BUNDLE="$PWD/.gpubundle"
BIN="$BUNDLE/bin"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
D="$OUT/results/${DIVBENCH_GPU:-h200}/probes/pcsample-overhead"
mkdir -p "$D"
M="$BIN/divbench_attribute_many"
P="$BIN/libdivbench_pcsample.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$D/timing.txt"
timed() {  # timed NAME CMD...
  local name=$1 t0 t1 rc
  shift
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo "$name $(( (t1 - t0) / 1000000 )) ms rc=$rc" >>"$D/timing.txt"
}
sampled() {  # sampled VAR=VALUE...: the program under the sampling library, as attribute runs it
  rm -rf "$tmp/s" && mkdir -p "$tmp/s"
  env CUDA_INJECTION64_PATH="$P" DIVBENCH_ATTRIBUTE_DIR="$tmp/s" DIVBENCH_PCSAMPLE_PERIOD=12 "$@" "$M"
}
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for i in 1 2 3; do
  timed "plain_$i" "$M"
  timed "sampling_default_$i" sampled
  timed "sampling_hw32_$i" sampled DIVBENCH_PCSAMPLE_HW_MIB=32
  timed "sampling_hw32_scratch1_$i" sampled DIVBENCH_PCSAMPLE_HW_MIB=32 DIVBENCH_PCSAMPLE_SCRATCH_MIB=1
done
sampled DIVBENCH_ATTRIBUTE_DEBUG=1 >/dev/null 2>"$D/debug_default.log"
sampled DIVBENCH_ATTRIBUTE_DEBUG=1 DIVBENCH_PCSAMPLE_HW_MIB=32 DIVBENCH_PCSAMPLE_SCRATCH_MIB=1 >/dev/null \
  2>"$D/debug_small.log"
cp "$tmp"/s/pcsamples-*.json "$D/" 2>/dev/null
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/timing.txt"
