#!/usr/bin/env bash
# `divbench attribute` on the GPU against ground truth (label gpu; exit 77 without a GPU): divbench's own
# k-way kernel (estimated cycles lost per warp within 10% of the measured T(k) - T(1); none at k = 1),
# the lane kernels (host-known executions, divergent executions and active lanes), the predicated kernel
# (no divergent branch) — the checks of python3 -m divbench.attribute_validation on a smaller run; and
# --calibrate: the cost sweep, the memory probe and the fit on this GPU, the curves in the result.
#   usage: gpu_test.sh DIVBENCH TARGETS SCRIPTS_DIR
set -uo pipefail
divbench=$1 targets=$2 scripts=$3
if ! nvidia-smi -L >/dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$divbench" --sweep k --body fma_chain --k 1,4 --iters 1000 --placements 1 --no-samples --quiet --out "$d/kway_n1000.json" || exit 1
for k in 1 4; do
  "$divbench" attribute --quiet --kernel kway_kernel --out "$d/kway_k${k}_n1000.json" -- "$targets" kway fma_chain "$k" 1000 3 \
    >"$d/kway_k${k}_n1000.target.json" || exit 1
done
"$divbench" attribute --quiet --out "$d/lanes.json" -- "$targets" lanes 2 >"$d/lanes.target.json" || exit 1
"$divbench" attribute --quiet --out "$d/predication.json" -- "$targets" predication 1000 3 >"$d/predication.target.json" || exit 1
"$divbench" attribute --quiet --calibrate --no-pc-sampling --kernel kway_kernel --out "$d/calibrated.json" \
  -- "$targets" kway fma_chain 4 1000 3 >/dev/null || exit 1
python3 - "$d/calibrated.json" <<'PY' || exit 1
import json, sys
cm = json.load(open(sys.argv[1]))["cost_model"]
cal, levels = cm.get("calibration") or {}, cm.get("memory_levels") or []
print("calibration", cal.get("cost_exit_code"), cal.get("memory_exit_code"), [l["level"] for l in levels])
ok = cal.get("cost_exit_code") in (0, 4) and cal.get("memory_exit_code") in (0, 4) and \
    {l["level"] for l in levels} == {"dram", "l2", "l1"} and all(len(l["lanes"]) >= 2 for l in levels)
sys.exit(0 if ok else 1)
PY
PYTHONPATH="$scripts" python3 - "$d" <<'PY'
import sys
from pathlib import Path
from divbench import attribute_validation as v
d = Path(sys.argv[1])
kway, lanes, pred = v.kway_checks(d), v.lanes_checks(d), v.predication_checks(d)
for r in kway:
    print("kway", r["k"], r.get("rel_err"), r["ok"])
for r in lanes:
    print("lanes", r["kernel"], r["ok"])
print("predication", pred["ok"])
sys.exit(0 if kway and all(r["ok"] for r in kway) and all(r["ok"] for r in lanes) and pred["ok"] else 1)
PY
