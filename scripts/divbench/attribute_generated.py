"""`divbench attribute`'s time prediction on random divergent kernels (scripts/gpu/53-attribute-generated.sh;
the kernels from scripts/divbench/generated_corpus.py), against compaction and beside Nsight Compute's
ThreadDivergence estimate. Schema divbench.attribute_generated/1. Exit 1 when the rule fails; 2 (one line)
for a folder that cannot be read.

Per kernel and occupancy (warps per SM): measured gain = 1 - median(compact) / median(random) (per site from
compact_site0/1 for two-site kernels); predicted = the attribute document's kernel predicted_time_saved_share
(per site: the sum over its branches whose source line lies in that site's lines); error in points =
100 |predicted - measured|; ncu's error likewise from its rule's estimated speedup (percent). At 1 warp per
SM also the kernel's cycles_lost against the truth summed_warp_cycles(random) - summed_warp_cycles(compact).

The rule (fixed before any data, issue 47 item 3): at 8, 16 and 32 warps per SM, within_5_points_share >= 0.9,
the median error <= 2 points, and divbench's median and p90 below ncu's (on the kernels both judged); at 1 warp
per SM, cycles_lost within 10% of the truth for >= 90% of the kernels. A kernel whose outputs differ between
arrangements has no truth (counted as outputs_failed); one with a truth but no prediction counts as a miss in
the shares (counted as missing_prediction); none is dropped silently.

  PYTHONPATH=scripts python3 -m divbench.attribute_generated FOLDER [--out FILE] [--summary]"""
from __future__ import annotations

import csv
import math
import re
import sys
from pathlib import Path

from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json, read_text
from divbench.stage_files import exit_code, finite

SCHEMA = "divbench.attribute_generated/1"
OCCUPANCIES = (1, 8, 16, 32)
RULE = {"within_points": 5.0, "within_share_min": 0.9, "median_max_points": 2.0, "cycles_rel": 0.10,
        "cycles_share_min": 0.9, "time_occupancies": [8, 16, 32], "cycles_occupancy": 1}
THREAD_INST = "smsp__thread_inst_executed_per_inst_executed.ratio"
THREAD_INST_PRED = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"


_num = finite
_rc = exit_code


def _kernel_name(name: str) -> str:
    return name.split("(")[0].strip()


def _csv_rows(path: Path) -> list[dict]:
    lines = [ln for ln in read_text(path).splitlines() if ln.startswith('"')]
    return list(csv.DictReader(lines))


def _float(text) -> float | None:
    try:
        v = float(str(text).replace(",", ""))
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_ncu(folder: Path, w: int) -> tuple[dict[str, dict], str | None]:
    """{kernel: {"speedup_share", "method", "speedup_type"}} from ncu_w<W>_details.csv (the rule's own
    Estimated Speedup, by column name) or, for kernels without rule columns there, ncu_w<W>_raw.csv (the
    rule's local formula on its two inputs: 1 - min(threads, predicated-on threads per instruction) / 32 where
    that minimum is below 24, else 0). A kernel in the details page without a ThreadDivergence row: the rule
    did not fire (0). Returns (estimates, the file read or None)."""
    details, raw = folder / f"ncu_w{w}_details.csv", folder / f"ncu_w{w}_raw.csv"
    out: dict[str, dict] = {}
    read = None
    if details.is_file():
        read = details.name
        rows = _csv_rows(details)
        cols = {c.lower(): c for c in (rows[0].keys() if rows else [])}
        rule_col, speed_col = cols.get("rule name"), cols.get("estimated speedup")
        type_col = cols.get("estimated speedup type")
        if rule_col and speed_col:
            for row in rows:
                name = _kernel_name(row.get("Kernel Name") or "")
                if not name:
                    continue
                out.setdefault(name, {"speedup_share": 0.0, "method": "rule", "speedup_type": None})
                if (row.get(rule_col) or "").replace(" ", "") == "ThreadDivergence":
                    v = _float(row.get(speed_col))
                    if v is not None:
                        out[name] = {"speedup_share": v / 100.0, "method": "rule",
                                     "speedup_type": (row.get(type_col) or None) if type_col else None}
    if raw.is_file():
        read = read or raw.name
        for row in _csv_rows(raw):
            name = _kernel_name(row.get("Kernel Name") or "")
            if not name or name in out:
                continue
            a, b = _float(row.get(THREAD_INST)), _float(row.get(THREAD_INST_PRED))
            if a is None or b is None:
                continue
            low = min(a, b)
            out[name] = {"speedup_share": (1 - low / 32) if low < 24 else 0.0, "method": "formula_local",
                         "speedup_type": "local"}
    return out, read


def _source_line(source) -> int | None:
    if not isinstance(source, str) or ":" not in source:
        return None
    path, _, line = source.rpartition(":")
    if Path(path).name != "gen.cu" or not line.isdigit():
        return None
    return int(line)


def site_prediction(kdoc: dict, ranges: list) -> float | None:
    """Sum of predicted_time_saved_share over the kernel's branches at a line of the site (None: no branch
    carries the key)."""
    total, seen = 0.0, False
    for b in kdoc.get("branches") or []:
        if b.get("counted_in") is not None:  # its cost is inside another branch's: not counted twice
            continue
        line = _source_line(b.get("source"))
        v = _num(b.get("predicted_time_saved_share"))
        if line is None or v is None:
            continue
        seen = True
        if any(a <= line <= z for a, z in ranges):
            total += v
    return total if seen else None


def _median(v: list[float]) -> float | None:
    if not v:
        return None
    s = sorted(v)
    m = len(s) // 2
    return s[m] if len(s) % 2 else 0.5 * (s[m - 1] + s[m])


def _p90(v: list[float]) -> float | None:
    """Nearest rank."""
    if not v:
        return None
    s = sorted(v)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)]


def _gain(arr: dict, name: str) -> float | None:
    r, c = arr.get("random", {}), arr.get(name, {})
    rm, cm = _num(r.get("median_ms")), _num(c.get("median_ms"))
    return 1 - cm / rm if rm and cm is not None else None


def kernel_rows(manifest: dict, measure: dict | None, attrs: dict, ncus: dict) -> list[dict]:
    measured = {k.get("name"): k for k in (measure or {}).get("kernels", []) if isinstance(k, dict)}
    rows = []
    for km in manifest["kernels"]:
        name = km["name"]
        mk = measured.get(name)
        row = {"kernel": name, "features": km.get("features", []), "sites": len(km.get("sites", [])),
               "outputs_match": mk.get("outputs_match") if mk else None, "occupancies": []}
        occ = {o.get("warps_per_sm"): o for o in (mk or {}).get("occupancies", []) if isinstance(o, dict)}
        for w in OCCUPANCIES:
            o = occ.get(w)
            r: dict = {"warps_per_sm": w}
            if mk is None or o is None:
                r["status"] = "no_measure"
            elif mk.get("outputs_match") is False:
                r["status"] = "outputs_failed"
            elif not (o.get("occupancy") or {}).get("ok", False):
                r["status"] = "occupancy_not_pinned"
            else:
                r["status"] = "ok"
            arr = (o or {}).get("arrangements") or {}
            r["measured_gain"] = _gain(arr, "compact") if r["status"] == "ok" else None
            if r["status"] == "ok" and r["measured_gain"] is None:
                r["status"] = "no_measure"
            doc = attrs.get(w)
            kdoc = next((k for k in (doc or {}).get("kernels", []) if isinstance(k, dict) and k.get("name") == name), None)
            r["predicted_time_saved_share"] = _num(kdoc.get("predicted_time_saved_share")) if kdoc else None
            r["prediction"] = ("missing_document" if doc is None else "missing_kernel" if kdoc is None
                               else "missing_key" if r["predicted_time_saved_share"] is None else "ok")
            g, p = r["measured_gain"], r["predicted_time_saved_share"]
            r["abs_err_points"] = 100 * abs(p - g) if g is not None and p is not None else None
            n = (ncus.get(w) or {}).get(name)
            r["ncu_speedup_share"] = n["speedup_share"] if n else None
            r["ncu_method"] = n["method"] if n else None
            r["ncu_abs_err_points"] = 100 * abs(n["speedup_share"] - g) if n and g is not None else None
            if len(km.get("sites", [])) == 2 and r["status"] == "ok":
                r["sites"] = []
                for s in km["sites"]:
                    sg = _gain(arr, f"compact_site{s['site']}")
                    sp = site_prediction(kdoc, s.get("lines", [])) if kdoc else None
                    r["sites"].append({"site": s["site"], "kind": s["kind"], "measured_gain": sg,
                                       "predicted_time_saved_share": sp,
                                       "abs_err_points": 100 * abs(sp - sg) if sp is not None and sg is not None else None})
            if w == RULE["cycles_occupancy"]:
                rc = _num(arr.get("random", {}).get("summed_warp_cycles_median"))
                cc = _num(arr.get("compact", {}).get("summed_warp_cycles_median"))
                truth = rc - cc if r["status"] == "ok" and rc is not None and cc is not None else None
                lost = _num(kdoc.get("cycles_lost")) if kdoc else None
                r["cycles_lost_truth"] = truth
                r["cycles_lost"] = lost
                r["cycles_rel_err"] = (abs(lost - truth) / abs(truth) if truth else (0.0 if lost == truth else None)) \
                    if truth is not None and lost is not None else None
                r["cycles_within_10pct"] = (abs(lost - truth) <= RULE["cycles_rel"] * abs(truth)
                                            if truth is not None and lost is not None else False)
            row["occupancies"].append(r)
        rows.append(row)
    return rows


def occupancy_summary(rows: list[dict], w: int) -> dict:
    rs = [next(o for o in k["occupancies"] if o["warps_per_sm"] == w) for k in rows]
    truth = [r for r in rs if r["status"] == "ok"]
    errs = [r["abs_err_points"] for r in truth if r["abs_err_points"] is not None]
    both = [r for r in truth if r["abs_err_points"] is not None and r["ncu_abs_err_points"] is not None]
    ncu_errs = [r["ncu_abs_err_points"] for r in truth if r["ncu_abs_err_points"] is not None]
    s = {"warps_per_sm": w, "kernels_with_truth": len(truth),
         "outputs_failed": sum(1 for r in rs if r["status"] == "outputs_failed"),
         "no_measure": sum(1 for r in rs if r["status"] == "no_measure"),
         "occupancy_not_pinned": sum(1 for r in rs if r["status"] == "occupancy_not_pinned"),
         "missing_prediction": sum(1 for r in truth if r["predicted_time_saved_share"] is None),
         "judged": len(errs), "ncu_judged": len(ncu_errs),
         "ncu_missing": sum(1 for r in truth if r["ncu_speedup_share"] is None),
         "median_abs_err_points": _median(errs), "p90_abs_err_points": _p90(errs),
         "max_abs_err_points": max(errs) if errs else None,
         "within_5_points_share": (sum(1 for e in errs if e <= RULE["within_points"]) / len(truth)) if truth else None,
         "ncu_median_abs_err_points": _median(ncu_errs), "ncu_p90_abs_err_points": _p90(ncu_errs),
         "common_kernels": len(both),
         "common_median_abs_err_points": _median([r["abs_err_points"] for r in both]),
         "common_p90_abs_err_points": _p90([r["abs_err_points"] for r in both]),
         "common_ncu_median_abs_err_points": _median([r["ncu_abs_err_points"] for r in both]),
         "common_ncu_p90_abs_err_points": _p90([r["ncu_abs_err_points"] for r in both])}
    if w == RULE["cycles_occupancy"]:
        s["cycles_judged"] = sum(1 for r in truth if r.get("cycles_rel_err") is not None)
        s["cycles_within_10pct_share"] = (sum(1 for r in truth if r.get("cycles_within_10pct")) / len(truth)) if truth else None
        s["median_cycles_rel_err"] = _median([r["cycles_rel_err"] for r in truth if r.get("cycles_rel_err") is not None])
        s["passes"] = s["cycles_within_10pct_share"] is not None and s["cycles_within_10pct_share"] >= RULE["cycles_share_min"]
    elif w in RULE["time_occupancies"]:
        beats = (s["common_kernels"] > 0 and s["common_median_abs_err_points"] < s["common_ncu_median_abs_err_points"]
                 and s["common_p90_abs_err_points"] < s["common_ncu_p90_abs_err_points"])
        s["beats_ncu"] = beats
        s["passes"] = (s["within_5_points_share"] is not None and s["within_5_points_share"] >= RULE["within_share_min"]
                       and s["median_abs_err_points"] is not None and s["median_abs_err_points"] <= RULE["median_max_points"]
                       and beats)
    else:
        s["passes"] = None
    return s


def by_feature(rows: list[dict]) -> list[dict]:
    """Where the errors lie, not a rule (nothing here is judged): per feature the generator drew and per
    occupancy, the kernels with that feature and a prediction, the median signed error (predicted - measured,
    points: > 0 over-predicts) and the median measured gain. A kernel has several features, so rows overlap."""
    out = []
    for f in sorted({f for k in rows for f in k["features"]}):
        row = {"feature": f, "occupancies": []}
        for w in OCCUPANCIES:
            rs = [o for k in rows if f in k["features"] for o in k["occupancies"]
                  if o["warps_per_sm"] == w and o["status"] == "ok" and o["predicted_time_saved_share"] is not None]
            row["occupancies"].append({
                "warps_per_sm": w, "kernels": len(rs),
                "median_signed_err_points": _median([100 * (o["predicted_time_saved_share"] - o["measured_gain"]) for o in rs]),
                "median_measured_gain": _median([o["measured_gain"] for o in rs])})
        out.append(row)
    return out


def _run_txt(folder: Path) -> dict:
    p = folder / "run.txt"
    if not p.is_file():
        return {}
    return dict(ln.split("=", 1) for ln in read_text(p).splitlines() if "=" in ln)


def report(folder: Path) -> tuple[dict, bool]:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    manifest = load_json(folder / "manifest.json", "a divbench.generated_manifest/1 document")
    if manifest.get("schema") != "divbench.generated_manifest/1" or not isinstance(manifest.get("kernels"), list):
        raise InputError(f"{folder / 'manifest.json'}: not a divbench.generated_manifest/1 document")
    mp = folder / "measure.json"
    measure = load_json(mp, "a divbench.generated_measure/1 document") if mp.is_file() else None
    if measure is not None and measure.get("schema") != "divbench.generated_measure/1":
        raise InputError(f"{mp}: not a divbench.generated_measure/1 document")
    attrs, attr_runs = {}, []
    for w in OCCUPANCIES:
        p = folder / f"attr_w{w}.json"
        rc = _rc(folder / f"attr_w{w}.stderr")
        attrs[w] = load_json(p, "a divbench attribute document") if p.is_file() else None
        attr_runs.append({"warps_per_sm": w, "exit_code": rc, "document": attrs[w] is not None})
    ncus, ncu_files = {}, []
    for w in OCCUPANCIES:
        ncus[w], read = read_ncu(folder, w)
        ncu_files.append({"warps_per_sm": w, "file": read, "kernels": len(ncus[w]),
                          "methods": sorted({v["method"] for v in ncus[w].values()})})
    rows = kernel_rows(manifest, measure, attrs, ncus)
    occ = [occupancy_summary(rows, w) for w in OCCUPANCIES]
    run = _run_txt(folder)
    first = next((d for d in attrs.values() if d), {})
    model_commit = ((first.get("provenance") or {}).get("git") if isinstance(first.get("provenance"), dict) else None) \
        or run.get("checkout_commit")
    misses = []
    for k in rows:
        bad = [o["warps_per_sm"] for o in k["occupancies"]
               if o["status"] == "ok" and (o["abs_err_points"] is None or o["abs_err_points"] > RULE["within_points"])]
        if bad:
            misses.append({"kernel": k["kernel"], "features": k["features"], "warps_per_sm": bad})
    failed = [k["kernel"] for k in rows if k["outputs_match"] is False]
    summary = {"kernels": len(rows), "seed": manifest.get("seed"), "model_commit": model_commit,
               "generator_version": manifest.get("generator_version"), "rule": RULE,
               "outputs_failed": failed, "occupancies": occ,
               "missed_kernels": len(misses)}
    judged = [s for s in occ if s["passes"] is not None]
    summary["ok"] = bool(judged) and all(s["passes"] for s in judged)
    doc = {"schema": SCHEMA, "provenance": first.get("provenance", {}), "device": (measure or {}).get("device", {}),
           "summary": summary, "attribute_runs": attr_runs, "ncu_files": ncu_files, "kernels": rows, "misses": misses,
           "by_feature": by_feature(rows)}
    return doc, summary["ok"]


def table(doc: dict) -> str:
    """The markdown table docs/attribute.md shows ("generated table" block; tests/python/test_attribute_docs.py
    checks it is this rendering of results/h200/attribute/generated.json): one row per occupancy."""
    out = ["| warps per SM | kernels judged | median error, points | p90 | largest | within 5 points | ncu's median | ncu's p90 | "
           "cycles lost within 10% |", "|---|---|---|---|---|---|---|---|---|"]
    def n(v, fmt="{:.1f}"):
        return "-" if v is None else fmt.format(v)
    for o in doc["summary"]["occupancies"]:
        share = o.get("within_5_points_share")
        cyc = o.get("cycles_within_10pct_share")
        out.append(f"| {o['warps_per_sm']} | {o['judged']} | {n(o['median_abs_err_points'])} | {n(o['p90_abs_err_points'])} | "
                   f"{n(o['max_abs_err_points'])} | {n(None if share is None else 100 * share, '{:.0f}%')} | "
                   f"{n(o['ncu_median_abs_err_points'])} | {n(o['ncu_p90_abs_err_points'])} | "
                   f"{n(None if cyc is None else 100 * cyc, '{:.0f}%')} |")
    return "\n".join(out)


def feature_table(doc: dict) -> str:
    """docs/attribute.md's "generated features table": the median signed error per feature and occupancy
    (by_feature), with the kernels counted at one warp per SM."""
    ws = [o["warps_per_sm"] for o in doc["by_feature"][0]["occupancies"]] if doc.get("by_feature") else []
    out = ["| feature | kernels | " + " | ".join(f"{w} warps/SM" for w in ws) + " |", "|---|---|" + "---|" * len(ws)]
    for r in doc.get("by_feature", []):
        cells = ["-" if o["median_signed_err_points"] is None else f"{o['median_signed_err_points']:+.1f}" for o in r["occupancies"]]
        out.append(f"| {r['feature']} | {r['occupancies'][0]['kernels']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _pts(v) -> str:
    return "-" if v is None else f"{v:.2f}"


def summary_lines(doc: dict, ok: bool = True) -> list[str]:
    s = doc["summary"]
    lines = [f"attribute-generated: {s['kernels']} random kernels (seed {s['seed']}, model {s['model_commit']}), "
             f"{len(s['outputs_failed'])} with outputs that depend on the arrangement, {s['missed_kernels']} missed by > 5 points "
             f"somewhere{'' if s['ok'] else ' FAILED'}"]
    for o in s["occupancies"]:
        line = (f"attribute-generated: {o['warps_per_sm']} warps/SM: |err| median {_pts(o['median_abs_err_points'])}, "
                f"p90 {_pts(o['p90_abs_err_points'])}, max {_pts(o['max_abs_err_points'])} points, within 5 points "
                f"{_pts(o['within_5_points_share'])} of {o['kernels_with_truth']} ({o['missing_prediction']} without a prediction); "
                f"ncu median {_pts(o['ncu_median_abs_err_points'])}, p90 {_pts(o['ncu_p90_abs_err_points'])} ({o['ncu_judged']} kernels)")
        if "cycles_within_10pct_share" in o:
            line += f"; cycles lost within 10%: {_pts(o['cycles_within_10pct_share'])}"
        if o["passes"] is not None:
            line += " PASS" if o["passes"] else " FAIL"
        lines.append(line)
    return lines


main = folder_report("attribute_generated", __doc__.splitlines()[0], report, summary_lines, "--summary")


if __name__ == "__main__":
    sys.exit(main())
