#!/usr/bin/env bash
# Probe (not a stage): does an extra path whose side runs nothing cost what attribute charges for one
# (D_path = 17 cycles, measured on the k-way kernel, whose paths all run code)? A lead from for_trips
# (+15.6%): its unrolled remainder is a row of if-thens, divergent at every execution, the other side of
# each empty. Held-out set 3 (tests/attribute/shapes.cu, committed in 303c0d6 before any run of them):
#   if_then_chain  eight if-thens in a row, each on its own bit of the item, the other side empty
#   if_else_chain  the control: the same eight with an else of integer work (both sides run code)
#   for_trips      a reference: the stage-50 shape, through this probe's own pipeline
# each by compaction as stage 50 does (shapes time, attribute on the random and the sorted order).
# The rule, fixed before the run: from each chain's estimate E, truth T and extra paths P per launch,
# the cost the data imply for one extra path is c = 17 - (E - T) / P. The lead is supported when
# c(if_then_chain) < 8 while c(if_else_chain) is within 17 +- 5 (the control: a path that runs code costs
# D_path); it is refuted when both are within 17 +- 5; anything else is inconclusive.
# Writes $OUT/results/<gpu>/probes/empty-side/ and packs $OUT/results.tar.gz again.
PROBE=empty-side
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for shape in if_then_chain if_else_chain for_trips; do compaction "$shape"; done
PYTHONPATH=scripts python3 - "$D" >>"$D/run.txt" 2>&1 <<'PY'
import json, sys
from pathlib import Path
from divbench.attribute_validation import probe_shape
D = Path(sys.argv[1])
out = {"schema": "divbench.probe_empty_side/1", "d_path_cycles": 17.0, "shapes": []}
for shape in ("if_then_chain", "if_else_chain", "for_trips"):
    got = probe_shape(D, shape)
    if got is None:
        out["shapes"].append({"shape": shape, "error": "no result"})
        continue
    row, branches, launches = got
    paths = sum(float(b.get("extra_paths") or 0) for b in branches) / launches
    e, t = row["estimated_cycles"], row["truth_cycles"]
    out["shapes"].append({"shape": shape, "truth_cycles": t, "estimated_cycles": e, "rel_err": row["rel_err"],
                          "extra_paths_per_launch": paths,
                          "implied_cycles_per_extra_path": 17.0 - (e - t) / paths if paths else None,
                          "shared_sm": row.get("shared_sm")})
c = {s["shape"]: s.get("implied_cycles_per_extra_path") for s in out["shapes"]}
then, ctl = c.get("if_then_chain"), c.get("if_else_chain")
if then is None or ctl is None:
    verdict = "inconclusive: a chain has no result"
elif then < 8 and abs(ctl - 17) <= 5:
    verdict = "supported"
elif abs(then - 17) <= 5 and abs(ctl - 17) <= 5:
    verdict = "refuted"
else:
    verdict = "inconclusive"
out["verdict"] = verdict
(D / "empty_side.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out, indent=1))
PY
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/run.txt"
