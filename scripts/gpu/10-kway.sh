#!/usr/bin/env bash
# Stage: the k-way sweep (issue 2): k = 1..32, 201 launches each, FMA chain, modulo map.
set -euo pipefail
G="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$G"
t0=$(date +%s.%N)
"$DIVBENCH" --sweep k --k 1-32 --reps 201 --out "$G/kway.json" --benchmark_out="$G/kway.gbench.json"
t1=$(date +%s.%N)
python3 -m divbench.stage_summary kway "$G/kway.json" "$t0" "$t1" >>"$RESULTS/summary.txt"
