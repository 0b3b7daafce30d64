#!/usr/bin/env bash
# Stage: what each number of the cost decomposition means (divergence proper against the loop over
# paths).
#   cost.json   --sweep cost at all 8 code placements, every point in the divergent kernel and in the
#               no-divergence control (region axis): summary.bodies[] gains b_loop_cycles_per_path and
#               b_divergence_cycles_per_path beside b_cycles_per_path (docs/dynamic.md, "Cost").
#               About 2 x 2 x the 16 s of the 4-placement sweep without the control.
# Same file as 15-accuracy's cost step (whose defaults are now the same); run this stage alone to
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
python3 -m divbench.stage_summary accuracy "$G" "$t0" "$t1" "$t1" >>"$RESULTS/summary.txt"
exit $fail
