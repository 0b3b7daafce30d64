"""The cost of an indirect call's extra path, from the call-path probe (scripts/gpu/probes/call-path.sh):

  python3 -m divbench.call_path FOLDER [--out call_path.json]

FOLDER holds what the probe ran on the calibration shapes of tests/attribute/shapes.cu (`--set
calibration`: one indirect call through a table of M callees with alike bodies, M = 2, 4, 8, and a
longer body at M = 4): shapes_time.json (the program's `time` mode) and the attribute results of the random
and the sorted order (shapes_random.json, shapes_sorted.json) made with `--call-path none` (an extra
path of a call priced at D_path, the cost_model's divergent_path_cycles).

Per shape, per launch: R, S the warp cycles of the random and sorted order (medians); for each order the
estimate E and the extra paths of its indirect calls e (the calls' extra_paths); X = E - D_path * e, the
estimate without its calls' paths. Ground truth by compaction (R - S + the estimate for sorted) equals the
estimate for random when a call's extra path costs
    c = (R - S + X_sorted - X_random) / (e_random - e_sorted).
The rule, fixed before the probe's first run: divergent_call_path_cycles = the median of c over the
calibration shapes; min and max are its spread. The callees' bodies are alike, so the random order adds
nothing but the extra paths (each callee's instructions are priced by the issue model as in any region).
Exit 2 on a folder without these files."""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

from divbench.attribute_validation import _kernel_of_type
from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json

SCHEMA = "divbench.call_path/1"
RULE = ("c = (R - S + X_sorted - X_random) / (e_random - e_sorted) per calibration shape, X = estimate - "
        "D_path x the calls' extra paths (attribute run with --call-path none); divergent_call_path_cycles = "
        "median of c (fixed before the probe's first run)")


def _order(doc: dict, kernel_type: str) -> dict | None:
    k = _kernel_of_type(doc, kernel_type)
    if k is None:
        return None
    launches = int(doc.get("launches", {}).get(k["name"], 1)) or 1
    d_path = doc.get("cost_model", {}).get("divergent_path_cycles")
    if doc.get("cost_model", {}).get("divergent_call_path_cycles") is not None:
        raise InputError("the attribute results priced calls at a measured call path: run them with --call-path none")
    if d_path is None:
        raise InputError("the attribute results have no divergent_path_cycles (cost_model)")
    calls = [b for b in k["branches"] if b.get("call")]
    e = sum(float(b.get("extra_paths") or 0) for b in calls) / launches
    est = float(k["cycles_lost"]) / launches
    return {"estimate": est, "call_extra_paths": e, "without_call_paths": est - float(d_path) * e,
            "d_path": float(d_path)}


def call_path(folder: Path) -> dict:
    timed = load_json(folder / "shapes_time.json")
    docs = {o: load_json(folder / f"shapes_{o}.json") for o in ("random", "sorted")}
    rows = []
    for s in timed.get("shapes", []):
        row = {"shape": s["shape"], "kernel": s["kernel"], "shared_sm": s.get("shared_sm"),
               "warp_cycles_random": s.get("random_median"), "warp_cycles_sorted": s.get("sorted_median")}
        per = {o: _order(doc, s["kernel"]) for o, doc in docs.items()}
        if any(v is None for v in per.values()) or row["warp_cycles_random"] is None or row["warp_cycles_sorted"] is None:
            row["error"] = "no attribute result or timing for this shape"
            rows.append(row)
            continue
        r, so = per["random"], per["sorted"]
        row.update({"estimate_random": r["estimate"], "estimate_sorted": so["estimate"],
                    "call_extra_paths_random": r["call_extra_paths"], "call_extra_paths_sorted": so["call_extra_paths"],
                    "estimate_without_call_paths_random": r["without_call_paths"],
                    "estimate_without_call_paths_sorted": so["without_call_paths"]})
        de = r["call_extra_paths"] - so["call_extra_paths"]
        row["cycles_per_extra_path"] = ((row["warp_cycles_random"] - row["warp_cycles_sorted"] + so["without_call_paths"]
                                         - r["without_call_paths"]) / de) if de > 0 else None
        rows.append(row)
    cs = [r["cycles_per_extra_path"] for r in rows if r.get("cycles_per_extra_path") is not None and not r.get("shared_sm")]
    if not cs:
        raise InputError(f"{folder}: no calibration shape gave a cost per extra path")
    ref = load_json(folder / "shapes_random.json")
    return {"schema": SCHEMA, "device": ref.get("device"), "provenance": ref.get("provenance"),
            "rule": RULE, "shapes": rows,
            "summary": {"divergent_call_path_cycles": statistics.median(cs), "min": min(cs), "max": max(cs),
                        "shapes": len(cs),
                        "d_path_cycles": ref.get("cost_model", {}).get("divergent_path_cycles")}}


def report(folder: Path) -> tuple[dict, bool]:
    doc = call_path(folder)
    for r in doc["shapes"]:
        c = r.get("cycles_per_extra_path")
        print(f"{r['shape']}: " + (f"{c:.1f} cycles per extra path" if c is not None else r.get("error", "no result")))
    s = doc["summary"]
    print(f"divergent_call_path_cycles {s['divergent_call_path_cycles']:.1f} (min {s['min']:.1f}, max {s['max']:.1f}, "
          f"{s['shapes']} shapes)")
    return doc, True


main = folder_report("divbench.call_path", __doc__, report)

if __name__ == "__main__":
    sys.exit(main())
