#!/usr/bin/env bash
# Probe (not a stage): `divbench attribute` on a kernel long enough to fill the PC-sampling run's
# 32 MiB CUPTI buffer (the k-way kernel, k = 32, 3·10^5 iterations per path: about 0.14 s). By default
# attribute must run the sampling run again with 512 MiB and keep its samples
# (collection.pc_sampling.retried); with --pc-sampling-buffer 32 it must not, and must warn that samples
# were lost. Writes $OUT/results/<gpu>/probes/pcsample-retry/ and packs $OUT/results.tar.gz again.
PROBE=pcsample-retry
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
T="$BIN/divbench_attribute_targets"
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
: >"$D/timing.txt"
for mode in default buf32; do
  extra=()
  [ "$mode" = buf32 ] && extra=(--pc-sampling-buffer 32)
  t0=$(date +%s%N)
  timeout 300 "$BIN/divbench" attribute --quiet "${extra[@]}" --kernel kway_kernel --out "$D/$mode.json" \
    -- "$T" kway fma_chain 32 300000 1 >/dev/null 2>"$D/$mode.stderr"
  rc=$?
  t1=$(date +%s%N)
  echo "$mode $(( (t1 - t0) / 1000000 )) ms rc=$rc" >>"$D/timing.txt"
done
t0=$(date +%s%N)
timeout 300 "$T" kway fma_chain 32 300000 1 >/dev/null 2>&1
echo "plain $(( ($(date +%s%N) - t0) / 1000000 )) ms rc=$?" >>"$D/timing.txt"
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/timing.txt"
for mode in default buf32; do
  echo "== $mode"; cat "$D/$mode.stderr"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d['collection'].get('pc_sampling')))" "$D/$mode.json"
done
