"""The verdict of scripts/gpu/probes/launch-sampling.sh (attribute --launches 1 against every launch
counted; its rule is in that script, fixed before the run): the median wall time of the plain program,
of attribute and of attribute --launches 1 on 120 kernels x 3 launches, the overheads, the kernels'
summed cycles lost of both, and on programs.cu all the kernels each counted. Schema
divbench.probe_launch_sampling/1; exit 1 when the rule is not met, 2 for a folder that cannot be read.

  PYTHONPATH=scripts python3 -m divbench.launch_sampling FOLDER [--out FILE]"""
from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

from divbench.cli import folder_report
from divbench.jsonio import InputError, load_json, read_text

SCHEMA = "divbench.probe_launch_sampling/1"
MAX_OVERHEAD = 3.0      # attribute --launches 1 against the plain program
MAX_ESTIMATE_DIFF = 0.02  # summed cycles lost, relative to the full run's


def timings(folder: Path) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for line in read_text(folder / "timing.txt").splitlines():
        m = re.fullmatch(r"(\w+?)(?:_(\d+))? (\d+) ms rc=(\d+)", line.strip())
        if not m:
            continue
        if m.group(4) != "0":
            raise InputError(f"{folder / 'timing.txt'}: {line.strip()}: a run failed")
        out.setdefault(m.group(1), []).append(float(m.group(3)))
    return out


def report(folder: Path) -> tuple[dict, bool]:
    folder = Path(folder)
    t = timings(folder)
    med = {k: statistics.median(v) for k, v in t.items()}
    for k in ("plain", "full", "sampled"):
        if k not in med:
            raise InputError(f"{folder / 'timing.txt'}: no {k} runs")
    docs = {n: load_json(folder / f"{n}.json", "a divbench attribute document")
            for n in ("many_full", "many_sampled", "programs_full", "programs_sampled")}
    lost = {n: sum(float(k["cycles_lost"]) for k in docs[n]["kernels"]) for n in ("many_full", "many_sampled")}
    diff = abs(lost["many_sampled"] / lost["many_full"] - 1) if lost["many_full"] else float("inf")
    counted = {n: sorted(k["name"] for k in docs[n]["kernels"]) for n in ("programs_full", "programs_sampled")}
    missing = sorted(set(counted["programs_full"]) - set(counted["programs_sampled"]))
    ls = docs["programs_sampled"].get("collection", {}).get("launch_sampling") or {}
    summary = {"plain_ms": med["plain"], "attribute_ms": med["full"], "attribute_sampled_ms": med["sampled"],
               "overhead_full": med["full"] / med["plain"], "overhead_sampled": med["sampled"] / med["plain"],
               "cycles_lost_full": lost["many_full"], "cycles_lost_sampled": lost["many_sampled"],
               "cycles_lost_rel_diff": diff, "programs_kernels_full": len(counted["programs_full"]),
               "programs_kernels_sampled": len(counted["programs_sampled"]), "programs_missing": missing,
               "programs_sampled_runs": ls.get("runs"),
               "programs_extrapolated_kernels": len(ls.get("extrapolated", [])),
               "max_overhead": MAX_OVERHEAD, "max_estimate_diff": MAX_ESTIMATE_DIFF}
    summary["overhead_met"] = summary["overhead_sampled"] <= MAX_OVERHEAD
    summary["estimate_met"] = diff <= MAX_ESTIMATE_DIFF
    summary["every_kernel_counted"] = not missing and len(counted["programs_full"]) > 0
    ok = summary["overhead_met"] and summary["estimate_met"] and summary["every_kernel_counted"]
    return {"schema": SCHEMA, "summary": summary, "timings_ms": t}, ok


def summary_line(doc: dict, ok: bool) -> list[str]:
    s = doc["summary"]
    return [f"launch-sampling: plain {s['plain_ms']:.0f} ms, attribute {s['attribute_ms']:.0f} ms ({s['overhead_full']:.2f}x), "
            f"--launches 1 {s['attribute_sampled_ms']:.0f} ms ({s['overhead_sampled']:.2f}x, goal <= {MAX_OVERHEAD}x); cycles "
            f"lost {100 * s['cycles_lost_rel_diff']:.3f}% from the full run's (goal <= {100 * MAX_ESTIMATE_DIFF:.0f}%); programs: "
            f"{s['programs_kernels_sampled']} of {s['programs_kernels_full']} kernels counted in {s['programs_sampled_runs']} runs, "
            f"{s['programs_extrapolated_kernels']} extrapolated{'' if ok else ' -- rule NOT met'}"]


main = folder_report("launch_sampling", __doc__.splitlines()[0], report, summary_line)


if __name__ == "__main__":
    sys.exit(main())
