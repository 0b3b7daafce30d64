"""Side-by-side table of divbench's in-process CUPTI counters and Nsight Compute's (stdlib only).

Inputs: a divbench result run with --metrics (kway, calibration, or any experiment whose points carry
`metrics`), and `ncu --csv` output for a second divbench run of the same sweep under ncu
(DIVBENCH_CUPTI=off there), in which the kernel was launched in this order: every point's own
launch(es) (--reps 1 --warmup 0: --point-launches per point, default 1), then, after all points, the
metric launches divbench profiles in one session: per point with `metrics` the full launch and, where
the point has a zero-work twin, the twin. Points are matched in the result's order (the run order).

  PYTHONPATH=scripts python3 -m divbench.merge_kway_metrics --divbench kway.json --ncu kway_ncu.csv
      [--divbench calibration.json --ncu calibration_ncu.csv ...] --out kway_metrics.json [--note TEXT]
(scripts/gpu/30-metrics.sh). Bad input: one line `merge_kway_metrics: error: ...`, exit 2, nothing written;
the output (divbench.kway_metrics/1) is written atomically.
"""
import csv
import io
import sys

from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import InputError, OutputError, check_output, write_json
from divbench.results import load_result, point_label
from divbench.provenance import read_provenance

RATIO = "smsp__thread_inst_executed_per_inst_executed.ratio"
INST = "smsp__inst_executed.sum"
THREAD_INST = "smsp__thread_inst_executed.sum"
PRED_ON_RATIO = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
PRED_ON = "smsp__thread_inst_executed_pred_on.sum"
BRANCH_UNIFORM_PCT = "smsp__sass_average_branch_targets_threads_uniform.pct"
BRANCH_TARGETS = "smsp__sass_branch_targets.sum"
BRANCH_UNIFORM = "smsp__sass_branch_targets_threads_uniform.sum"
# divbench's default --metrics list (src/cupti/metrics.cpp), the order ncu is asked for them in.
METRICS = [RATIO, INST, THREAD_INST, PRED_ON_RATIO, PRED_ON, BRANCH_UNIFORM_PCT, BRANCH_TARGETS, BRANCH_UNIFORM]
# Experiments whose region runs k equal paths: the region ratio should be 32/k.
THIRTY_TWO_OVER_K = ("kway", "calibration")
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
    if len(u) > 1 and u[0] in PREFIX and u[1:] in ("inst", "thread", "warp", "cycle", "branch_target"):
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


def region_pred_on(full, twin):
    if PRED_ON not in full or PRED_ON not in twin:
        return None
    di = full[INST] - twin[INST]
    dp = full[PRED_ON] - twin[PRED_ON]
    return dp / di if di > 0 and dp >= 0 else None


def region_branch_uniform_pct(full, twin):
    if any(n not in m for n in (BRANCH_TARGETS, BRANCH_UNIFORM) for m in (full, twin)):
        return None
    dt = full[BRANCH_TARGETS] - twin[BRANCH_TARGETS]
    du = full[BRANCH_UNIFORM] - twin[BRANCH_UNIFORM]
    return 100.0 * du / dt if dt > 0 and 0 <= du <= dt else None


def per_launch(doc, p):
    """Host wall time of one launch of a timed point (warm-up launches are inside wall_ms)."""
    warmup = p.get("warmup")  # per point in current results; older ones: config.warmup (a number)
    if not isinstance(warmup, int):
        warmup = (doc.get("config") or {}).get("warmup")
        warmup = warmup if isinstance(warmup, int) else 0
    n = (p.get("launches") or 0) + warmup
    return p["wall_ms"] / n if p.get("wall_ms") and n else None


def points_of(doc):
    pts = doc.get("points") or []
    return pts if pts else doc.get("points_extra") or []


def metric_launches(pts, launches, point_launches):
    """ncu's launches of each point's metric launches: [(full, twin or None)] in point order."""
    with_metrics = [p for p in pts if "metrics" in p]
    expected_metric = sum(2 if "twin" in (p["metrics"] or {}) else 1 for p in with_metrics)
    expected = point_launches * len(pts) + expected_metric
    if len(launches) != expected:
        raise MergeError(f"ncu profiled {len(launches)} launches, expected {point_launches} per point x {len(pts)} "
                         f"points + {expected_metric} metric launches after them")
    out, i = [], point_launches * len(pts)
    for p in with_metrics:
        full = launches[i][2]
        i += 1
        twin = None
        if "twin" in p["metrics"]:
            twin = launches[i][2]
            i += 1
        out.append((full, twin))
    return out


def merge_one(doc, launches, point_launches=1):
    pts = points_of(doc)
    for p in pts:
        if "metrics" in p and not (p["metrics"] or {}).get("available"):
            raise MergeError(f"{point_label(p, 'kway') or 'a point'}: divbench metrics unavailable: "
                             f"{(p['metrics'] or {}).get('reason', 'no reason given')}")
    if not any("metrics" in p for p in pts):
        raise MergeError(f"{doc.get('experiment')}: no point carries metrics (run with --metrics)")
    pairs = metric_launches(pts, launches, point_launches)
    expect_32_over_k = doc.get("experiment") in THIRTY_TWO_OVER_K
    out, worst, worst_region = [], 0.0, 0.0
    worst_by_metric = {n: 0.0 for n in METRICS}
    for p, (ncu_full, ncu_twin) in zip([p for p in pts if "metrics" in p], pairs):
        k = p["k"]
        m = p["metrics"]
        d_full, d_twin = m["values"], m.get("twin", {})
        names = [n for n in METRICS if n in d_full]
        for name in names:
            if name not in ncu_full or (ncu_twin is not None and name not in ncu_twin):
                raise MergeError(f"{point_label(p, 'kway')}: ncu output lacks {name}")
        diff = {n: rel(d_full[n], ncu_full[n]) for n in names}
        diff_twin = {n: rel(d_twin[n], ncu_twin[n]) for n in names if n in d_twin and ncu_twin is not None}
        for src in (diff, diff_twin):
            for n, v in src.items():
                if v is not None:
                    worst = max(worst, abs(v))
                    worst_by_metric[n] = max(worst_by_metric[n], abs(v))
        expected = 32.0 / k if expect_32_over_k else None
        r_div = (m.get("region") or {}).get("ratio")
        r_ncu = region(ncu_full, ncu_twin) if ncu_twin is not None else None
        if r_div is not None and expected is not None:
            worst_region = max(worst_region, abs(r_div / expected - 1))
        entry = {
            "k": k,
            "divbench": d_full, "ncu": ncu_full, "rel_diff": diff,
            "divbench_twin": d_twin, "ncu_twin": ncu_twin or {}, "rel_diff_twin": diff_twin,
            "region_ratio": {"divbench": r_div, "ncu": r_ncu, "expected_32_over_k": expected,
                             "divbench_rel_err": None if r_div is None or expected is None else r_div / expected - 1,
                             "ncu_rel_err": None if r_ncu is None or expected is None else r_ncu / expected - 1},
            "region_pred_on_ratio": {"divbench": (m.get("region") or {}).get("pred_on_ratio"),
                                     "ncu": region_pred_on(ncu_full, ncu_twin) if ncu_twin is not None else None},
            "region_branch_uniform_pct": {
                "divbench": (m.get("region") or {}).get("branch_uniform_pct"),
                "ncu": region_branch_uniform_pct(ncu_full, ncu_twin) if ncu_twin is not None else None},
            "timing_ms": {"profiled_full": m.get("profile_ms"), "profiled_twin": m.get("twin_profile_ms"),
                          "timed_point_wall": p.get("wall_ms"), "timed_launches": p.get("launches"),
                          "timed_point_wall_per_launch": per_launch(doc, p),
                          "timed_region_median": (p["median_cycles"] / (p["clock_mhz"] * 1e3)
                                                  if p.get("median_cycles") and p.get("clock_mhz") else None)},
        }
        if expected:
            entry["whole_kernel_rel_err_vs_32_over_k"] = d_full[RATIO] / expected - 1
        label = point_label(p, "kway")
        if label != f"k={k:g}" and label != f"k={k}":
            entry["point"] = label
        out.append(entry)
    summary = {"max_abs_rel_diff_divbench_vs_ncu": worst, "agree_within_2pct": worst <= 0.02,
               "max_abs_rel_diff_by_metric": worst_by_metric,
               "metrics_compared": [n for n in METRICS if any(n in e["rel_diff"] for e in out)]}
    if expect_32_over_k:
        summary["max_abs_region_rel_err"] = worst_region
        summary["region_within_10pct_of_32_over_k"] = worst_region <= 0.10
    prof = [e["timing_ms"]["profiled_full"] for e in out if e["timing_ms"]["profiled_full"] is not None]
    timed = [e["timing_ms"]["timed_point_wall"] for e in out if e["timing_ms"]["timed_point_wall"] is not None]
    if prof and timed:
        summary["profiled_launch_ms_total"] = sum(prof)
        summary["timed_points_wall_ms_total"] = sum(timed)
        summary["profiled_launch_over_timed_point"] = sum(prof) / sum(timed)
    per = [e["timing_ms"]["timed_point_wall_per_launch"] for e in out]
    if prof and all(per):
        summary["profiled_launch_over_timed_launch"] = sum(prof) / sum(per)
    session = (doc.get("timing") or {}).get("metrics")
    if isinstance(session, dict):
        summary["metrics_session"] = session
    return {"experiment": doc.get("experiment"), "config": doc.get("config"), "per_k": out, "summary": summary}


def fmt(v, spec):
    return "na" if v is None else format(v, spec)


@tool_main("merge_kway_metrics")
def main(argv=None):
    ap = ArgumentParser(prog="merge_kway_metrics", description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", action="append", required=True)
    ap.add_argument("--ncu", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--ncu-version", default="")
    ap.add_argument("--point-launches", type=int, default=1,
                    help="the kernel launches of each point's own run under ncu (--reps 1 --warmup 0: 1)")
    a = ap.parse_args(argv)
    if len(a.divbench) != len(a.ncu):
        ap.error("give one --ncu per --divbench")
    if a.point_launches < 0:
        ap.error("--point-launches must be 0 or more")
    try:
        check_output(a.out, a.divbench + a.ncu, "--out")
        result = {"schema": "divbench.kway_metrics/1", "metrics": METRICS,
                  "method": "divbench: CUPTI range profiler in-process, every point's launch (auto range, kernel "
                            "replay) and its zero-work twin profiled after the timed points in one session; ncu "
                            "--clock-control none on the same build and launch sequence in a second process",
                  "note": a.note, "ncu_version": a.ncu_version, "experiments": []}
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
                result["experiments"].append(merge_one(doc, launches, a.point_launches))
            except MergeError as e:
                raise MergeError(f"{dpath}: {e}") from None
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
                raise MergeError(f"{dpath}: malformed divbench result ({e.__class__.__name__}: {e})") from None
        write_json(a.out, result)
    except (MergeError, InputError, OutputError) as e:
        return fail("merge_kway_metrics", e)
    for e in result["experiments"]:
        s = e["summary"]
        line = (f"{e['experiment']}-metrics: max|divbench-ncu|/ncu={s['max_abs_rel_diff_divbench_vs_ncu']:.2e} "
                f"(<=2%: {s['agree_within_2pct']}) over {len(s['metrics_compared'])} metrics")
        if "max_abs_region_rel_err" in s:
            line += (f" max region err vs 32/k={s['max_abs_region_rel_err']:.3f} "
                     f"(<=10%: {s['region_within_10pct_of_32_over_k']})")
        line += (" region ratios=" + ",".join(fmt(x["region_ratio"]["divbench"], ".3f") for x in e["per_k"])
                 + " pred_on=" + ",".join(fmt(x["region_pred_on_ratio"]["divbench"], ".3f") for x in e["per_k"])
                 + " branch_uniform%=" + ",".join(fmt(x["region_branch_uniform_pct"]["divbench"], ".1f")
                                                   for x in e["per_k"])
                 + " whole=" + ",".join(f"{x['divbench'][RATIO]:.2f}" for x in e["per_k"]))
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
