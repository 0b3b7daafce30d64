"""The summary lines of scripts/gpu/55-attribute-diff.sh from its verdicts (divbench attribute diff --json,
divbench.attribute_diff/1) in one folder: for the pairs that must not change (moved: only the code placement
differs; repeat: one build run twice) the branches matched and changed, and for Thrust/CUB attributed twice
how many kernels are deterministic (no matched branch changed) and which are not. Exit 1 when moved or
repeat matched no branch or changed one; 2 (one line) for a verdict that cannot be read.

  PYTHONPATH=scripts python3 -m divbench.attribute_diff_summary FOLDER"""
from __future__ import annotations

import sys
from pathlib import Path

from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import load_json

MUST_NOT_CHANGE = ("moved", "repeat")


def summary_lines(folder: Path) -> tuple[list[str], bool]:
    lines, ok = [], True
    for pair in MUST_NOT_CHANGE:
        s = load_json(folder / f"{pair}.verdict.json", "a divbench attribute diff verdict")["summary"]
        good = s["branches_matched"] > 0 and s["branches_changed"] == 0
        ok = ok and good
        lines.append(f"attribute-diff: {pair}: {s['branches_matched']} branches matched, {s['branches_changed']} "
                     f"changed (expect >0 and 0){'' if good else ' FAILED'}")
    v = load_json(folder / "thrust.verdict.json", "a divbench attribute diff verdict")
    changed = [k["name"] for k in v["kernels"] if any(b["changed"] for b in k["branches"])]
    lines.append(f"attribute-diff: Thrust/CUB attributed twice: {len(v['kernels']) - len(changed)} of "
                 f"{len(v['kernels'])} kernels deterministic; changed: "
                 f"{'; '.join(n[:80] for n in changed) or 'none'}")
    return lines, ok


@tool_main("attribute_diff_summary")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="attribute_diff_summary", description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    a = ap.parse_args(argv)
    try:
        lines, ok = summary_lines(Path(a.folder))
    except (KeyError, TypeError, ValueError) as e:
        return fail("attribute_diff_summary", f"{a.folder}: {e}")
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
