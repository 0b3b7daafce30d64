#!/usr/bin/env bash
# Probe (not a stage): the memory probe (`divbench --sweep memory`) at 1, 4 and 16 warps per SM, twice:
# how a dependent load's pass grows with its lanes when more warps share the SM. attribute's memory rule
# reads the one-warp curve (results/<gpu>/memory.json); this says how far that curve is from the
# others (docs/attribute.md step 6). Writes $OUT/results/<gpu>/probes/memory-occupancy/ and packs
# $OUT/results.tar.gz again.
PROBE=memory-occupancy
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for i in 1 2; do
  "$BIN/divbench" --sweep memory --quiet --no-samples --out "$D/memory_$i.json" 2>>"$D/run.txt"
  echo "memory_$i rc=$?" >>"$D/run.txt"
done
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/run.txt"
