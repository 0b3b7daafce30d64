"""What counters cost (divbench.metrics_cost/1): the wall time of `divbench --all` and `divbench --all
--metrics` (and, where timed, `DIVBENCH_CUPTI=basic divbench --all --metrics`: hardware counters only, no
SASS-instrumented branch counters), their ratio against the 1.3x goal, the CUPTI session block and the run-condition counts of the
--metrics run's results. scripts/gpu/30-metrics.sh times the two processes and runs

  PYTHONPATH=scripts python3 -m divbench.metrics_cost write --all-s S[,S...] --all-metrics-s S[,S...]
      [--all-metrics-basic-s S] [--other-replay-s S --other-replay-results DIR] --results DIR
      --out metrics_cost.json   (prints one line for the stage summary)

Repeated runs (as many of each, run alternately: plain, --metrics, plain, --metrics, ...): all_s and
all_metrics_s are the medians, ratio is their quotient, and the file keeps every run (all_s_runs,
all_metrics_s_runs) and the ratio of each alternated pair with its range (ratio_pairs, ratio_pairs_min,
ratio_pairs_max): how much of the ratio is run-to-run spread.

With --other-replay-*: the same --all --metrics run under the other CUPTI replay mode
(DIVBENCH_CUPTI_REPLAY): its wall time, and every counter of every point (full launch and twin) compared
with the main run's, point by point in the order --all wrote them (`replay_check`): the replay mode
changes what the counters cost, never what they count.
  PYTHONPATH=scripts python3 -m divbench.metrics_cost has-metrics RESULT.json   (prints 1 or 0)

The results are read by the package's one reader (divbench.results), the output written atomically
(divbench.jsonio). Bad input: one line `metrics_cost: error: ...`, exit 2, nothing written."""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from divbench.cli import ArgumentParser, fail
from divbench.jsonio import InputError, OutputError, check_writable, write_json
from divbench.results import Result, load_result

GOAL_RATIO = 1.3
METHOD = ("wall time of `divbench --all` and `divbench --all --metrics` processes, one after the other on the "
          "same GPU (scripts/gpu/30-metrics.sh)")


def _all_points(r: Result) -> list:
    return list(r.points) + list(r.data.get("points_extra") or [])


def metrics_cost(plain_s, metrics_s, results: list[Result], basic_s: float | None = None,
                 other_s: float | None = None, other: list[Result] | None = None) -> dict:
    """The divbench.metrics_cost/1 document from the wall times (one of each, or lists of runs made
    alternately) and the --metrics run's results (and, optionally, the same run under the other replay
    mode)."""
    plain_runs = list(plain_s) if isinstance(plain_s, (list, tuple)) else [plain_s]
    metrics_runs = list(metrics_s) if isinstance(metrics_s, (list, tuple)) else [metrics_s]
    shown = lambda runs: ",".join(f"{x:g}" for x in runs)  # noqa: E731
    if (not plain_runs or any(x <= 0 for x in plain_runs + metrics_runs) or (basic_s is not None and basic_s <= 0)
            or (other_s is not None and other_s <= 0)):
        raise InputError(f"wall times must be positive (--all-s {shown(plain_runs)}, --all-metrics-s "
                         f"{shown(metrics_runs)}"
                         + ("" if basic_s is None else f", --all-metrics-basic-s {basic_s:g}")
                         + ("" if other_s is None else f", --other-replay-s {other_s:g}") + ")")
    if len(plain_runs) != len(metrics_runs):
        raise InputError(f"--all-s has {len(plain_runs)} run(s) and --all-metrics-s {len(metrics_runs)}: the runs "
                         "alternate, as many of each")
    plain_s, metrics_s = statistics.median(plain_runs), statistics.median(metrics_runs)
    if (other_s is None) != (other is None):
        raise InputError("--other-replay-s and --other-replay-results go together")
    session = next(((r.data.get("timing") or {}).get("metrics") for r in results
                    if (r.data.get("timing") or {}).get("metrics")), None)
    # Run conditions of the same run: every point read before and after (NVML), and throttling reasons.
    cond = {"points": sum(len(_all_points(r)) for r in results),
            "points_with_conditions": sum(r.summary.get("points_with_conditions", 0) for r in results),
            "points_with_throttle_reasons": sum(r.summary.get("points_with_throttle_reasons", 0) for r in results),
            "points_with_metrics": sum(1 for r in results for p in _all_points(r)
                                       if isinstance(p, dict) and (p.get("metrics") or {}).get("available"))}
    first = results[0].data if results else {}
    ratio = metrics_s / plain_s
    doc = {"schema": "divbench.metrics_cost/1", "git": first.get("git"), "created": first.get("created"),
           "device": (first.get("device") or {}).get("name"), "all_s": plain_s, "all_metrics_s": metrics_s,
           "ratio": ratio, "goal_ratio": GOAL_RATIO, "within_goal": ratio <= GOAL_RATIO,
           "metrics_session": session, "conditions": cond, "method": METHOD}
    if len(plain_runs) > 1:
        pairs = [m / p for p, m in zip(plain_runs, metrics_runs)]
        doc.update({"repeats": len(plain_runs), "all_s_runs": plain_runs, "all_metrics_s_runs": metrics_runs,
                    "ratio_pairs": pairs, "ratio_pairs_min": min(pairs), "ratio_pairs_max": max(pairs)})
    replay = _replay_of(results)
    if replay:
        doc["replay"] = replay
    if other is not None:
        other_replay = _replay_of(other)
        if not other_replay or other_replay == replay:
            raise InputError(f"--other-replay-results: counters made by {other_replay or 'no'} replay, "
                             f"expected the other mode than the main run's ({replay})")
        doc.update({"other_replay": other_replay, "all_metrics_other_replay_s": other_s,
                    "ratio_other_replay": other_s / plain_s, "replay_check": replay_check(results, other)})
    if basic_s is not None:
        doc.update({"all_metrics_basic_s": basic_s, "ratio_basic": basic_s / plain_s,
                    "within_goal_basic": basic_s / plain_s <= GOAL_RATIO,
                    "basic_note": "DIVBENCH_CUPTI=basic: the five hardware-counter metrics in one pass; the three "
                                  "branch-target metrics are SASS-instrumented counters and are not collected"})
    return doc


def _replay_of(results: list[Result]) -> str | None:
    for r in results:
        for p in _all_points(r):
            m = p.get("metrics") if isinstance(p, dict) else None
            if m and m.get("available"):
                return m.get("replay")  # None: made before the field existed (kernel replay then)
    return None


def replay_check(main: list[Result], other: list[Result], limit: int = 20) -> dict:
    """Every counter of every point with counters in `main`, compared with the same point (file, index) of
    `other`: counts, and up to `limit` differences {file, point, launch, metric, main, other}."""
    by_name = {Path(r.path).name: r for r in other}
    points = values = identical = 0
    differing, unmatched = [], []
    for r in main:
        name = Path(r.path).name
        o = by_name.get(name)
        mine = _all_points(r)
        theirs = _all_points(o) if o else []
        for i, p in enumerate(mine):
            m = p.get("metrics") if isinstance(p, dict) else None
            if not (m and m.get("available")):
                continue
            q = theirs[i].get("metrics") if i < len(theirs) and isinstance(theirs[i], dict) else None
            if not (q and q.get("available")):
                unmatched.append(f"{name}#{i}")
                continue
            points += 1
            for launch, a, b in (("full", m.get("values") or {}, q.get("values") or {}),
                                 ("twin", m.get("twin") or {}, q.get("twin") or {})):
                for k in sorted(set(a) | set(b)):
                    values += 1
                    if a.get(k) == b.get(k):
                        identical += 1
                    elif len(differing) < limit:
                        differing.append({"file": name, "point": i, "launch": launch, "metric": k,
                                          "main": a.get(k), "other": b.get(k)})
    return {"points": points, "values": values, "identical": identical, "all_identical": values > 0 and
            identical == values and not unmatched, "differing": differing, "unmatched_points": unmatched[:limit]}


def has_metrics(r: Result) -> bool:
    """Whether any timed point of the result carries counters (its points defined metric launches)."""
    return any("metrics" in p for p in r.points)


def _walls(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"not seconds: {text!r}") from None


_walls.__name__ = "seconds"  # argparse's message: "invalid seconds value: '8,x'"


def main(argv=None) -> int:
    ap = ArgumentParser(prog="metrics_cost", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write metrics_cost.json")
    w.add_argument("--all-s", type=_walls, required=True,
                   help="wall time of `divbench --all`, seconds; repeated runs comma-separated")
    w.add_argument("--all-metrics-s", type=_walls, required=True,
                   help="wall time of `divbench --all --metrics`; as many runs as --all-s, alternated with them")
    w.add_argument("--all-metrics-basic-s", type=float, default=None,
                   help="wall time of `DIVBENCH_CUPTI=basic divbench --all --metrics` (optional)")
    w.add_argument("--other-replay-s", type=float, default=None,
                   help="wall time of the same --all --metrics run under the other DIVBENCH_CUPTI_REPLAY")
    w.add_argument("--other-replay-results", default=None, help="that run's results folder")
    w.add_argument("--results", required=True, help="the folder of the --metrics run's results")
    w.add_argument("--out", required=True)
    h = sub.add_parser("has-metrics", help="print 1 if a result's points carry counters, else 0")
    h.add_argument("result")
    a = ap.parse_args(argv)
    try:
        if a.command == "has-metrics":
            print(int(has_metrics(load_result(a.result))))
            return 0
        check_writable(a.out)
        folder = Path(a.results)
        if not folder.is_dir():
            raise InputError(f"{folder}: not a folder")
        other = None
        if a.other_replay_results is not None:
            ofolder = Path(a.other_replay_results)
            if not ofolder.is_dir():
                raise InputError(f"{ofolder}: not a folder")
            other = [load_result(f) for f in sorted(ofolder.glob("*.json"))]
        doc = metrics_cost(a.all_s, a.all_metrics_s, [load_result(f) for f in sorted(folder.glob("*.json"))],
                           a.all_metrics_basic_s, a.other_replay_s, other)
        write_json(a.out, doc)
    except (InputError, OutputError) as e:
        return fail("metrics_cost", e)
    r = doc["ratio"]
    runs = (f" (medians of {doc['repeats']} alternated runs each; pairs {doc['ratio_pairs_min']:.3f}-"
            f"{doc['ratio_pairs_max']:.3f})" if "repeats" in doc else "")
    print(f"metrics-cost: --all {doc['all_s']:.1f} s, --all --metrics {doc['all_metrics_s']:.1f} s, ratio {r:.3f} "
          f"(<={GOAL_RATIO}: {doc['within_goal']}){runs}"
          + (f"; basic (no branch counters) {doc['all_metrics_basic_s']:.1f} s, ratio {doc['ratio_basic']:.3f}"
             if "ratio_basic" in doc else "")
          + (f"; {doc['other_replay']} replay {doc['all_metrics_other_replay_s']:.1f} s, ratio "
             f"{doc['ratio_other_replay']:.3f}, counters identical to {doc['replay']} replay: "
             f"{doc['replay_check']['identical']}/{doc['replay_check']['values']}" if "other_replay" in doc else "")
          + f"; counter session: {json.dumps(doc['metrics_session'])}; "
          f"conditions: {json.dumps(doc['conditions'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
