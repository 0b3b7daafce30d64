"""Series the figures and the comparison draw from validated files: the k-way medians and the spread of
their raw samples, the efficiency counters, the occupancy penalties (results.py reads the files), and the
static study's per-architecture placement counts. A value that would be drawn must be a finite number
(positive where the axis is logarithmic); anything else is an InputError naming the file and the key,
never a silent gap."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from divbench.jsonio import InputError
from divbench.results import Result, number, point_coords, point_metric, point_region_ratio, point_samples


def fmt_r2(r2: float) -> str:
    """R² readable near 1: 0.9999999999 -> "1-6.6e-11"."""
    return f"1-{1 - r2:.1e}" if 0.999999 < r2 < 1.0 else f"{r2:.6f}"


def point_k(r: Result, i: int, p: dict) -> float | None:
    """The point's k on its declared axes (point.axes.k; older files: the point's "k"), a positive number;
    None when the point has no k axis."""
    coords = point_coords(p, r.experiment)
    if "k" not in coords:
        return None
    where = "axes.k" if isinstance(p.get("axes"), dict) else "k"
    return number(coords["k"], f"points[{i}].{where}", r.path, positive=True)


def kway_series(r: Result) -> tuple[list[float], list[float]]:
    """(k, median cycles) of a k-way sweep, sorted by k; both positive. A sweep without points is an error."""
    if not r.points:
        raise InputError(f"{r.path}: a k-way sweep with no points ('points' is empty)")
    pts = []
    for i, p in enumerate(r.points):
        k = point_k(r, i, p)
        if k is None or "median_cycles" not in p:
            raise InputError(f"{r.path}: points[{i}] needs 'k' and 'median_cycles'")
        pts.append((k, number(p["median_cycles"], f"points[{i}].median_cycles", r.path, positive=True)))
    pts.sort()
    return [k for k, _ in pts], [t for _, t in pts]


@dataclass
class SampleSpread:
    """The raw samples of one k, as deviations from their median in percent (sample / median - 1)."""
    k: float
    n: int
    lo: float      # min
    p5: float
    p95: float
    hi: float      # max

    @property
    def constant(self) -> bool:
        return self.lo == self.hi


def kway_sample_spread(r: Result) -> list[SampleSpread]:
    """Per k (sorted) the spread of the raw samples around their median, from the points that carry
    samples ("samples": {"cycles": [...]}); [] when none does (--no-samples, or a result from
    before samples existed). Several points of one k (code placements) pool their samples."""
    import numpy as np
    by_k: dict[float, list[int]] = {}
    for i, p in enumerate(r.points):
        cycles = point_samples(p, r.path, f"points[{i}]")
        k = point_k(r, i, p) if cycles is not None else None
        if k is None:
            continue
        by_k.setdefault(k, []).extend(cycles)
    out = []
    for k in sorted(by_k):
        v = np.asarray(by_k[k], dtype=float)
        med = float(np.median(v))
        if med <= 0:
            raise InputError(f"{r.path}: the samples of k={k:g} have median {med:g}, expected a positive number")
        dev = 100.0 * (v / med - 1.0)
        p5, p95 = (float(x) for x in np.percentile(dev, [5, 95]))
        out.append(SampleSpread(k, int(v.size), float(dev.min()), p5, p95, float(dev.max())))
    return out


def efficiency_series(r: Result) -> dict[str, list[tuple[float, float]]]:
    """{"kernel": [(k, ratio)], "region": [(k, ratio)]} from the points' metrics; empty lists if none."""
    out: dict[str, list[tuple[float, float]]] = {"kernel": [], "region": []}
    for i, p in enumerate(r.points):
        k = point_k(r, i, p)
        if k is None:
            continue
        for name, v in (("kernel", point_metric(p, r.path)), ("region", point_region_ratio(p, r.path))):
            if v is not None:
                out[name].append((k, number(v, f"points[{i}] {name} efficiency", r.path, positive=True)))
    for v in out.values():
        v.sort()
    return out


OCCUPANCY_X_KEYS = ("total_warps", "resident_warps", "warps_resident", "warps", "warps_per_sm")


def _is_penalty(key: str, v) -> bool:
    return (key.startswith("penalty") or key.endswith("_penalty")) and not isinstance(v, (dict, list))


def occupancy_series(r: Result) -> tuple[str, dict[str, list[tuple[float, float]]]]:
    """(x key, {series name: [(x, penalty)]}) of an occupancy sweep. Read from summary.pairs
    ([{series, total_warps, region_penalty, kernel_penalty, ...}], one series per residency series and
    penalty kind) when present, else from the points (x: the first of OCCUPANCY_X_KEYS they carry, one
    series per "penalty*"/"*_penalty" key)."""
    pairs = r.summary.get("pairs")
    rows = pairs if isinstance(pairs, list) and pairs else r.points
    where = "summary.pairs" if rows is pairs else "points"
    if not all(isinstance(p, dict) for p in rows):
        raise InputError(f"{r.path}: occupancy {where} must be objects")
    xkey = next((k for k in OCCUPANCY_X_KEYS if rows and all(k in p for p in rows)), None)
    if xkey is None:
        raise InputError(f"{r.path}: occupancy {where} need one of {', '.join(OCCUPANCY_X_KEYS)}")
    series: dict[str, list[tuple[float, float]]] = {}
    for i, p in enumerate(rows):
        group = f"{p['series']}: " if "series" in p else ""
        for key, v in p.items():
            if _is_penalty(key, v):
                x = number(p[xkey], f"{where}[{i}].{xkey}", r.path, positive=True)
                series.setdefault(group + key, []).append((x, number(v, f"{where}[{i}].{key}", r.path, positive=True)))
    if not series:
        raise InputError(f"{r.path}: occupancy {where} carry no penalty value")
    for v in series.values():
        v.sort()
    return xkey, series


@dataclass
class OccupancyPoint:
    """One residency of the warps-per-SM occupancy sweep (summary.series, docs/figures.md)."""
    series: str
    warps_per_sm: float
    waves: float
    penalty: float                 # from kernel times corrected by the empty kernel's launch overhead
    region_penalty: float | None   # per-warp region cycles
    steady_state: bool | None      # whether the region penalty can be steady state (None: not said)
    raw_penalty: float | None = None      # from the raw kernel event times (a lower bound)
    bounded_penalty: float | None = None  # the bounded correction where it is informative (None elsewhere)


def occupancy_grid(r: Result) -> list[OccupancyPoint] | None:
    """summary.series of an occupancy result as OccupancyPoints, or None when the result has none (the first
    sweep's shape, summary.pairs: occupancy_series() reads that)."""
    rows = r.summary.get("series")
    if rows is None:
        return None
    if not isinstance(rows, list) or not rows or not all(isinstance(p, dict) for p in rows):
        raise InputError(f"{r.path}: occupancy summary.series must be a non-empty list of objects")
    out = []
    for i, p in enumerate(rows):
        where = f"summary.series[{i}]"
        for key in ("warps_per_sm", "waves", "penalty"):
            if key not in p:
                raise InputError(f"{r.path}: {where} needs '{key}'")
        region = p.get("region_penalty")
        steady = p.get("steady_state")
        if steady is not None and not isinstance(steady, bool):
            raise InputError(f"{r.path}: {where}.steady_state is {steady!r}, expected true or false")
        out.append(OccupancyPoint(
            series=str(p.get("series", "")),
            warps_per_sm=number(p["warps_per_sm"], f"{where}.warps_per_sm", r.path, positive=True),
            waves=number(p["waves"], f"{where}.waves", r.path, positive=True),
            penalty=number(p["penalty"], f"{where}.penalty", r.path, positive=True),
            region_penalty=None if region is None else number(region, f"{where}.region_penalty", r.path, positive=True),
            steady_state=steady,
            raw_penalty=None if p.get("kernel_penalty_raw") is None
            else number(p["kernel_penalty_raw"], f"{where}.kernel_penalty_raw", r.path, positive=True),
            bounded_penalty=None if p.get("penalty_bounded") is None
            else number(p["penalty_bounded"], f"{where}.penalty_bounded", r.path, positive=True)))
    return sorted(out, key=lambda o: (o.series, o.waves, o.warps_per_sm))


def arch_sort_key(arch: str) -> tuple:
    digits = "".join(ch for ch in arch if ch.isdigit())
    return (int(digits) if digits else 1 << 30, arch)


def per_arch(data: dict, path: Path) -> dict[str, dict]:
    """The per-architecture objects of a study file: {"architectures": {arch: {...}}}, a list of
    {"arch": ..., ...} under "architectures"/"archs"/"rows", or {arch: {...}} at the top level."""
    body = None
    for key in ("architectures", "archs", "per_arch", "rows"):
        if key in data:
            body = data[key]
            break
    if body is None:
        body = {k: v for k, v in data.items() if k.startswith("sm_") or k.startswith("compute_")}
    if isinstance(body, list):
        out = {}
        for i, row in enumerate(body):
            if not isinstance(row, dict) or "arch" not in row:
                raise InputError(f"{path}: entry {i} needs an 'arch' key")
            out[str(row["arch"])] = {k: v for k, v in row.items() if k != "arch"}
        body = out
    if not isinstance(body, dict) or not body or not all(isinstance(v, dict) for v in body.values()):
        raise InputError(f"{path}: no per-architecture entries found")
    return dict(sorted(body.items(), key=lambda kv: arch_sort_key(kv[0])))


PLACEMENT_CLASSES = ("before", "at", "after", "unguarded")


def placement_counts(entry: dict, arch: str, path: Path) -> dict[str, float]:
    """before/at/after/unguarded counts of one architecture (keys may carry an _ipdom suffix or sit
    under "placement" or "counts"); each a finite count >= 0."""
    src = entry.get("placement") or entry.get("counts") or entry
    if not isinstance(src, dict):
        raise InputError(f"{path}: {arch} placement is {type(src).__name__}, expected an object")
    out = {}
    for cls in PLACEMENT_CLASSES:
        for key in (cls, f"{cls}_ipdom"):
            if key in src:
                out[cls] = number(src[key], f"{arch}.{key}", path, nonnegative=True)
                break
    if not out:
        raise InputError(f"{path}: {arch} has none of the counts {', '.join(PLACEMENT_CLASSES)}")
    return out


GUARDED_CLASSES = ("before", "at", "after")


def guarded_shares(counts: dict[str, float]) -> tuple[float, dict[str, float]]:
    """(number of barrier-guarded branches, {before/at/after: share of them}); shares are empty when no
    branch is guarded. The unguarded ones are not part of the shares."""
    guarded = sum(counts.get(c, 0.0) for c in GUARDED_CLASSES)
    if guarded <= 0:
        return 0.0, {}
    return guarded, {c: counts.get(c, 0.0) / guarded for c in GUARDED_CLASSES}
