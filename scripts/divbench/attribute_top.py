"""The kernel a `divbench attribute` report charges with the most cycles lost: scripts/gpu/50-attribute.sh
attributes that kernel alone (--kernel) to measure the overhead of one kernel. Prints its name; exit 2
(one line) for a report that cannot be read or names no kernel.

  PYTHONPATH=scripts python3 -m divbench.attribute_top REPORT"""
from __future__ import annotations

import sys

from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import load_json


def top_kernel(doc: dict) -> str:
    kernels = doc.get("kernels") or []
    if not kernels:
        raise ValueError("the report names no kernel")
    return max(kernels, key=lambda k: k["cycles_lost"])["name"]


@tool_main("attribute_top")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="attribute_top", description=__doc__.splitlines()[0])
    ap.add_argument("report")
    a = ap.parse_args(argv)
    try:
        print(top_kernel(load_json(a.report, "a divbench attribute report")))
    except (KeyError, TypeError, ValueError) as e:
        return fail("attribute_top", f"{a.report}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
