#!/usr/bin/env bash
# Stage: accuracy of the slope (the cost decomposition and the sampling validation).
#   cost.json      --sweep cost: T(k,n) = k*(a*n + b) + c per body and code placement (no raw samples:
#                  about 2,500 points; every point keeps its median, min, max and CV)
#   sampling.json  --sweep sampling: single vs warp-per-SM medians per body, map and k
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
G="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$G"
STAGE=accuracy
source scripts/gpu/lib.sh

t0=$(date +%s.%N)
step cost "$DIVBENCH" --sweep cost --no-samples --quiet --out "$G/cost.json"
t1=$(date +%s.%N)
step sampling "$DIVBENCH" --sweep sampling --no-samples --quiet --out "$G/sampling.json"
t2=$(date +%s.%N)
python3 -m divbench.stage_summary accuracy "$G" "$t0" "$t1" "$t2" >>"$RESULTS/summary.txt"
exit $fail
