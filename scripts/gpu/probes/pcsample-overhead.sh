#!/usr/bin/env bash
# Probe (not a stage): where the PC-sampling run's time goes on the 128-kernel program
# (docs/attribute.md "Where the 128-kernel overhead goes"). Run on the GPU machine after
# scripts/run_on_gpu.sh has unpacked .gpubundle/ (or with it present); writes
# $OUT/results/<gpu>/probes/pcsample-overhead/ and packs $OUT/results.tar.gz again.
#   timing.txt      wall ms of each run: the plain program, the sampling run with a hardware buffer of
#                   512 MiB (CUPTI's default), 128, 64 and 32 MiB (DIVBENCH_PCSAMPLE_HW_MIB), and 32 MiB
#                   with a 1 MiB scratch buffer (DIVBENCH_PCSAMPLE_SCRATCH_MIB), three runs each; long_hw*:
#                   one long kernel under 512 and 32 MiB
#   debug_*.log     the sampling library's debug log (DIVBENCH_ATTRIBUTE_DEBUG=1: each step stamped with
#                   the ms since the library was loaded) of one run each, 512 and 32 MiB
#   *.pcsamples.json  the sampling documents (dropped_samples, hardware_buffer_full) of the 32 MiB run of
#                   the 128 kernels and of the long kernel under each buffer
PROBE=pcsample-overhead
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
M="$BIN/divbench_attribute_many"
P="$BIN/libdivbench_pcsample.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$D/timing.txt"
sampled() {  # sampled VAR=VALUE... [-- PROGRAM ARGS...]: a program (default the 128 kernels) under the
             # sampling library, as attribute runs it
  local vars=() prog=("$M")
  while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; prog=("$@"); break; fi
    vars+=("$1"); shift
  done
  rm -rf "$tmp/s" && mkdir -p "$tmp/s"
  env CUDA_INJECTION64_PATH="$P" DIVBENCH_ATTRIBUTE_DIR="$tmp/s" DIVBENCH_PCSAMPLE_PERIOD=12 "${vars[@]}" "${prog[@]}"
}
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for i in 1 2 3; do
  timed "plain_$i" "$M"
  for mib in 512 128 64 32; do
    timed "sampling_hw${mib}_$i" sampled DIVBENCH_PCSAMPLE_HW_MIB=$mib
  done
  timed "sampling_hw32_scratch1_$i" sampled DIVBENCH_PCSAMPLE_HW_MIB=32 DIVBENCH_PCSAMPLE_SCRATCH_MIB=1
done
sampled DIVBENCH_ATTRIBUTE_DEBUG=1 DIVBENCH_PCSAMPLE_HW_MIB=512 >/dev/null 2>"$D/debug_hw512.log"
sampled DIVBENCH_ATTRIBUTE_DEBUG=1 DIVBENCH_PCSAMPLE_HW_MIB=32 >/dev/null 2>"$D/debug_hw32.log"
cp "$tmp"/s/pcsamples-*.json "$D/many_hw32.pcsamples.json" 2>/dev/null
# A long kernel (the k-way kernel, k = 32, 10^6 iterations per path: about 0.45 s): does the smaller
# buffer lose samples? Its document says (dropped_samples, hardware_buffer_full).
T="$BIN/divbench_attribute_targets"
for mib in 512 32; do
  timed "long_hw${mib}" sampled DIVBENCH_PCSAMPLE_HW_MIB=$mib -- "$T" kway fma_chain 32 1000000 1
  cp "$tmp"/s/pcsamples-*.json "$D/long_hw${mib}.pcsamples.json" 2>/dev/null
done
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/timing.txt"
