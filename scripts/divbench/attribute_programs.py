"""`divbench attribute` on ordinary programs (scripts/gpu/52-attribute-programs.sh): per mode of
tests/attribute/programs.cu, attribute's exit code, every launched kernel counted, and each kernel's
counts against ncu's on the same program (instructions, thread instructions per instruction, divergent
branch targets; goal: within 0.5%); and the faulting program's message names compute-sanitizer.
Schema divbench.attribute_programs/1. Exit 1 when a check fails; 2 (one line) for a folder that cannot
be read.

  PYTHONPATH=scripts python3 -m divbench.attribute_programs FOLDER [--out FILE] [--summary]"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from divbench.attribute_validation import _ncu_totals
from divbench.cli import ArgumentParser, tool_main
from divbench.jsonio import InputError, check_output, load_json, read_text, write_json

SCHEMA = "divbench.attribute_programs/1"
TOLERANCE = 0.005  # relative: the goal for counts against ncu
MODES = ("gaussian", "particlefilter", "ieee", "double_math", "shared_callee", "indirect", "jump_table", "recursion",
         "nvrtc", "graph", "cub")


def _rc(stderr: str) -> int | None:
    m = re.findall(r"^rc=(\d+)$", stderr, re.M)
    return int(m[-1]) if m else None


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
    launched = doc.get("launches", {})
    counted = {k["name"]: k for k in doc["kernels"]}
    without = doc.get("collection", {}).get("launched_without_counts", [])
    names = sorted(set(launched) | set(counted) | set(ncu))
    worst = 0.0
    for name in names:
        k, n = counted.get(name), ncu.get(name)
        r = {"kernel": name, "launches": launched.get(name), "launches_ncu": n["launches"] if n else 0,
             "counted": k is not None}
        if k is not None and n:
            r["inst"] = float(k["inst_executed"])
            r["inst_ncu"] = n["smsp__inst_executed.sum"]
            r["inst_rel_diff"] = _rel(r["inst"], r["inst_ncu"])
            r["thread_inst_per_inst"] = float(k["thread_inst_per_inst"])
            r["thread_inst_per_inst_ncu"] = n["smsp__thread_inst_executed.sum"] / n["smsp__inst_executed.sum"]
            r["ratio_rel_diff"] = _rel(r["thread_inst_per_inst"], r["thread_inst_per_inst_ncu"])
            r["divergent"] = float(k["branch_targets_threads_divergent"])
            r["divergent_ncu"] = n.get("smsp__sass_branch_targets_threads_divergent.sum", 0.0)
            r["divergent_rel_diff"] = _rel(r["divergent"], r["divergent_ncu"])
            worst = max(worst, r["inst_rel_diff"], r["ratio_rel_diff"], r["divergent_rel_diff"])
        row["kernels"].append(r)
    row["kernels_launched"] = len(names)
    row["kernels_counted"] = sum(1 for r in row["kernels"] if r["counted"])
    row["launched_without_counts"] = without
    row["max_rel_diff_vs_ncu"] = worst
    row["in_ncu"] = sum(1 for r in row["kernels"] if r["launches_ncu"])
    row["ok"] = (row["kernels_counted"] == row["kernels_launched"] > 0 and not without and worst <= TOLERANCE
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
               "tolerance": TOLERANCE, "fault_names_compute_sanitizer": fault["ok"],
               "ok": all(r["ok"] for r in rows) and fault["ok"]}
    doc = {"schema": SCHEMA, "provenance": first.get("provenance", {}), "device": first.get("device", {}),
           "summary": summary, "programs": rows, "fault": fault}
    return doc, summary["ok"]


def summary_lines(doc: dict) -> list[str]:
    s = doc["summary"]
    lines = [f"attribute-programs: {s['exit_0']} of {s['programs']} programs exit 0, {s['kernels_counted']} of "
             f"{s['kernels_launched']} kernels counted, max |counts - ncu| {100 * s['max_rel_diff_vs_ncu']:.3f}% "
             f"(goal {100 * s['tolerance']:.1f}%); the faulting program names compute-sanitizer: "
             f"{s['fault_names_compute_sanitizer']}{'' if s['ok'] else ' FAILED'}"]
    for r in doc["programs"]:
        if not r["ok"]:
            lines.append(f"attribute-programs: {r['mode']} FAILED: exit {r['exit_code']}"
                         f"{', ' + r['error'] if r.get('error') else ''}; counted {r.get('kernels_counted')} of "
                         f"{r.get('kernels_launched')}, max rel diff {r.get('max_rel_diff_vs_ncu')}")
    return lines


@tool_main("attribute_programs")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="attribute_programs", description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summary", action="store_true", help="print the summary lines")
    a = ap.parse_args(argv)
    if a.out:
        check_output(a.out, [a.folder])
    doc, ok = report(a.folder)
    if a.out:
        write_json(a.out, doc)
    if a.summary:
        print("\n".join(summary_lines(doc)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
