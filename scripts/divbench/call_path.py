"""The costs of calls, from the call-path calibration of stage 50 (scripts/gpu/50-attribute.sh):

  python3 -m divbench.call_path round-trip FOLDER [--out FILE]   (attribute results none_<order>.json)
  python3 -m divbench.call_path path FOLDER [--out FILE]         (attribute results shapes_<order>.json)

FOLDER holds what the stage ran on the calibration shapes of tests/attribute/shapes.cu (`--set
calibration`) and the program's warp cycles of both orders (shapes_time.json).

round-trip  what a call's round trip (CALL to RET and back) costs beyond the issue model, from the
            uniform shapes cal_direct_1 and cal_direct_4 (one and four direct calls of the same function
            per item, no divergence), analysed with `--call-path none`: per order, C = ((T4 - T1) - (M4 - M1))
            / (W4 - W1), T the measured warp cycles, M the modelled ones (modelled_warp_cycles), W the CALL
            passes (calls_executed), all per launch; call_round_trip_cycles = the mean of the two orders.
            Writes a divbench.call_path/1 document with divergent_call_path_cycles null.
path        the cost of an indirect call's extra path, from the cal_call_* shapes (one indirect call through
            a table of M callees with alike bodies, M = 2, 4, 8, and a longer body at M = 4), analysed with
            the round trip above and no path cost of their own (--call-path ROUND_TRIP_FILE): per shape and
            launch, R, S the warp cycles of the random and sorted order, for each order the estimate E and
            its calls' extra paths e, X = E - D_path * e; ground truth by compaction (R - S + the estimate for
            sorted) equals the estimate for random when an extra path costs
                c = (R - S + X_sorted - X_random) / (e_random - e_sorted);
            divergent_call_path_cycles = the median of c. The round trip is taken from the results'
            cost_model; the formula above on these results (which priced it) gives round_trip.residual.
The rules were fixed before their first run. Exit 2 on a folder without these files."""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

from divbench.attribute_validation import _kernel_of_type
from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json

SCHEMA = "divbench.call_path/1"
RULE = ("round trip: C = ((T4 - T1) - (M4 - M1)) / (W4 - W1) on cal_direct_1 and cal_direct_4 (--call-path none), "
        "the mean of the two orders; path: c = (R - S + X_sorted - X_random) / (e_random - e_sorted) per cal_call_* "
        "shape, X = estimate - D_path x the calls' extra paths (the round trip priced), divergent_call_path_cycles = "
        "median of c (both fixed before their first run)")
DIRECT = ("cal_direct_1", "cal_direct_4")


def _docs(folder: Path, prefix: str) -> dict:
    return {o: load_json(folder / f"{prefix}{o}.json") for o in ("random", "sorted")}


def _per_launch(doc: dict, kernel_type: str) -> dict | None:
    k = _kernel_of_type(doc, kernel_type)
    if k is None:
        return None
    launches = int(doc.get("launches", {}).get(k["name"], 1)) or 1
    return {"modelled": float(k["modelled_warp_cycles"]) / launches,
            "calls": float(k.get("calls_executed", 0)) / launches}


def _round_trip(folder: Path, docs: dict) -> dict:
    timed = {s["shape"]: s for s in load_json(folder / "shapes_time.json").get("shapes", [])}
    if any(n not in timed for n in DIRECT):
        raise InputError(f"{folder}/shapes_time.json: no {' or '.join(n for n in DIRECT if n not in timed)}")
    per_order = {}
    for o, doc in docs.items():
        one, four = (_per_launch(doc, timed[n]["kernel"]) for n in DIRECT)
        if one is None or four is None:
            raise InputError(f"{folder}: the {o} attribute results lack the cal_direct kernels")
        t1, t4 = (timed[n][f"{o}_median"] for n in DIRECT)
        dw = four["calls"] - one["calls"]
        if dw <= 0:
            raise InputError(f"{folder}: cal_direct_4 made no more calls than cal_direct_1 ({o})")
        per_order[o] = {"warp_cycles_1": t1, "warp_cycles_4": t4, "modelled_1": one["modelled"],
                        "modelled_4": four["modelled"], "calls_1": one["calls"], "calls_4": four["calls"],
                        "cycles_per_call": ((t4 - t1) - (four["modelled"] - one["modelled"])) / dw}
    return {"per_order": per_order, "cycles": statistics.mean(v["cycles_per_call"] for v in per_order.values())}


def round_trip(folder: Path) -> dict:
    docs = _docs(folder, "none_")
    for doc in docs.values():
        cm = doc.get("cost_model", {})
        if cm.get("call_round_trip_cycles") is not None or cm.get("divergent_call_path_cycles") is not None:
            raise InputError("the round trip is measured on results made with --call-path none")
    rt = _round_trip(folder, docs)
    ref = docs["random"]
    return {"schema": SCHEMA, "device": ref.get("device"), "provenance": ref.get("provenance"), "rule": RULE,
            "shapes": [{"shape": n, "kernel": n} for n in DIRECT],
            "summary": {"call_round_trip_cycles": rt["cycles"], "divergent_call_path_cycles": None, "round_trip": rt}}


def _order(doc: dict, kernel_type: str) -> dict | None:
    k = _kernel_of_type(doc, kernel_type)
    if k is None:
        return None
    launches = int(doc.get("launches", {}).get(k["name"], 1)) or 1
    d_path = doc.get("cost_model", {}).get("divergent_path_cycles")
    if doc.get("cost_model", {}).get("divergent_call_path_cycles") is not None:
        raise InputError("the attribute results priced an indirect call's path already: give them no path cost "
                         "(--call-path none, or the round-trip file)")
    if d_path is None:
        raise InputError("the attribute results have no divergent_path_cycles (cost_model)")
    calls = [b for b in k["branches"] if b.get("call")]
    e = sum(float(b.get("extra_paths") or 0) for b in calls) / launches
    est = float(k["cycles_lost"]) / launches
    return {"estimate": est, "call_extra_paths": e, "without_call_paths": est - float(d_path) * e,
            "d_path": float(d_path)}


def call_path(folder: Path) -> dict:
    timed = load_json(folder / "shapes_time.json")
    docs = _docs(folder, "shapes_")
    rows = []
    for s in timed.get("shapes", []):
        if s["shape"] in DIRECT:
            continue
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
    ref = docs["random"]
    summary = {"divergent_call_path_cycles": statistics.median(cs), "min": min(cs), "max": max(cs), "shapes": len(cs),
               "d_path_cycles": ref.get("cost_model", {}).get("divergent_path_cycles"),
               "call_round_trip_cycles": ref.get("cost_model", {}).get("call_round_trip_cycles")}
    if summary["call_round_trip_cycles"] is not None:
        timed_names = {s["shape"] for s in timed.get("shapes", [])}
        if all(n in timed_names for n in DIRECT):
            summary["round_trip"] = {"residual": _round_trip(folder, docs)["cycles"]}
    return {"schema": SCHEMA, "device": ref.get("device"), "provenance": ref.get("provenance"),
            "rule": RULE, "shapes": rows, "summary": summary}


def report_path(folder: Path) -> tuple[dict, bool]:
    doc = call_path(folder)
    for r in doc["shapes"]:
        c = r.get("cycles_per_extra_path")
        print(f"{r['shape']}: " + (f"{c:.1f} cycles per extra path" if c is not None else r.get("error", "no result")))
    s = doc["summary"]
    print(f"divergent_call_path_cycles {s['divergent_call_path_cycles']:.1f} (min {s['min']:.1f}, max {s['max']:.1f}, "
          f"{s['shapes']} shapes); call_round_trip_cycles {s['call_round_trip_cycles']}")
    return doc, True


def report_round_trip(folder: Path) -> tuple[dict, bool]:
    doc = round_trip(folder)
    rt = doc["summary"]["round_trip"]
    for o, v in rt["per_order"].items():
        print(f"{o}: {v['cycles_per_call']:.1f} cycles per call beyond the issue model")
    print(f"call_round_trip_cycles {rt['cycles']:.1f}")
    return doc, True


_MAINS = {"round-trip": folder_report("divbench.call_path round-trip", __doc__, report_round_trip),
          "path": folder_report("divbench.call_path path", __doc__, report_path)}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in _MAINS:
        print("usage: python3 -m divbench.call_path round-trip|path FOLDER [--out FILE]", file=sys.stderr)
        return 2
    return _MAINS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
