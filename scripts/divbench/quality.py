"""Is a dynamic result trustworthy? The verdict recomputed from the data (samples, conditions, fit), never
read from the file's own `quality` flag, so a result from an older divbench or a hand-edited one is judged
the same way as a fresh one. The C++ harness applies the same rules while it measures
(src/core/disturbance.cpp); both read the one criterion, data/noise_criterion.json, and both pass the
shared cases in tests/data/quality_cases.json.

Per timed point (one with median_cycles), the reasons it is disturbed, each "code: detail":
  throttled    the point's own `throttled` flag (SM clock moved, or NVML named a throttling reason)
  co_tenant    another compute process (or MPS client) held a context on the GPU before or after the point
               (conditions.processes.others; a result without that reading is not judged on it)
  noise        max - min of the point's samples (or its min/max where it kept none) exceeds
               factor * max(abs_cycles, rel * median, floor_cycles) of its class (sampling mode x body kind)
               in the criterion; with warp-per-SM samples, the SMs whose samples disagree with the rest
               are named
  shared_sm    a warp-per-SM launch whose warps shared an SM
  ill_typed    a flag the verdict reads is there but not of its type (throttled: 1 or "true",
               launches_with_shared_sm: 5.0, PIDs as strings): the point cannot be called quiet
  no_spread    neither samples nor median/min/max cycles: its noise cannot be judged
  unknown_class  a sampling mode the criterion has no level for (not a string, or a mode it does not know;
               a known mode without a level for the body kind, such as grid/memory, is not judged on noise)
Per result: no points at all (no_points); a k-way fit with c below fit.c_min, or R^2 below fit.r2_min of
its body kind; a fit (or placement) without a finite c and r2, or a k-way result over two k or more without
a fit (fit_missing).
A result is trustworthy when no point is disturbed and no result-level reason holds.

  python3 -m divbench.quality RESULT.json...     prints the verdict of each; exit 0 all trustworthy,
                                                 4 some are not, 2 bad input
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

from divbench import results as dr
from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import InputError, load_json
from divbench.paths import repo_root

CRITERION_SCHEMA = "divbench.noise_criterion/1"
EXIT_UNTRUSTWORTHY = 4
# The exit code of the tools that refuse an untrustworthy input (gate, compare, figures).
EXIT_NOT_COMPARABLE = 3


def criterion_path() -> Path:
    return repo_root() / "data" / "noise_criterion.json"


@dataclass
class Criterion:
    factor: float
    floor_cycles: float
    classes: dict            # "warp-per-sm/compute" -> {"abs_cycles": x, "rel": y}
    memory_bodies: frozenset
    c_min: float
    r2_min: dict             # "compute"/"memory" -> R^2 floor

    def allowed_spread(self, cls: str, median: float, factor: float | None = None) -> float | None:
        level = self.classes.get(cls)
        if level is None:
            return None
        f = self.factor if factor is None else factor
        return f * max(level["abs_cycles"], level["rel"] * median, self.floor_cycles)


def load_criterion(path: Path | str | None = None) -> Criterion:
    p = Path(path) if path is not None else criterion_path()
    d = load_json(p)
    if d.get("schema") != CRITERION_SCHEMA:
        raise InputError(f"{p}: schema is {d.get('schema')!r}, expected {CRITERION_SCHEMA!r}")
    try:
        classes = {}
        for name, lv in d["classes"].items():
            classes[name] = {"abs_cycles": dr.number(lv["abs_cycles"], f"classes.{name}.abs_cycles", p, nonnegative=True),
                             "rel": dr.number(lv["rel"], f"classes.{name}.rel", p, nonnegative=True)}
        return Criterion(factor=dr.number(d["factor"], "factor", p, positive=True),
                         floor_cycles=dr.number(d["floor_cycles"], "floor_cycles", p, nonnegative=True),
                         classes=classes, memory_bodies=frozenset(d["memory_bodies"]),
                         c_min=dr.number(d["fit"]["c_min"], "fit.c_min", p),
                         r2_min={k: dr.number(v, f"fit.r2_min.{k}", p) for k, v in d["fit"]["r2_min"].items()})
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(f"{p}: malformed noise criterion ({e})") from None


def body_kind(body: str, crit: Criterion) -> str:
    return "memory" if body in crit.memory_bodies else "compute"


def sampling_modes(crit: Criterion) -> set:
    """The sampling modes the criterion has a quiet level for (its classes before '/')."""
    return {cls.split("/", 1)[0] for cls in crit.classes}


def _short(v) -> str:
    """A value as C++ shows it in a reason (JSON), cut to 40 characters."""
    try:
        s = json.dumps(v, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def _is_count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def ill_typed_reasons(point) -> list[str]:
    """The flags the verdict reads, when they are there but not of their type: a verdict that skipped them
    would call a point quiet that no one can tell is."""
    if not isinstance(point, dict):
        return [f"ill_typed: the point is {_short(point)}, not an object"]
    out = []
    t = point.get("throttled")
    if t is not None and not isinstance(t, bool):
        out.append(f"ill_typed: throttled is {_short(t)}, not true or false")
    n = point.get("launches_with_shared_sm")
    if n is not None and not _is_count(n):
        out.append(f"ill_typed: launches_with_shared_sm is {_short(n)}, not a count")
    cond = point.get("conditions")
    if not isinstance(cond, dict) or cond.get("processes") is None:
        return out
    proc = cond["processes"]
    if not isinstance(proc, dict):
        return out + [f"ill_typed: conditions.processes is {_short(proc)}, not an object"]
    for side in ("before", "after"):
        if side not in proc:
            continue
        p, where = proc[side], f"conditions.processes.{side}"
        if not isinstance(p, dict):
            out.append(f"ill_typed: {where} is {_short(p)}, not an object")
            continue
        others = p.get("others")
        if others is not None:
            if not isinstance(others, list):
                out.append(f"ill_typed: {where}.others is {_short(others)}, not a list of PIDs")
            else:
                bad = next((i for i, o in enumerate(others) if not _is_count(o)), None)
                if bad is not None:
                    out.append(f"ill_typed: {where}.others[{bad}] is {_short(others[bad])}, not a PID")
        n = p.get("others_count")
        if n is not None and not _is_count(n):
            out.append(f"ill_typed: {where}.others_count is {_short(n)}, not a count")
    return out


def class_reason(point: dict, config: dict, crit: Criterion) -> str | None:
    """unknown_class when the point's sampling mode is not a string or not one the criterion knows."""
    own = point.get("sampling")
    if own is not None and not isinstance(own, str):
        return f"unknown_class: sampling is {_short(own)}, not a sampling mode"
    mode = own if isinstance(own, str) else config.get("sampling")
    mode = mode if isinstance(mode, str) else "warp-per-sm"
    modes = sampling_modes(crit)
    if mode not in modes:
        return (f"unknown_class: sampling {_short(mode)} has no noise class in the criterion "
                f"(known: {', '.join(sorted(modes))})")
    return None


def point_class(point: dict, config: dict, crit: Criterion) -> str:
    """"<sampling>/<compute|memory>": the point's own sampling mode (config's where the point has none) and
    whether its body touches memory."""
    sampling = point.get("sampling")
    if not isinstance(sampling, str):
        s = config.get("sampling")
        sampling = s if isinstance(s, str) else "warp-per-sm"
    body = point.get("body", config.get("body", dr.DEFAULT_BODY))
    return f"{sampling}/{body_kind(body if isinstance(body, str) else dr.DEFAULT_BODY, crit)}"


def _processes(point: dict, side: str) -> dict | None:
    cond = point.get("conditions")
    if not isinstance(cond, dict):
        return None
    proc = cond.get("processes")
    if not isinstance(proc, dict):
        return None
    p = proc.get(side)
    return p if isinstance(p, dict) else None


# A co-tenant NVML's per-process utilization samples show idle (src/core/disturbance.hpp, the same rule):
# SM utilization never above this (%) and memory utilization 0 in every sample since divbench's first
# reading; no sample at all counts as idle only where the reading says when that was (activity.since_us).
IDLE_SM_UTIL_PERCENT = 1


def idle_activity(point: dict, pid) -> dict | None:
    """The activity of co-tenant `pid` when NVML's samples show it idle (a context, no work), else None."""
    p = _processes(point, "after")
    act = p.get("activity") if p else None
    if not isinstance(act, dict) or act.get("read") is not True or not isinstance(act.get("pids"), dict):
        return None
    a = act["pids"].get(str(pid))
    if not isinstance(a, dict) or not all(_is_count(a.get(k)) and a.get(k) >= 0 for k in ("samples", "sm_max", "mem_max")):
        return None
    since = act.get("since_us")
    since_first_reading = _is_count(since) and since > 0
    if (a["samples"] == 0 and not since_first_reading) or a["sm_max"] > IDLE_SM_UTIL_PERCENT or a["mem_max"] > 0:
        return None
    return a


def co_tenants(point: dict) -> list:
    """PIDs (or counts, where a PID could not be told from divbench's own) of other compute processes and
    MPS clients seen before or after the point and not shown idle by NVML's utilization samples; [] when
    none or not read."""
    return [o for o in listed_co_tenants(point) if o == "?" or idle_activity(point, o) is None]


def idle_co_tenants(point: dict) -> list:
    """The listed co-tenants NVML's utilization samples show idle."""
    return [o for o in listed_co_tenants(point) if o != "?" and idle_activity(point, o) is not None]


def listed_co_tenants(point: dict) -> list:
    """PIDs (or counts, where a PID could not be told from divbench's own) of other compute processes and
    MPS clients seen before or after the point; [] when none or not read."""
    seen = []
    for side in ("before", "after"):
        p = _processes(point, side)
        if not p:
            continue
        others = p.get("others")
        if isinstance(others, list):
            seen += [o for o in others if isinstance(o, int) and not isinstance(o, bool) and o not in seen]
        n = p.get("others_count")
        if isinstance(n, int) and not isinstance(n, bool) and n > len(seen):
            seen += ["?"] * (n - len(seen))
    return seen


def _spread(point: dict, samples) -> tuple[float, float]:
    if samples:
        return float(max(samples) - min(samples)), float(statistics.median(samples))
    return float(point["max_cycles"]) - float(point["min_cycles"]), float(point["median_cycles"])


def disagreeing_sms(point: dict, samples, allowed: float) -> list[int]:
    """With warp-per-SM samples: the SMs whose median differs from the median of all samples by more
    than `allowed` cycles."""
    smp = point.get("samples")
    smid = smp.get("smid") if isinstance(smp, dict) else None
    if not samples or not isinstance(smid, list) or len(smid) != len(samples):
        return []
    med = statistics.median(samples)
    by_sm: dict[int, list] = {}
    for c, s in zip(samples, smid):
        by_sm.setdefault(s, []).append(c)
    return sorted(s for s, cs in by_sm.items() if abs(statistics.median(cs) - med) > allowed)


def judge_point(point: dict, config: dict, crit: Criterion, path: Path = Path("-"), where: str = "point",
                factor: float | None = None) -> list[str]:
    """The reasons a timed point is disturbed ([] when it is not)."""
    reasons = ill_typed_reasons(point)
    if not isinstance(point, dict):
        return reasons
    if point.get("throttled") is True:
        reasons.append("throttled: the SM clock moved or NVML named a throttling reason during the point")
    others = co_tenants(point)
    if others:
        reasons.append(f"co_tenant: {len(others)} other process(es) on the GPU ({', '.join(map(str, others))})")
    samples = dr.point_samples(point, path, where)
    judged = bool(samples) or all(key in point for key in ("median_cycles", "min_cycles", "max_cycles"))
    if not judged:
        reasons.append("no_spread: neither samples nor median/min/max cycles: its noise cannot be judged")
    why_class = class_reason(point, config if isinstance(config, dict) else {}, crit)
    if why_class:
        reasons.append(why_class)
    if judged and not why_class:
        if not samples:
            for key in ("median_cycles", "min_cycles", "max_cycles"):
                dr.number(point[key], f"{where}.{key}", path)
        spread, median = _spread(point, samples)
        cls = point_class(point, config, crit)
        allowed = crit.allowed_spread(cls, median, factor)
        if allowed is not None and spread > allowed:
            detail = f"noise: max-min {spread:.0f} cycles > {allowed:.0f} allowed ({cls})"
            sms = disagreeing_sms(point, samples, allowed) if point.get("sampling") == "warp-per-sm" else []
            if sms:
                detail += f"; SMs {', '.join(map(str, sms[:8]))}{' ...' if len(sms) > 8 else ''} disagree with the rest"
            reasons.append(detail)
    shared = point.get("launches_with_shared_sm")
    if _is_count(shared) and shared > 0:
        reasons.append(f"shared_sm: {shared} launch(es) whose warps shared an SM")
    return reasons


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fit_reasons(result: dr.Result, crit: Criterion) -> list[str]:
    fit = result.data.get("fit")
    if fit is None:
        # A k-way sweep over two k or more is judged by its fit (a sweep of one k has none to make).
        if result.data.get("experiment") == "kway":
            ks = {p["k"] for p in result.points
                  if isinstance(p, dict) and isinstance(p.get("k"), (int, float)) and not isinstance(p.get("k"), bool)}
            if len(ks) >= 2:
                return [f"fit_missing: a k-way result over {len(ks)} values of k without a fit: c and R^2 cannot be judged"]
        return []
    if not isinstance(fit, dict):
        return [f"fit_missing: fit is {_short(fit)}, not an object with c and r2"]
    body = result.config.get("body", dr.DEFAULT_BODY)
    kind = body_kind(body if isinstance(body, str) else dr.DEFAULT_BODY, crit)
    floor = crit.r2_min.get(kind)
    out = []
    fits = [("fit", fit)]
    placements = fit.get("placements")
    if placements is not None:
        if not isinstance(placements, list):
            out.append(f"fit_missing: fit.placements is {_short(placements)}, not a list of fits")
        elif len(placements) > 1:  # one placement: the fit itself
            fits += [(f"fit.placements[{i}]", f) for i, f in enumerate(placements)]
    for where, f in fits:
        whole = True
        for key in ("c", "r2"):
            v = f.get(key) if isinstance(f, dict) else None
            if not _finite(v):
                shown = _short(v) if isinstance(f, dict) and key in f else "missing"
                out.append(f"fit_missing: {where}.{key} is {shown}, not a finite number: the fit cannot be judged")
                whole = False
        if not whole:
            continue
        c, r2 = float(f["c"]), float(f["r2"])
        if c < crit.c_min:
            out.append(f"fit_c: {where} c = {c:.6g} < {crit.c_min:g}: a negative fixed cost is not physical")
        if floor is not None and r2 < floor:
            out.append(f"fit_r2: {where} R^2 = {r2:.10g} < {floor:.10g} (the quiet floor for a {kind} body)")
    return out


@dataclass
class Verdict:
    path: Path
    trustworthy: bool
    reasons: list = field(default_factory=list)
    disturbed_points: list = field(default_factory=list)   # [(index, label, [reasons])]


def judge(result: dr.Result, crit: Criterion | None = None) -> Verdict:
    crit = crit or load_criterion()
    disturbed = []
    for i, p in enumerate(result.points):
        if "median_cycles" in p:
            why = judge_point(p, result.config, crit, result.path, f"points[{i}]")
        else:  # a probe's point: conditions only
            why = ill_typed_reasons(p)
            if p.get("throttled") is True:
                why.append("throttled: NVML named a throttling reason during the point")
            why += [f"co_tenant: {len(co_tenants(p))} other process(es) on the GPU"] if co_tenants(p) else []
        if why:
            disturbed.append((i, dr.point_label(p, result.experiment) or f"point {i}", why))
    reasons = []
    if not result.points:
        reasons.append("no_points: the result has no points: nothing was measured to trust")
    if disturbed:
        codes = sorted({r.split(":", 1)[0] for _, _, why in disturbed for r in why})
        reasons.append(f"disturbed_points: {len(disturbed)} of {len(result.points)} point(s) ({', '.join(codes)})")
    reasons += fit_reasons(result, crit)
    return Verdict(result.path, not reasons, reasons, disturbed)


def describe(v: Verdict, limit: int = 4) -> str:
    """One line: the file, the reasons and the first disturbed points."""
    pts = "; ".join(f"{label}: {why[0]}" for _, label, why in v.disturbed_points[:limit])
    more = f" (+{len(v.disturbed_points) - limit} more)" if len(v.disturbed_points) > limit else ""
    return f"{v.path}: {'; '.join(v.reasons)}" + (f" [{pts}{more}]" if pts else "")


def refuse_untrustworthy(results: list, allow: bool, crit: Criterion | None = None) -> list[Verdict]:
    """The verdicts of `results`; raises NotComparable naming the first untrustworthy file unless `allow`."""
    crit = crit or load_criterion()
    verdicts = [judge(r, crit) for r in results]
    bad = [v for v in verdicts if not v.trustworthy]
    if bad and not allow:
        raise NotComparable(f"not comparable: disturbed measurement: {describe(bad[0])}"
                            + (f" (and {len(bad) - 1} more file(s))" if len(bad) > 1 else "")
                            + "; --allow-disturbed to use it anyway")
    return verdicts


class NotComparable(Exception):
    """An input judged untrustworthy: one line; the tools exit EXIT_NOT_COMPARABLE."""


@tool_main("quality")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="quality", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, metavar="RESULT.json")
    args = ap.parse_args(argv)
    try:
        crit = load_criterion()
        verdicts = [judge(dr.load_result(f), crit) for f in args.files]
    except InputError as e:
        return fail("quality", e)
    for v in verdicts:
        print(f"{v.path}: trustworthy" if v.trustworthy else f"untrustworthy: {describe(v, limit=8)}")
    return 0 if all(v.trustworthy for v in verdicts) else EXIT_UNTRUSTWORTHY


if __name__ == "__main__":
    sys.exit(main())
