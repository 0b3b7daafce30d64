"""The committed results/figures/ are what the scripts make from the committed JSON today: a result added
or changed without regenerating the figures fails here, with the command that fixes it."""
import filecmp
import subprocess
import sys

import pytest

from conftest import ROOT

FIGS = ROOT / "results" / "figures"
FIX = "python3 scripts/figures.py && python3 scripts/compare.py --markdown --out results/figures/compare.md"


def test_committed_figures_are_current(tmp_path):
    if not (FIGS / "index.md").exists():
        pytest.skip("no committed results/figures/ yet")
    out = tmp_path / "figures"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "figures.py"), "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"), "--markdown", "--out", str(out / "compare.md")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    made = sorted(f.name for f in out.iterdir())
    committed = sorted(f.name for f in FIGS.iterdir())
    assert made == committed, f"results/figures/ holds {committed}, the scripts make {made}: run {FIX}"
    stale = [n for n in made if not filecmp.cmp(out / n, FIGS / n, shallow=False)]
    assert not stale, f"stale in results/figures/: {', '.join(stale)}: run {FIX}"
