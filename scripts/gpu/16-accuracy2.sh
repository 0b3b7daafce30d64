#!/usr/bin/env bash
# Stage: what each number of the cost decomposition means, and the loop-cost model out of sample.
#   cost.json       --sweep cost at all 8 code placements, every point in the divergent kernel and in
#                   the no-divergence control (axis region): summary.bodies[] gains
#                   b_loop_cycles_per_path and b_divergence_cycles_per_path beside b_cycles_per_path
#                   (docs/dynamic.md, "Cost"). About 2 x 2 x the 16 s of the 4-placement sweep.
#   loops.json      --sweep loops: the validation loops (kernels/validation/, 9 bodies the fit never
#                   sees) at 8 placements, a = (T(5000) - T(1000)) / 4000 each. A few seconds.
#   loop_cost.json  divbench kernels fit --cost cost.json --validation loops.json with the kernel facts
#                   of this very binary: the constants fitted on the cost sweep's measured a (not s/n),
#                   the placement band, and validation[] with oos_median_abs_err, oos_max_abs_err
#                   (docs/sass.md, "Out of sample"). CPU only.
#   occupancy.json  --sweep occupancy (defaults, as --all runs it; about 7 s): the summary gains
#                   penalty_bounded_min/_max (docs/dynamic.md, "Occupancy"). Same file 20-dynamic
#                   copies out of --all.
#   order.json      --probe order (defaults; a few seconds): the summary gains distinct_masks.
# cost.json is the same file 15-accuracy's cost step writes (same defaults); run this stage alone to
# regenerate it without the sampling validation.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
G="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$G"
STAGE=accuracy2
source scripts/gpu/lib.sh

t0=$(date +%s.%N)
step cost "$DIVBENCH" --sweep cost --placements 8 --no-samples --quiet --out "$G/cost.json"
t1=$(date +%s.%N)
step loops "$DIVBENCH" --sweep loops --placements 8 --no-samples --quiet --out "$G/loops.json"
facts="$(dirname "$DIVBENCH")/kernel_facts.json"
if [ -f "$facts" ] && [ -f "$G/cost.json" ] && [ -f "$G/loops.json" ]; then
  step fit "$DIVBENCH" kernels fit --cost "$G/cost.json" --validation "$G/loops.json" --facts "$facts" \
    --out "$G/loop_cost.json"
else
  note "accuracy2: loop_cost.json not written (kernel facts $facts, cost.json or loops.json missing)"
  fail=1
fi
step occupancy "$DIVBENCH" --sweep occupancy --no-samples --quiet --out "$G/occupancy.json"
step order "$DIVBENCH" --probe order --no-samples --quiet --out "$G/order.json"
python3 -m divbench.stage_summary accuracy "$G" "$t0" "$t1" "$t1" >>"$RESULTS/summary.txt"
exit $fail
