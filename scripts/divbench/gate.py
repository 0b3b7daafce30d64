"""The statistical gate: did result B change against result A beyond noise and a practical threshold?

  python3 scripts/compare.py --gate A.json B.json [--threshold 0.01] [--alpha 0.05]
                             [--report FILE.md] [--benchmark-json FILE.json] [--ignore-config KEY]...

A and B are divbench.result/1 files of the same experiment and configuration: A the baseline (e.g. the
committed results/<gpu>/kway.json), B the new run. Both are judged first (divbench.quality, from their
samples and conditions, not from their own flag): a disturbed input is not comparable (exit 3) unless
--allow-disturbed. Every timed point (one with median_cycles) of B is then tested against the same point
of A (docs/compare.md explains the choice). The independent unit is the launch: where several samples
share a launch (warp-per-SM sampling: a launch's warps run at the same time and share whatever disturbed
it) each launch's median is one unit, else each sample is:
  exact         both sample sets constant (min = max): the two values themselves are compared
  mann-whitney  at least MWU_MIN_SAMPLES units a side: two-sided Mann–Whitney U on the units,
                Holm-corrected over the points tested so, at --alpha
  separation    fewer units (the default warp-per-SM sweep has 2 launches a point): a change only when
                every unit of B lies beyond every unit of A, on the same side
  insufficient  a side has no raw samples (run with --no-samples, or older than samples): no verdict
                on that point; with no significant change elsewhere the gate exits 3
A change is significant when the test says so AND its size |median B / median A - 1| reaches the
threshold: --threshold (default 1%), never below the placement spread of the BASELINE (A's
summary.s_layout_spread_rel, a point's layout_spread_rel, or the spread of A's point over its code
placements); the candidate's own spread never raises it.
Exit 0: no significant change; 1: significant changes (each listed with direction and size); 2: bad input;
3: not comparable (a disturbed input, or points without samples).
--report writes the same as a markdown report, --benchmark-json the new run's medians in
github-action-benchmark's customSmallerIsBetter format; both atomically.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from divbench import quality
from divbench import results as dr
from divbench import stats
from divbench.cli import ArgumentParser, fail, tool_main
from divbench.gate_report import benchmark_json, console, markdown
from divbench.jsonio import InputError, OutputError, check_output, same_file, write_atomic

EXIT_NO_CHANGE, EXIT_CHANGE, EXIT_NOT_COMPARABLE = 0, 1, quality.EXIT_NOT_COMPARABLE
SPREAD_SUMMARY_KEY = "s_layout_spread_rel"
SPREAD_POINT_KEY = "layout_spread_rel"


@dataclass
class Verdict:
    label: str
    method: str                  # exact | mann-whitney | separation | insufficient
    median_a: float
    median_b: float
    n_a: int | None
    n_b: int | None
    threshold: float
    threshold_from: str
    p: float | None = None       # raw Mann–Whitney p
    p_holm: float | None = None
    notes: list = field(default_factory=list)
    significant: bool = False

    @property
    def change(self) -> float:
        return self.median_b / self.median_a - 1.0

    @property
    def direction(self) -> str:
        return "slower" if self.change > 0 else "faster"


def parser() -> ArgumentParser:
    ap = ArgumentParser(prog="compare --gate", description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, metavar="A.json", help="the baseline result")
    ap.add_argument("b", type=Path, metavar="B.json", help="the new result")
    ap.add_argument("--threshold", type=float, default=0.01,
                    help="smallest relative change of a median that counts (default 0.01 = 1%%)")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="family-wise significance level of the Mann-Whitney tests (default 0.05)")
    ap.add_argument("--report", type=Path, help="write a markdown report to this file")
    ap.add_argument("--benchmark-json", type=Path,
                    help="write B's medians as github-action-benchmark customSmallerIsBetter JSON")
    ap.add_argument("--ignore-config", action="append", default=[], metavar="KEY",
                    help="a config key allowed to differ between A and B (repeatable)")
    ap.add_argument("--allow-disturbed", action="store_true",
                    help="compare even where A or B is judged disturbed (divbench.quality)")
    return ap


def _settings(config: dict) -> dict:
    """The configuration as far as it decides what was measured: config.axes without each axis's `help`
    (its documentation, which a divbench may word differently or not write at all)."""
    axes = config.get("axes")
    if not isinstance(axes, list):
        return config
    return {**config, "axes": [{k: v for k, v in ax.items() if k != "help"} if isinstance(ax, dict) else ax
                               for ax in axes]}


def check_comparable(a: dr.Result, b: dr.Result, ignore: list[str]) -> list[str]:
    """Same experiment and configuration, else InputError; returns notes (e.g. another device)."""
    if a.experiment != b.experiment:
        raise InputError(f"{b.path}: experiment {b.experiment!r}, but {a.path} is {a.experiment!r}: the gate "
                         "compares one experiment with itself")
    ca, cb = _settings(a.config), _settings(b.config)
    keys = sorted(set(ca) | set(cb), key=str)
    diff = [k for k in keys if k not in ignore and ca.get(k, "<absent>") != cb.get(k, "<absent>")]
    if diff:
        k = diff[0]
        raise InputError(f"{b.path}: config.{k} is {_short(cb.get(k, '<absent>'))}, {a.path} has "
                         f"{_short(ca.get(k, '<absent>'))} ({len(diff)} config key(s) differ: "
                         f"{', '.join(diff)}); the gate compares runs of the same configuration "
                         "(--ignore-config KEY to allow one)")
    notes = []
    if a.device["name"] != b.device["name"]:
        notes.append(f"different devices: A ran on {a.device['name']}, B on {b.device['name']}")
    return notes


def _short(v) -> str:
    s = json.dumps(v)
    return s if len(s) <= 40 else s[:37] + "..."


def timed_points(r: dr.Result) -> dict[str, tuple[int, dict]]:
    """label -> (index, point) of the points that carry median_cycles; labels made unique in order."""
    out: dict[str, tuple[int, dict]] = {}
    next_n: dict[str, int] = {}  # per repeated label, the next number to try (linear in the points)
    for i, p in enumerate(r.points):
        if "median_cycles" not in p:
            continue
        label = dr.point_label(p, r.experiment) or f"point {i}"
        if label in out:
            n = next_n.get(label, 2)
            while f"{label} #{n}" in out:
                n += 1
            next_n[label] = n + 1
            label = f"{label} #{n}"
        out[label] = (i, p)
    if not out:
        raise InputError(f"{r.path}: no timed points (none has median_cycles): nothing to gate")
    return out


def placement_spreads(r: dr.Result, points: dict[str, tuple[int, dict]]) -> dict[str, float]:
    """label -> relative spread of the point's median over its code placements (points that differ only in
    'placement'), or the point's own layout_spread_rel."""
    groups: dict[str, list[tuple[str, float]]] = {}
    out: dict[str, float] = {}
    for label, (i, p) in points.items():
        if SPREAD_POINT_KEY in p:
            out[label] = dr.number(p[SPREAD_POINT_KEY], f"points[{i}].{SPREAD_POINT_KEY}", r.path, nonnegative=True)
        coords = dr.point_coords(p, r.experiment)
        if "placement" in coords:
            key = dr.coords_label({k: v for k, v in coords.items() if k != "placement"})
            med = dr.number(p["median_cycles"], f"points[{i}].median_cycles", r.path, positive=True)
            groups.setdefault(key, []).append((label, med))
    for members in groups.values():
        meds = [m for _, m in members]
        spread = max(meds) / min(meds) - 1.0
        for label, _ in members:
            out[label] = max(out.get(label, 0.0), spread)
    return out


def _samples(r: dr.Result, i: int, p: dict):
    s = dr.point_samples(p, r.path, f"points[{i}]")
    return None if s is None else np.asarray(s, dtype=np.int64)


def units(p: dict, samples: np.ndarray) -> np.ndarray:
    """The independent units of a point's samples: each launch's median where several samples share a
    launch (samples are launch-major: `launches` launches of len/launches samples), else the samples."""
    launches = p.get("launches")
    if isinstance(launches, int) and not isinstance(launches, bool) and 0 < launches < samples.size \
            and samples.size % launches == 0:
        return np.median(samples.reshape(launches, samples.size // launches), axis=1)
    return samples.astype(float)


def separated(ua: np.ndarray, ub: np.ndarray) -> bool:
    """Every unit of B beyond every unit of A, on one side."""
    return bool(ub.min() > ua.max() or ub.max() < ua.min())


def _median(r: dr.Result, i: int, p: dict, samples) -> float:
    if samples is not None:
        m = float(np.median(samples))
        if m <= 0:
            raise InputError(f"{r.path}: points[{i}].samples.cycles has median {m:g}, expected a positive number")
        return m
    return dr.number(p["median_cycles"], f"points[{i}].median_cycles", r.path, positive=True)


def evaluate(a: dr.Result, b: dr.Result, threshold: float, alpha: float) -> tuple[list[Verdict], list[str]]:
    pa, pb = timed_points(a), timed_points(b)
    if set(pa) != set(pb):
        only_a = sorted(set(pa) - set(pb))
        only_b = sorted(set(pb) - set(pa))
        raise InputError(f"{b.path}: the points differ from {a.path}'s (only in A: {', '.join(only_a[:4]) or '-'}; "
                         f"only in B: {', '.join(only_b[:4]) or '-'})")
    spread_a = placement_spreads(a, pa)
    summary_spread = (dr.number(a.summary[SPREAD_SUMMARY_KEY], f"summary.{SPREAD_SUMMARY_KEY}", a.path, nonnegative=True)
                      if SPREAD_SUMMARY_KEY in a.summary else None)
    notes: list[str] = []
    verdicts: list[Verdict] = []
    missing = {"A": 0, "B": 0}
    for label, (ia, point_a) in pa.items():
        ib, point_b = pb[label]
        sa, sb = _samples(a, ia, point_a), _samples(b, ib, point_b)
        missing["A"] += sa is None
        missing["B"] += sb is None
        thr, src = threshold, "--threshold"
        for value, where in ((summary_spread, f"A's summary.{SPREAD_SUMMARY_KEY}"),
                             (spread_a.get(label) or None, "A's placement spread")):
            if value is not None and value > thr:
                thr, src = value, where
        v = Verdict(label=label, method="insufficient", median_a=_median(a, ia, point_a, sa),
                    median_b=_median(b, ib, point_b, sb), n_a=None if sa is None else sa.size,
                    n_b=None if sb is None else sb.size, threshold=thr, threshold_from=src)
        big = abs(v.change) >= thr
        if sa is not None and sb is not None:
            ua, ub = units(point_a, sa), units(point_b, sb)
            if sa.min() == sa.max() and sb.min() == sb.max():
                v.method = "exact"
                v.significant = bool(sa[0] != sb[0]) and big
            elif min(ua.size, ub.size) >= stats.MWU_MIN_SAMPLES:
                v.method = "mann-whitney"
                v.p = stats.mann_whitney_u(ua, ub).p
            else:
                v.method = "separation"
                v.significant = separated(ua, ub) and big
        for side, point in (("A", point_a), ("B", point_b)):
            if point.get("throttled") is True:
                v.notes.append(f"{side} was throttled at this point")
        verdicts.append(v)
    tested = [v for v in verdicts if v.method == "mann-whitney"]
    for v, adj in zip(tested, stats.holm([v.p for v in tested])):
        v.p_holm = adj
        v.significant = adj < alpha and abs(v.change) >= v.threshold
    few = [v for v in verdicts if v.method == "separation"]
    if few:
        notes.append(f"{len(few)} point(s) have fewer than {stats.MWU_MIN_SAMPLES} independent units (launches) a "
                     "side: no rank test there; a change only where every unit of B lies beyond every unit of A")
    for side, n in missing.items():
        if n:
            notes.append(f"{side} has no raw samples at {n} of {len(verdicts)} points (run without samples or "
                         "before samples existed): insufficient, no verdict at those points")
    return verdicts, notes


def run(args) -> int:
    if not 0.0 <= args.threshold < 1.0:
        raise InputError(f"--threshold {args.threshold:g}: expected a fraction in [0, 1) (0.01 = 1%)")
    if not 0.0 < args.alpha < 1.0:
        raise InputError(f"--alpha {args.alpha:g}: expected a probability in (0, 1)")
    if args.report is not None and args.benchmark_json is not None and same_file(args.report, args.benchmark_json):
        raise OutputError(f"--report and --benchmark-json are both {args.report}")
    for opt, out in (("--report", args.report), ("--benchmark-json", args.benchmark_json)):
        if out is not None:
            check_output(out, [args.a, args.b], opt)
    a, b = dr.load_result(args.a), dr.load_result(args.b)
    notes = check_comparable(a, b, args.ignore_config)
    for v in quality.refuse_untrustworthy([a, b], args.allow_disturbed):
        if not v.trustworthy:
            notes.append(f"--allow-disturbed: {quality.describe(v)}")
    verdicts, more = evaluate(a, b, args.threshold, args.alpha)
    notes += more
    bench = benchmark_json(b, verdicts) if args.benchmark_json else None  # checked before anything is written
    if args.report:
        write_atomic(args.report, markdown(a, b, verdicts, notes, args))
    if bench is not None:
        write_atomic(args.benchmark_json, bench)
    sys.stdout.write(console(a, b, verdicts, notes, args))
    if any(v.significant for v in verdicts):
        return EXIT_CHANGE
    if any(v.method == "insufficient" for v in verdicts):
        print("compare --gate: not comparable: insufficient data (points without raw samples)", file=sys.stderr)
        return EXIT_NOT_COMPARABLE
    return EXIT_NO_CHANGE


@tool_main("compare")
def main(argv=None) -> int:
    args = parser().parse_args(None if argv is None else [str(x) for x in argv])
    try:
        return run(args)
    except quality.NotComparable as e:
        print(f"compare --gate: {e}", file=sys.stderr)
        return EXIT_NOT_COMPARABLE
    except (InputError, OutputError) as e:
        return fail("compare", e)


if __name__ == "__main__":
    sys.exit(main())
