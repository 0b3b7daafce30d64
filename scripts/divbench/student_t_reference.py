"""scipy's two-sided Student-t p-values on a grid: the reference the C++ t distribution (src/core/fit.cpp,
its own incomplete beta) is tested against (tests/cpu/test_fit.cpp), so that the project's two
implementations of the t test — scipy in the gate, fit.cpp in the T(k) fit's k^2 term — agree.

    python3 -m divbench.student_t_reference [--out tests/data/student_t_scipy.json]

tests/python/test_stats.py checks that the committed file is what scipy gives now."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import scipy.stats

T_VALUES = (0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 10.0, 30.0)
DOFS = (1, 2, 3, 4, 5, 7, 10, 20, 30, 60, 100, 1000)


def reference() -> dict:
    rows = [{"t": t, "dof": d, "p": float(2.0 * scipy.stats.t.sf(t, d))} for d in DOFS for t in T_VALUES]
    return {"what": "two-sided p = 2 sf(|t|, dof) of scipy.stats.t", "made_by": "python3 -m divbench.student_t_reference",
            "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("tests/data/student_t_scipy.json"))
    a = ap.parse_args(argv)
    a.out.write_text(json.dumps(reference(), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
