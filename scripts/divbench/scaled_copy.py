"""A copy of a divbench.result/1 with every cycle count scaled by a factor: the gate's positive control
(scripts/gpu/10-kway.sh runs the gate on a run and on its copy scaled by 1.05, and expects a significant
change). Read and written with the package's one reader and atomic writer.

  PYTHONPATH=scripts python3 -m divbench.scaled_copy IN OUT --factor 1.05"""
from __future__ import annotations

import sys

from divbench.cli import ArgumentParser, tool_main
from divbench.jsonio import load_json, write_json

CYCLE_KEYS = ("median_cycles", "min_cycles", "max_cycles", "mean_cycles")


def scaled(doc: dict, factor: float) -> dict:
    """`doc` with each point's cycle statistics and raw cycle samples multiplied by `factor`."""
    for p in doc["points"]:
        for key in CYCLE_KEYS:
            p[key] *= factor
        if "samples" in p:
            p["samples"]["cycles"] = [round(c * factor) for c in p["samples"]["cycles"]]
    return doc


@tool_main("scaled_copy")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="scaled_copy", description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--factor", type=float, required=True)
    a = ap.parse_args(argv)
    write_json(a.output, scaled(load_json(a.input, "a divbench.result/1"), a.factor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
