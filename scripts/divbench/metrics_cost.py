"""What counters cost (divbench.metrics_cost/1): the wall time of `divbench --all` and `divbench --all
--metrics` (and, where timed, `DIVBENCH_CUPTI=basic divbench --all --metrics`: hardware counters only, no
SASS-instrumented branch counters), their ratio against the 1.3x goal, the CUPTI session block and the run-condition counts of the
--metrics run's results. scripts/gpu/30-metrics.sh times the two processes and runs

  PYTHONPATH=scripts python3 -m divbench.metrics_cost write --all-s S --all-metrics-s S
      [--all-metrics-basic-s S] --results DIR --out metrics_cost.json   (prints one line for the stage summary)
  PYTHONPATH=scripts python3 -m divbench.metrics_cost has-metrics RESULT.json   (prints 1 or 0)

The results are read by the package's one reader (divbench.results), the output written atomically
(divbench.jsonio). Bad input: one line `metrics_cost: error: ...`, exit 2, nothing written."""
from __future__ import annotations

import json
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


def metrics_cost(plain_s: float, metrics_s: float, results: list[Result], basic_s: float | None = None) -> dict:
    """The divbench.metrics_cost/1 document from the two wall times and the --metrics run's results."""
    if plain_s <= 0 or metrics_s <= 0 or (basic_s is not None and basic_s <= 0):
        raise InputError(f"wall times must be positive (--all-s {plain_s:g}, --all-metrics-s {metrics_s:g}"
                         + ("" if basic_s is None else f", --all-metrics-basic-s {basic_s:g}") + ")")
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
    if basic_s is not None:
        doc.update({"all_metrics_basic_s": basic_s, "ratio_basic": basic_s / plain_s,
                    "within_goal_basic": basic_s / plain_s <= GOAL_RATIO,
                    "basic_note": "DIVBENCH_CUPTI=basic: the five hardware-counter metrics in one pass; the three "
                                  "branch-target metrics are SASS-instrumented counters and are not collected"})
    return doc


def has_metrics(r: Result) -> bool:
    """Whether any timed point of the result carries counters (its points defined metric launches)."""
    return any("metrics" in p for p in r.points)


def main(argv=None) -> int:
    ap = ArgumentParser(prog="metrics_cost", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write metrics_cost.json")
    w.add_argument("--all-s", type=float, required=True, help="wall time of `divbench --all`, seconds")
    w.add_argument("--all-metrics-s", type=float, required=True, help="wall time of `divbench --all --metrics`")
    w.add_argument("--all-metrics-basic-s", type=float, default=None,
                   help="wall time of `DIVBENCH_CUPTI=basic divbench --all --metrics` (optional)")
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
        doc = metrics_cost(a.all_s, a.all_metrics_s, [load_result(f) for f in sorted(folder.glob("*.json"))],
                           a.all_metrics_basic_s)
        write_json(a.out, doc)
    except (InputError, OutputError) as e:
        return fail("metrics_cost", e)
    r = doc["ratio"]
    print(f"metrics-cost: --all {doc['all_s']:.1f} s, --all --metrics {doc['all_metrics_s']:.1f} s, ratio {r:.3f} "
          f"(<={GOAL_RATIO}: {doc['within_goal']})"
          + (f"; basic (no branch counters) {doc['all_metrics_basic_s']:.1f} s, ratio {doc['ratio_basic']:.3f}"
             if "ratio_basic" in doc else "") + f"; counter session: {json.dumps(doc['metrics_session'])}; "
          f"conditions: {json.dumps(doc['conditions'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
