"""`divbench attribute` on ordinary programs (scripts/gpu/52-attribute-programs.sh): per mode of
tests/attribute/programs.cu, attribute's exit code, every launched kernel counted, and each kernel's
counts against ncu's on the same program; and the faulting program's message names compute-sanitizer.
Schema divbench.attribute_programs/1. Exit 1 when a check fails; 2 (one line) for a folder that cannot
be read.

The rule (fixed before the run it judges, scripts/gpu/52 at the commit that added _ncu2.csv): a kernel's
counts agree with ncu's when its instructions (attribute's inst_issued: CUPTI's per-warp count plus the
replays of divergent indirect transfers, which the hardware counter counts once per target) and its
divergent branch targets are each within TOLERANCE of ncu's first run, widened by twice ncu's own change
between its two runs (kernels whose blocks wait on each other, CUB's decoupled look-back, differ from run
to run). Thread instructions per instruction are reported beside and judged by the same band only where no
indirect transfer replayed: ncu counts a replay's waiting threads again, CUPTI's patched count does not.

  PYTHONPATH=scripts python3 -m divbench.attribute_programs FOLDER [--out FILE] [--summary]"""
from __future__ import annotations

import sys
from pathlib import Path

from divbench.attribute_validation import _ncu_totals
from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json, read_text
from divbench.stage_files import exit_code_in

SCHEMA = "divbench.attribute_programs/1"
TOLERANCE = 0.005  # relative: the goal for counts against ncu
MODES = ("gaussian", "particlefilter", "ieee", "double_math", "shared_callee", "indirect", "jump_table", "recursion",
         "nvrtc", "graph", "cub")


_rc = exit_code_in


def _rel(a: float, b: float) -> float:
    return 0.0 if a == b else (abs(a / b - 1) if b else float("inf"))


def mode_row(folder: Path, mode: str) -> dict:
    err = read_text(folder / f"{mode}.stderr")
    row = {"mode": mode, "exit_code": _rc(err), "error": None, "kernels": []}
    if row["exit_code"] != 0:
        lines = [ln for ln in err.splitlines() if ln and not ln.startswith("rc=")]
        row["error"] = lines[-1] if lines else None
        row["ok"] = False
        return row
    doc = load_json(folder / f"{mode}.json", "a divbench attribute document")
    ncu = _ncu_totals(folder / f"{mode}_ncu.csv")
    second = folder / f"{mode}_ncu2.csv"
    ncu2 = _ncu_totals(second) if second.is_file() else {}
    launched = doc.get("launches", {})
    counted = {k["name"]: k for k in doc["kernels"]}
    without = doc.get("collection", {}).get("launched_without_counts", [])
    names = sorted(set(launched) | set(counted) | set(ncu))
    worst, judged_ok = 0.0, True
    for name in names:
        k, n, m = counted.get(name), ncu.get(name), ncu2.get(name)
        r = {"kernel": name, "launches": launched.get(name), "launches_ncu": n["launches"] if n else 0,
             "counted": k is not None}
        if k is not None and n:
            inst_n = n["smsp__inst_executed.sum"]
            div_n = n.get("smsp__sass_branch_targets_threads_divergent.sum", 0.0)
            spread_inst = _rel(m["smsp__inst_executed.sum"], inst_n) if m else 0.0
            spread_div = _rel(m.get("smsp__sass_branch_targets_threads_divergent.sum", 0.0), div_n) if m else 0.0
            r["inst_executed"] = float(k["inst_executed"])
            r["inst_issued"] = float(k.get("inst_issued", k["inst_executed"]))
            r["inst_ncu"] = inst_n
            r["inst_rel_diff"] = _rel(r["inst_issued"], inst_n)
            r["inst_executed_rel_diff"] = _rel(r["inst_executed"], inst_n)
            r["ncu_run_to_run_inst_rel_diff"] = spread_inst if m else None
            r["divergent"] = float(k["branch_targets_threads_divergent"])
            r["divergent_ncu"] = div_n
            r["divergent_rel_diff"] = _rel(r["divergent"], div_n)
            r["ncu_run_to_run_divergent_rel_diff"] = spread_div if m else None
            r["thread_inst"] = float(k["thread_inst_executed"])
            r["thread_inst_ncu"] = n["smsp__thread_inst_executed.sum"]
            r["thread_inst_per_inst"] = r["thread_inst"] / r["inst_issued"] if r["inst_issued"] else None
            r["thread_inst_per_inst_ncu"] = r["thread_inst_ncu"] / inst_n if inst_n else None
            r["ratio_rel_diff"] = (_rel(r["thread_inst_per_inst"], r["thread_inst_per_inst_ncu"])
                                   if r["thread_inst_per_inst"] and r["thread_inst_per_inst_ncu"] else 0.0)
            replayed = r["inst_issued"] != r["inst_executed"]
            r["inst_band"] = TOLERANCE + 2 * spread_inst
            r["divergent_band"] = TOLERANCE + 2 * spread_div
            r["ratio_judged"] = not replayed
            r["agrees"] = (r["inst_rel_diff"] <= r["inst_band"] and r["divergent_rel_diff"] <= r["divergent_band"]
                           and (replayed or r["ratio_rel_diff"] <= r["inst_band"]))
            judged_ok = judged_ok and r["agrees"]
            worst = max(worst, r["inst_rel_diff"], r["divergent_rel_diff"], 0.0 if replayed else r["ratio_rel_diff"])
        row["kernels"].append(r)
    row["kernels_launched"] = len(names)
    row["kernels_counted"] = sum(1 for r in row["kernels"] if r["counted"])
    row["launched_without_counts"] = without
    row["max_rel_diff_vs_ncu"] = worst
    row["in_ncu"] = sum(1 for r in row["kernels"] if r["launches_ncu"])
    row["ok"] = (row["kernels_counted"] == row["kernels_launched"] > 0 and not without and judged_ok
                 and row["in_ncu"] == row["kernels_launched"])
    return row


def report(folder: Path) -> tuple[dict, bool]:
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    rows = [mode_row(folder, m) for m in MODES]
    fault_err = read_text(folder / "fault.stderr")
    fault = {"exit_code": _rc(fault_err), "names_compute_sanitizer": "compute-sanitizer" in fault_err}
    fault["ok"] = fault["exit_code"] not in (None, 0) and fault["names_compute_sanitizer"]
    first = next((load_json(folder / f"{r['mode']}.json") for r in rows if r["exit_code"] == 0), {})
    summary = {"programs": len(rows), "exit_0": sum(1 for r in rows if r["exit_code"] == 0),
               "kernels_launched": sum(r.get("kernels_launched", 0) for r in rows),
               "kernels_counted": sum(r.get("kernels_counted", 0) for r in rows),
               "max_rel_diff_vs_ncu": max((r.get("max_rel_diff_vs_ncu", 0.0) for r in rows), default=0.0),
               "kernels_agreeing_with_ncu": sum(1 for r in rows for k in r["kernels"] if k.get("agrees")),
               "tolerance": TOLERANCE, "fault_names_compute_sanitizer": fault["ok"],
               "ok": all(r["ok"] for r in rows) and fault["ok"]}
    doc = {"schema": SCHEMA, "provenance": first.get("provenance", {}), "device": first.get("device", {}),
           "summary": summary, "programs": rows, "fault": fault}
    return doc, summary["ok"]


def summary_lines(doc: dict, ok: bool = True) -> list[str]:
    s = doc["summary"]
    lines = [f"attribute-programs: {s['exit_0']} of {s['programs']} programs exit 0, {s['kernels_counted']} of "
             f"{s['kernels_launched']} kernels counted, {s['kernels_agreeing_with_ncu']} agree with ncu (max |counts - ncu| "
             f"{100 * s['max_rel_diff_vs_ncu']:.3f}%, goal {100 * s['tolerance']:.1f}% beside ncu's own run-to-run change); "
             f"the faulting program names compute-sanitizer: "
             f"{s['fault_names_compute_sanitizer']}{'' if s['ok'] else ' FAILED'}"]
    for r in doc["programs"]:
        if not r["ok"]:
            lines.append(f"attribute-programs: {r['mode']} FAILED: exit {r['exit_code']}"
                         f"{', ' + r['error'] if r.get('error') else ''}; counted {r.get('kernels_counted')} of "
                         f"{r.get('kernels_launched')}, max rel diff {r.get('max_rel_diff_vs_ncu')}")
    return lines


main = folder_report("attribute_programs", __doc__.splitlines()[0], report, summary_lines, "--summary")


if __name__ == "__main__":
    sys.exit(main())
