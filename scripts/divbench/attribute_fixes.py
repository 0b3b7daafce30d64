"""`divbench attribute`'s predicted time saved against the measured gain of a real fix (scripts/gpu/54-attribute-
fixes.sh; the programs in tests/attribute/fixes.cu, issue 47 item 4). Schema divbench.attribute_fixes/1. Exit 1
when the rule below fails or data is missing; 2 (one line) for a folder that cannot be read.

Per mode and fix: measured gain = 1 - t_after / t_before, each t the median of the program's --time runs (the
summed cudaEvent time of the kernels the fix changes, named on its JSON line); predicted = the attribute
document's predicted_time_saved_share of the timed `before` kernel(s) (attribute ran `MODE before`, with PC
sampling: the time model needs it), time-weighted when more than one kernel is timed: sum of their
predicted_time_saved_s over the sum of their measured times (time_model.measured_s); error in points = 100
|predicted - measured|.

A real fix is not the counterfactual the model predicts. The model answers "this kernel's time if its divergence
were gone, the same work done"; a fix that changes the work answers another question: vector CSR spreads a row
over a warp (more shuffles, other memory access), binary search replaces a scan of n steps by one of log2 n,
warp-aggregated atomics issue fewer atomics, a warp per vertex changes how edges map to lanes. Those fixes are
marked fix_changes_work: true and reported apart; their errors say how far a divergence estimate is from what
such a rewrite gains, not whether the estimate is right. The fixes that only rearrange the same work (degree
relabelling, rows/draws/segments/bodies sorted, pixels binned, records partitioned, Needleman-Wunsch's strips
instead of tiles: the same cells) are the test of the prediction; even they change more than divergence (which
addresses a warp loads together, the order of float sums, and for nw the loop's trip count: the idle lanes'
passes are the divergence removed), as docs/attribute.md "Time saved" says the model does not price coalescing.

The rule (fixed before any data): a prediction agrees when its error is within 5 points. The headline case,
named separately, is bfs with vertices relabelled by degree (the issue's done-when: within 5 points). The tool
passes (exit 0) when every mode and fix was measured and predicted and the headline agrees; the other rows are
reported (agreeing, median and largest error per group), none dropped: a program that failed, a missing time or
document, a timed kernel the document lacks, each is a row with its status.

  PYTHONPATH=scripts python3 -m divbench.attribute_fixes FOLDER [--out FILE] [--summary]"""
from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json, read_text
from divbench.stage_files import exit_code, finite

SCHEMA = "divbench.attribute_fixes/1"
RULE = {"within_points": 5.0, "headline": {"mode": "bfs", "fix": "after"}}
# mode -> fix -> (what the fix is, whether it changes the work). Every mode's `before` is timed beside each fix.
FIXES: dict[str, dict[str, tuple[str, bool]]] = {
    "bfs": {"after": ("vertices relabelled by degree (degree-sorted ids)", False),
            "after_warp": ("a warp per frontier vertex", True)},
    "spmv": {"after": ("vector CSR: a warp per row", True),
             "after_sorted": ("rows in order of length", False)},
    "mandelbrot": {"after": ("pixels binned by a coarse escape estimate", False)},
    "nbody": {"after": ("bodies sorted spatially (Morton order of cells)", False)},
    "nw": {"after": ("32-row strips swept whole instead of 32x32 tiles (the same cells)", False)},
    "resample": {"after": ("binary search instead of a linear scan", True),
                 "after_sorted": ("the particles' draws sorted (the same linear scans)", False)},
    "histogram": {"after": ("warp-aggregated atomics", True),
                  "after_sorted": ("records partitioned by the filter", False)},
    "segsort": {"after": ("segments in order of length", False)},
}


_num = finite
_rc = exit_code


def _last_error(path: Path) -> str | None:
    if not path.is_file():
        return None
    lines = [ln for ln in read_text(path).splitlines() if ln.strip() and not ln.startswith("rc=")]
    return lines[-1][:300] if lines else None


def read_timing(folder: Path, mode: str, variant: str) -> dict:
    """The program's --time line for MODE VARIANT: {"status", "median_ms", "min_ms", "max_ms", "kernels",
    "reps", "exit_code", "error"}; status ok, missing (no file), program_failed (exit code not 0) or no_timing
    (no JSON line with a median)."""
    out, err = folder / f"{mode}_{variant}.stdout", folder / f"{mode}_{variant}.stderr"
    r = {"status": "ok", "exit_code": _rc(err), "error": None, "kernels": None, "median_ms": None, "min_ms": None,
         "max_ms": None, "reps": None}
    if not out.is_file() and not err.is_file():
        r["status"] = "missing"
        return r
    if r["exit_code"] not in (None, 0):
        r["status"], r["error"] = "program_failed", _last_error(err)
        return r
    line = None
    for ln in read_text(out).splitlines() if out.is_file() else []:
        try:
            d = json.loads(ln)
        except ValueError:
            continue
        if isinstance(d, dict) and d.get("target") == "fixes" and d.get("mode") == mode and d.get("variant") == variant:
            line = d
    med = _num(line.get("median_ms")) if line else None
    if line is None or med is None or med <= 0:
        r["status"], r["error"] = "no_timing", _last_error(err)
        return r
    kernels = line.get("kernels")
    r.update(median_ms=med, min_ms=_num(line.get("min_ms")), max_ms=_num(line.get("max_ms")),
             reps=line.get("reps") if isinstance(line.get("reps"), int) else None,
             kernels=[k for k in kernels if isinstance(k, str)] if isinstance(kernels, list) else None)
    return r


def predict(doc: dict, names: list[str]) -> dict:
    """The predicted share of the timed kernels `names` in an attribute document: {"status", "share", "method",
    "kernels": [{"kernel", "predicted_time_saved_share", "predicted_time_saved_s", "measured_s"}]}. One kernel:
    its share. Several: sum of predicted_time_saved_s over sum of measured_s (status no_time_for_weighting where
    a kernel lacks either). status kernel_not_in_document names the first one missing; no_prediction: no share."""
    by_name = {k.get("name"): k for k in doc.get("kernels") or [] if isinstance(k, dict)}
    rows = []
    for name in names:
        k = by_name.get(name)
        if k is None:
            return {"status": "kernel_not_in_document", "share": None, "method": None, "missing_kernel": name,
                    "kernels": rows}
        tm = k.get("time_model") if isinstance(k.get("time_model"), dict) else {}
        rows.append({"kernel": name, "predicted_time_saved_share": _num(k.get("predicted_time_saved_share")),
                     "predicted_time_saved_s": _num(k.get("predicted_time_saved_s")),
                     "measured_s": _num(tm.get("measured_s"))})
    if not rows:
        return {"status": "kernel_not_in_document", "share": None, "method": None, "missing_kernel": None, "kernels": rows}
    if any(r["predicted_time_saved_share"] is None for r in rows):
        return {"status": "no_prediction", "share": None, "method": None, "kernels": rows}
    if len(rows) == 1:
        return {"status": "ok", "share": rows[0]["predicted_time_saved_share"], "method": "kernel_share", "kernels": rows}
    if any(r["predicted_time_saved_s"] is None or not r["measured_s"] for r in rows):
        return {"status": "no_time_for_weighting", "share": None, "method": None, "kernels": rows}
    share = sum(r["predicted_time_saved_s"] for r in rows) / sum(r["measured_s"] for r in rows)
    return {"status": "ok", "share": share, "method": "time_weighted", "kernels": rows}


def _top_branches(doc: dict, names: list[str], n: int = 3) -> list[dict]:
    out = []
    for k in doc.get("kernels") or []:
        if isinstance(k, dict) and k.get("name") in names:
            for b in k.get("branches") or []:
                s = _num(b.get("predicted_time_saved_share")) if isinstance(b, dict) else None
                if s is not None:
                    out.append({"kernel": k["name"], "source": b.get("source"), "predicted_time_saved_share": s})
    return sorted(out, key=lambda b: -b["predicted_time_saved_share"])[:n]


def mode_rows(folder: Path, mode: str) -> list[dict]:
    before = read_timing(folder, mode, "before")
    attr_rc = _rc(folder / f"{mode}.attr.stderr")
    doc_path = folder / f"{mode}.json"
    doc, attr_status = None, "ok"
    if attr_rc not in (None, 0):
        attr_status = "attribute_failed"
    elif not doc_path.is_file():
        attr_status = "missing_document"
    else:
        doc = load_json(doc_path, "a divbench attribute document")
        if doc.get("schema") != "divbench.attribute/1":
            raise InputError(f"{doc_path}: not a divbench.attribute/1 document (schema {doc.get('schema')!r})")
    names = before["kernels"] or [f"{mode}_before"]
    pred = predict(doc, names) if doc is not None else {"status": attr_status, "share": None, "method": None,
                                                        "kernels": []}
    rows = []
    for fix, (what, changes) in FIXES[mode].items():
        after = read_timing(folder, mode, fix)
        r = {"mode": mode, "fix": fix, "fix_description": what, "fix_changes_work": changes,
             "headline": mode == RULE["headline"]["mode"] and fix == RULE["headline"]["fix"],
             "timed_kernels_before": names, "timed_kernels_after": after["kernels"] or [f"{mode}_{fix}"],
             "t_before_ms": before["median_ms"], "t_after_ms": after["median_ms"], "reps": [before["reps"], after["reps"]],
             "measured_gain": None, "measured_gain_range": None, "predicted_time_saved_share": pred["share"],
             "prediction_method": pred["method"], "prediction_kernels": pred["kernels"], "error_points": None,
             "agrees": None, "top_branches": _top_branches(doc, names) if doc is not None else [],
             "attribute_exit_code": attr_rc, "attribute_error": _last_error(folder / f"{mode}.attr.stderr") if attr_rc else None,
             "program_errors": [e for e in (before["error"], after["error"]) if e]}
        if before["status"] != "ok":
            r["status"] = f"before_{before['status']}"
        elif after["status"] != "ok":
            r["status"] = f"after_{after['status']}"
        else:
            r["status"] = pred["status"]
        if before["median_ms"] and after["median_ms"]:
            r["measured_gain"] = 1 - after["median_ms"] / before["median_ms"]
            if before["min_ms"] and before["max_ms"] and after["min_ms"] is not None and after["max_ms"] is not None:
                r["measured_gain_range"] = [1 - after["max_ms"] / before["min_ms"], 1 - after["min_ms"] / before["max_ms"]]
        if r["measured_gain"] is not None and pred["share"] is not None:
            r["error_points"] = 100 * abs(pred["share"] - r["measured_gain"])
            r["agrees"] = r["error_points"] <= RULE["within_points"]
        if pred.get("missing_kernel"):
            r["missing_kernel"] = pred["missing_kernel"]
        rows.append(r)
    return rows


def _group(rows: list[dict]) -> dict:
    judged = [r for r in rows if r["error_points"] is not None]
    errs = [r["error_points"] for r in judged]
    return {"fixes": len(rows), "judged": len(judged), "agreeing": sum(1 for r in judged if r["agrees"]),
            "median_error_points": statistics.median(errs) if errs else None,
            "max_error_points": max(errs) if errs else None,
            "not_judged": [f"{r['mode']} {r['fix']}: {r['status']}" for r in rows if r["error_points"] is None]}


def report(folder: Path) -> tuple[dict, bool]:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    rows = [r for mode in FIXES for r in mode_rows(folder, mode)]
    head = next(r for r in rows if r["headline"])
    summary = {"fixes": len(rows), "judged": sum(1 for r in rows if r["error_points"] is not None),
               "same_work": _group([r for r in rows if not r["fix_changes_work"]]),
               "changes_work": _group([r for r in rows if r["fix_changes_work"]]),
               "headline": {"mode": head["mode"], "fix": head["fix"], "status": head["status"],
                            "predicted_time_saved_share": head["predicted_time_saved_share"],
                            "measured_gain": head["measured_gain"], "error_points": head["error_points"],
                            "agrees": head["agrees"]},
               "rule": RULE}
    summary["complete"] = summary["judged"] == len(rows)
    summary["ok"] = bool(summary["complete"] and head["agrees"])
    first = None
    for mode in FIXES:
        p = folder / f"{mode}.json"
        if p.is_file() and _rc(folder / f"{mode}.attr.stderr") in (None, 0):
            first = load_json(p, "a divbench attribute document")
            break
    doc = {"schema": SCHEMA, "provenance": (first or {}).get("provenance", {}), "device": (first or {}).get("device", {}),
           "summary": summary, "fixes": rows}
    return doc, summary["ok"]


def _pts(v) -> str:
    return "-" if v is None else f"{v:.1f}"


def summary_lines(doc: dict, ok: bool = True) -> list[str]:
    s = doc["summary"]
    h = s["headline"]
    lines = [f"attribute-fixes: headline bfs degree-sorted: predicted "
             f"{_pts(None if h['predicted_time_saved_share'] is None else 100 * h['predicted_time_saved_share'])}%, "
             f"measured {_pts(None if h['measured_gain'] is None else 100 * h['measured_gain'])}%, error "
             f"{_pts(h['error_points'])} points (rule: within {s['rule']['within_points']:g}): "
             f"{'agrees' if h['agrees'] else 'FAILED' if h['agrees'] is False else 'not judged (' + h['status'] + ')'}"]
    for key, label in (("same_work", "fixes that rearrange the same work"), ("changes_work", "fixes that change the work")):
        g = s[key]
        lines.append(f"attribute-fixes: {label}: {g['agreeing']} of {g['judged']} judged within "
                     f"{s['rule']['within_points']:g} points (median error {_pts(g['median_error_points'])}, largest "
                     f"{_pts(g['max_error_points'])}); not judged: {len(g['not_judged'])}")
    for r in doc["fixes"]:
        if r["error_points"] is None:
            lines.append(f"attribute-fixes: {r['mode']} {r['fix']} not judged: {r['status']}"
                         f"{'; ' + r['program_errors'][0] if r['program_errors'] else ''}"
                         f"{'; ' + r['attribute_error'] if r.get('attribute_error') else ''}")
    return lines


def table(doc: dict) -> str:
    """The markdown table docs/attribute.md shows ("fixes table" block; tests/python/test_attribute_docs.py
    checks it is this rendering of results/h200/attribute/fixes.json): one row a fix, worst error last."""
    out = ["| program | fix | the fix | predicted time saved | measured gain (range of 9) | error, points | within 5 |",
           "|---|---|---|---|---|---|---|"]
    def pct(v):
        return "-" if v is None else f"{100 * v:+.1f}%"
    rows = sorted(doc["fixes"], key=lambda r: (r["error_points"] is None, r["error_points"] or 0))
    for r in rows:
        lo, hi = (r.get("measured_gain_range") or [None, None])
        kind = "changes the work" if r["fix_changes_work"] else "same work"
        out.append(f"| {r['mode']}{' (headline)' if r['headline'] else ''} | {r['fix_description']} | {kind} | "
                   f"{pct(r['predicted_time_saved_share'])} | {pct(r['measured_gain'])} ({pct(lo)} to {pct(hi)}) | "
                   f"{_pts(r['error_points'])} | {'yes' if r['agrees'] else 'no' if r['agrees'] is False else '-'} |")
    return "\n".join(out)


main = folder_report("attribute_fixes", __doc__.splitlines()[0], report, summary_lines, "--summary")


if __name__ == "__main__":
    sys.exit(main())
