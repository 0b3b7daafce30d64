"""Side-by-side table of divbench's in-process CUPTI counters and Nsight Compute's (stdlib only).

Inputs: a divbench result run with --metrics (kway or calibration), and `ncu --csv` output for a
second divbench run of the same sweep under ncu, in which every point launched the kernel three
times in this order: the point's own launch(es) (--reps 1 --warmup 0), the full metrics launch,
the zero-work twin. ncu's rows are grouped by launch ID; launch 3*i+1 and 3*i+2 belong to point i.

  PYTHONPATH=scripts python3 -m divbench.merge_kway_metrics --divbench kway.json --ncu kway_ncu.csv
      [--divbench calibration.json --ncu calibration_ncu.csv ...] --out kway_metrics.json [--note TEXT]
(scripts/gpu/30-metrics.sh). Bad input: one line `merge_kway_metrics: error: ...`, exit 2, nothing written;
the output (divbench.kway_metrics/1) is written atomically.
"""
import csv
import io
import sys

from divbench.cli import ArgumentParser, fail
from divbench.jsonio import InputError, OutputError, check_writable, write_json
from divbench.results import load_result
from divbench.provenance import read_provenance

RATIO = "smsp__thread_inst_executed_per_inst_executed.ratio"
INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
METRICS = [RATIO, INST, THREAD_INST]
LAUNCHES_PER_POINT = 3  # point launch, full metrics launch, zero-work twin
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


class MergeError(Exception):
    pass


def parse_number(text, unit=""):
    """ncu prints '1,234,567' (thousands separators) and, unless --print-units base, scaled units."""
    t = text.strip().replace(",", "")
    if not t:
        raise MergeError("empty metric value")
    try:
        v = float(t)
    except ValueError:
        raise MergeError(f"metric value {text!r} is not a number")
    u = unit.strip()
    if len(u) > 1 and u[0] in PREFIX and u[1:] in ("inst", "thread", "warp", "cycle"):
        v *= PREFIX[u[0]]
    return v


def parse_ncu_csv(text):
    """Returns [(launch_id, kernel_name, {metric: value})] in launch order."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        raise MergeError("no CSV rows in the ncu output")
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    header = rows[0]
    need = ["ID", "Kernel Name", "Metric Name", "Metric Value"]
    for n in need:
        if n not in header:
            raise MergeError(f"ncu CSV lacks column {n!r} (header: {header})")
    col = {n: header.index(n) for n in header}
    launches = {}
    for r in rows[1:]:
        if len(r) != len(header) or r == header:
            continue
        lid = int(r[col["ID"]])
        entry = launches.setdefault(lid, (r[col["Kernel Name"]], {}))
        unit = r[col["Metric Unit"]] if "Metric Unit" in col else ""
        entry[1][r[col["Metric Name"]]] = parse_number(r[col["Metric Value"]], unit)
    return [(lid, launches[lid][0], launches[lid][1]) for lid in sorted(launches)]


def rel(a, b):
    return None if b == 0 else (a - b) / b


def region(full, twin):
    di = full[INST] - twin[INST]
    dt = full[THREAD_INST] - twin[THREAD_INST]
    return dt / di if di > 0 and dt >= 0 else None


def per_launch(doc, p):
    """Host wall time of one launch of a timed point (warm-up launches are inside wall_ms)."""
    n = (p.get("launches") or 0) + ((doc.get("config") or {}).get("warmup") or 0)
    return p["wall_ms"] / n if p.get("wall_ms") and n else None


def points_of(doc):
    pts = doc.get("points") or []
    return pts if pts else doc.get("points_extra") or []


def merge_one(doc, launches):
    pts = sorted(points_of(doc), key=lambda p: p["k"])
    if len(launches) != LAUNCHES_PER_POINT * len(pts):
        raise MergeError(f"{doc.get('experiment')}: ncu profiled {len(launches)} launches, expected "
                         f"{LAUNCHES_PER_POINT} per point x {len(pts)} points")
    out, worst, worst_region = [], 0.0, 0.0
    for i, p in enumerate(pts):
        k = p["k"]
        m = p.get("metrics") or {}
        if not m.get("available"):
            raise MergeError(f"k={k}: divbench metrics unavailable: {m.get('reason', 'no metrics in the point')}")
        ncu_full = launches[LAUNCHES_PER_POINT * i + 1][2]
        ncu_twin = launches[LAUNCHES_PER_POINT * i + 2][2]
        for name in METRICS:
            if name not in ncu_full or name not in ncu_twin:
                raise MergeError(f"k={k}: ncu output lacks {name}")
        d_full, d_twin = m["values"], m.get("twin", {})
        diff = {n: rel(d_full[n], ncu_full[n]) for n in METRICS}
        diff_twin = {n: rel(d_twin[n], ncu_twin[n]) for n in METRICS if n in d_twin}
        expected = 32.0 / k
        r_div = (m.get("region") or {}).get("ratio")
        r_ncu = region(ncu_full, ncu_twin)
        for v in list(diff.values()) + list(diff_twin.values()):
            if v is not None:
                worst = max(worst, abs(v))
        if r_div is not None:
            worst_region = max(worst_region, abs(r_div / expected - 1))
        entry = {
            "k": k,
            "divbench": d_full, "ncu": ncu_full, "rel_diff": diff,
            "divbench_twin": d_twin, "ncu_twin": ncu_twin, "rel_diff_twin": diff_twin,
            "region_ratio": {"divbench": r_div, "ncu": r_ncu, "expected_32_over_k": expected,
                             "divbench_rel_err": None if r_div is None else r_div / expected - 1,
                             "ncu_rel_err": None if r_ncu is None else r_ncu / expected - 1},
            "whole_kernel_rel_err_vs_32_over_k": d_full[RATIO] / expected - 1,
            "timing_ms": {"profiled_full": m.get("profile_ms"), "profiled_twin": m.get("twin_profile_ms"),
                          "timed_point_wall": p.get("wall_ms"), "timed_launches": p.get("launches"),
                          "timed_point_wall_per_launch": per_launch(doc, p),
                          "timed_region_median": (p["median_cycles"] / (p["clock_mhz"] * 1e3)
                                                  if p.get("median_cycles") and p.get("clock_mhz") else None)},
        }
        out.append(entry)
    summary = {"max_abs_rel_diff_divbench_vs_ncu": worst, "agree_within_2pct": worst <= 0.02,
               "max_abs_region_rel_err": worst_region, "region_within_10pct_of_32_over_k": worst_region <= 0.10}
    prof = [e["timing_ms"]["profiled_full"] for e in out if e["timing_ms"]["profiled_full"] is not None]
    timed = [e["timing_ms"]["timed_point_wall"] for e in out if e["timing_ms"]["timed_point_wall"] is not None]
    if prof and timed:
        summary["profiled_launch_ms_total"] = sum(prof)
        summary["timed_points_wall_ms_total"] = sum(timed)
        summary["profiled_launch_over_timed_point"] = sum(prof) / sum(timed)
    per = [e["timing_ms"]["timed_point_wall_per_launch"] for e in out]
    if prof and all(per):
        summary["profiled_launch_over_timed_launch"] = sum(prof) / sum(per)
    return {"experiment": doc.get("experiment"), "config": doc.get("config"), "per_k": out, "summary": summary}


def main(argv=None):
    ap = ArgumentParser(prog="merge_kway_metrics", description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", action="append", required=True)
    ap.add_argument("--ncu", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--ncu-version", default="")
    a = ap.parse_args(argv)
    if len(a.divbench) != len(a.ncu):
        ap.error("give one --ncu per --divbench")
    try:
        check_writable(a.out)
        result = {"schema": "divbench.kway_metrics/1", "metrics": METRICS,
                  "method": "divbench: CUPTI range profiler in-process, one launch per point (auto range, kernel "
                            "replay) plus a zero-work twin; ncu --clock-control none on the same build and "
                            "launch configuration in a second process", "note": a.note,
                  "ncu_version": a.ncu_version, "experiments": []}
        for dpath, npath in zip(a.divbench, a.ncu):
            doc = load_result(dpath).data
            try:
                with open(npath, encoding="utf-8") as f:
                    launches = parse_ncu_csv(f.read())
            except (OSError, UnicodeDecodeError) as e:
                raise InputError(f"{npath}: cannot read ({getattr(e, 'strerror', None) or e})") from None
            if "device" not in result:
                result["device"] = doc.get("device")
                result["provenance"] = read_provenance(doc).as_dict()
            try:
                result["experiments"].append(merge_one(doc, launches))
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
                raise MergeError(f"{dpath}: malformed divbench result ({e.__class__.__name__}: {e})") from None
        write_json(a.out, result)
    except (MergeError, InputError, OutputError) as e:
        return fail("merge_kway_metrics", e)
    for e in result["experiments"]:
        s = e["summary"]
        print(f"{e['experiment']}-metrics: max|divbench-ncu|/ncu={s['max_abs_rel_diff_divbench_vs_ncu']:.2e} "
              f"(<=2%: {s['agree_within_2pct']}) max region err vs 32/k={s['max_abs_region_rel_err']:.3f} "
              f"(<=10%: {s['region_within_10pct_of_32_over_k']}) region ratios="
              + ",".join(f"{x['region_ratio']['divbench']:.3f}" if x['region_ratio']['divbench'] is not None
                         else "na" for x in e["per_k"])
              + " whole=" + ",".join(f"{x['divbench'][RATIO]:.2f}" for x in e["per_k"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
