"""divbench.quality: the disturbance verdict recomputed from a result's data. The shared cases
(tests/data/quality_cases.json) are the ones the C++ harness passes (tests/cpu/test_disturbance.cpp), so
both sides give the same reasons with the one criterion (data/noise_criterion.json)."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, device, kway, write
from divbench import quality
from divbench import results as dr

CASES = json.loads((ROOT / "tests" / "data" / "quality_cases.json").read_text())


def codes(reasons):
    return [r.split(":", 1)[0] for r in reasons]


@pytest.mark.parametrize("case", CASES["points"], ids=[c["name"] for c in CASES["points"]])
def test_shared_point_cases(case):
    crit = quality.load_criterion()
    assert codes(quality.judge_point(case["point"], case["config"], crit)) == case["expect"]
    if "expect_sms" in case:
        smp = case["point"]["samples"]["cycles"]
        allowed = crit.allowed_spread(quality.point_class(case["point"], case["config"], crit), sorted(smp)[len(smp) // 2])
        assert quality.disagreeing_sms(case["point"], smp, allowed) == case["expect_sms"]


@pytest.mark.parametrize("case", CASES["fits"], ids=[c["name"] for c in CASES["fits"]])
def test_shared_fit_cases(case, tmp_path):
    r = dr.Result(tmp_path / "x.json", {"config": case["config"], "fit": case["fit"], "points": []})
    reasons = quality.fit_reasons(r, quality.load_criterion())
    assert set(codes(reasons)) == set(case["expect"])
    if "expect_count" in case:
        assert len(reasons) == case["expect_count"]


@pytest.mark.parametrize("case", CASES["results"], ids=[c["name"] for c in CASES["results"]])
def test_shared_result_cases(case, tmp_path):
    v = quality.judge(dr.Result(tmp_path / "x.json", case["result"]), quality.load_criterion())
    assert codes(v.reasons) == case["expect"]
    assert v.trustworthy == (not case["expect"])


@pytest.mark.parametrize("point", [17, "point", [], None, {"k": 1, "conditions": {"processes": "none"}}])
def test_the_point_verdict_is_total(point):
    """Whatever a point holds, the verdict is a verdict: no exception, and never quiet by omission."""
    assert quality.judge_point(point, {}, quality.load_criterion())


def test_committed_h200_results_are_trustworthy():
    """Every committed H200 result passes the criterion made from the quiet ones (so the committed
    figures and the comparison can be regenerated without --allow-disturbed)."""
    files = [f for f in sorted((ROOT / "results" / "h200").glob("*.json"))
             if json.loads(f.read_text()).get("schema") == dr.RESULT_SCHEMA]
    assert len(files) >= 15
    bad = [quality.describe(v) for v in (quality.judge(dr.load_result(f)) for f in files) if not v.trustworthy]
    assert not bad, bad


def test_the_criterion_is_made_from_quiet_results_by_the_generator(tmp_path):
    """data/noise_criterion.json is what `python3 -m divbench.noise_levels` makes from the files it names."""
    committed = json.loads(quality.criterion_path().read_text())
    files = committed["made_by"].split()[3:]   # "--from-commit SHA" and the files
    out = tmp_path / "nc.json"
    p = subprocess.run([sys.executable, "-m", "divbench.noise_levels", *files, "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "scripts"), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text()) == committed


def test_cli_exit_codes(tmp_path, capsys):
    good = kway(device("SYNTHETIC GPU A", "9.0"), 280000.0, 700.0)
    bad = json.loads(json.dumps(good))
    bad["points"][0]["max_cycles"] += 100000
    fg, fb = write(tmp_path, "good.json", good), write(tmp_path, "bad.json", bad)
    assert quality.main([str(fg)]) == 0
    assert quality.main([str(fg), str(fb)] ) == quality.EXIT_UNTRUSTWORTHY
    out = capsys.readouterr().out
    assert "untrustworthy: " in out and "noise" in out and "k=1" in out
    assert quality.main([str(tmp_path / "missing.json")]) == 2
