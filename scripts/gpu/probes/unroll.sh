#!/usr/bin/env bash
# Probe (not a stage): does attribute's over-estimate of for_trips (+15.6%) come with the unrolled copies
# of its loop? The same loop, `for (j = 0; j < trips; ++j) x = fmaf(x, ..)` over trips 0..128, at four
# unrollings (tests/attribute/shapes.cu): for_unroll1 (`#pragma unroll 1`: one exit per trip, +5.2% in the
# stage), for_unroll2 and for_unroll8 (`--set unroll`, written for this probe, before any run of them),
# and for_trips (nvcc's own: a 16x loop, an 8x block, a 4x loop and three guarded remainder trips). Each
# by compaction as stage 50 does (shapes time; attribute on the random and the sorted order, with and
# without PC sampling).
# The rule, fixed before the run, on the errors e(U) = estimate / truth - 1 (PC sampling on):
#   supported  e(for_unroll8) - e(for_unroll1) > 5 points and e(for_unroll2) lies between them
#   refuted    |e(for_unroll8) - e(for_unroll1)| <= 3 points
#   else inconclusive. Per shape also: the extra paths (loop exits and other branches), the path part
#   (17 cycles each), the instruction part, and the cost per extra path the data imply, 17 - (E - T) / P.
# Writes $OUT/results/<gpu>/probes/unroll/ and packs $OUT/results.tar.gz again.
PROBE=unroll
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for shape in for_unroll1 for_unroll2 for_unroll8 for_trips; do compaction "$shape" model; done
PYTHONPATH=scripts python3 - "$D" >>"$D/run.txt" 2>&1 <<'PY'
import json, sys
from pathlib import Path
from divbench.attribute_validation import probe_shape
D = Path(sys.argv[1])
out = {"schema": "divbench.probe_unroll/1", "d_path_cycles": 17.0, "shapes": []}
for shape in ("for_unroll1", "for_unroll2", "for_unroll8", "for_trips"):
    got = probe_shape(D, shape)
    if got is None:
        out["shapes"].append({"shape": shape, "error": "no result"})
        continue
    row, branches, launches = got
    loop_paths = sum(float(b.get("extra_paths") or 0) for b in branches if b.get("loop")) / launches
    other_paths = sum(float(b.get("extra_paths") or 0) for b in branches if not b.get("loop")) / launches
    paths = loop_paths + other_paths
    e, t = row["estimated_cycles"], row["truth_cycles"]
    out["shapes"].append({"shape": shape, "truth_cycles": t, "estimated_cycles": e, "rel_err": row["rel_err"],
                          "model_rel_err": row.get("model_rel_err"),
                          "loop_exit_paths_per_launch": loop_paths, "other_paths_per_launch": other_paths,
                          "path_part_cycles": 17.0 * paths, "instruction_part_cycles": e - 17.0 * paths,
                          "implied_cycles_per_extra_path": 17.0 - (e - t) / paths if paths else None,
                          "shared_sm": row.get("shared_sm")})
err = {s["shape"]: s.get("rel_err") for s in out["shapes"]}
e1, e2, e8 = err.get("for_unroll1"), err.get("for_unroll2"), err.get("for_unroll8")
if e1 is None or e2 is None or e8 is None:
    verdict = "inconclusive: a shape has no result"
elif e8 - e1 > 0.05 and min(e1, e8) <= e2 <= max(e1, e8):
    verdict = "supported"
elif abs(e8 - e1) <= 0.03:
    verdict = "refuted"
else:
    verdict = "inconclusive"
out["verdict"] = verdict
(D / "unroll.json").write_text(json.dumps(out, indent=1) + "\n")
print(json.dumps(out, indent=1))
PY
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
cat "$D/run.txt"
