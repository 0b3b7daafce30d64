#!/usr/bin/env bash
# Stage: accuracy of the slope and what its parts mean (docs/dynamic.md "Cost", docs/sass.md "Out of sample").
#   cost.json       --sweep cost at all 8 code placements: T(k,n) = k*(a*n + b) + c per body and placement,
#                   every point in the divergent kernel and in the no-divergence control (axis region):
#                   summary.bodies[] has b_cycles_per_path, b_loop_cycles_per_path (the control) and
#                   b_divergence_cycles_per_path, split into b_param_reads_cycles_per_path and
#                   b_branch_cycles_per_path by the slot control's two runs at n = 0 (no raw samples:
#                   every point keeps its median, min, max, CV)
#   loops.json      --sweep loops: the validation loops (experiments/loops/, bodies the fit never sees) at
#                   8 placements, a = (T(5000) - T(1000)) / 4000 each
#   loop_cost_fit.json  divbench kernels fit --cost cost.json --validation loops.json with the kernel facts of
#                   this very binary: the constants fitted on the measured a, the placement band, and
#                   validation[] with oos_median_abs_err and oos_max_abs_err. It does not replace
#                   loop_cost.json (the constants the build carries and results/predicted/ come from) until
#                   the predictions are regenerated from it (scripts/predict.sh)
#   sampling.json   --sweep sampling: single vs warp-per-SM medians per body, map and k
STAGE=accuracy
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
mkdir -p "$G"

t0=$(date +%s.%N)
step cost "$DIVBENCH" --sweep cost --placements 8 --no-samples --quiet --out "$G/cost.json"
t1=$(date +%s.%N)
step loops "$DIVBENCH" --sweep loops --placements 8 --no-samples --quiet --out "$G/loops.json"
facts="$(dirname "$DIVBENCH")/kernel_facts.json"
if [ -f "$facts" ] && [ -f "$G/cost.json" ] && [ -f "$G/loops.json" ]; then
  step fit "$DIVBENCH" kernels fit --cost "$G/cost.json" --validation "$G/loops.json" --facts "$facts" \
    --out "$G/loop_cost_fit.json"
else
  note "accuracy: loop_cost_fit.json not written (kernel facts $facts, cost.json or loops.json missing)"
  fail=1
fi
t2=$(date +%s.%N)
step sampling "$DIVBENCH" --sweep sampling --no-samples --quiet --out "$G/sampling.json"
t3=$(date +%s.%N)
python3 -m divbench.stage_summary accuracy "$G" "$t0" "$t1" "$t3" >>"$RESULTS/summary.txt"
exit $fail
