"""divbench.attribute_fixes (stage 54's judge) on a synthetic folder the test writes itself (every time and
document fabricated, none from a GPU): the error arithmetic, time-weighting over several timed kernels, the
headline, the two groups (fixes that change the work apart), and every kind of missing data reported as a row's
status, never dropped; the document is valid against its schema; the stage's table of fixes is the module's."""
import json
import re

import pytest

from conftest import ROOT
from divbench import attribute_fixes as af
from divbench import schemas
from divbench.jsonio import InputError


def _timing(mode, variant, median, kernels=None, spread=0.01):
    return json.dumps({"target": "fixes", "mode": mode, "variant": variant, "kernels": kernels or [f"{mode}_{variant}"],
                       "check": "ok", "reps": 9, "warmup": 1, "median_ms": median, "min_ms": median * (1 - spread),
                       "max_ms": median * (1 + spread), "times_ms": [median] * 9}) + "\n"


def _kernel(name, share, measured_s=None):
    saved = None if measured_s is None else share * measured_s
    return {"name": name, "predicted_time_saved_share": share, "predicted_time_saved_s": saved,
            "time_model": {"model": "synthetic", "from_samples": True, "sm_cycles": 1.0, "kernel": {},
                           "measured_s": measured_s},
            "branches": [{"source": f"/x/fixes.cu:{10 + i}", "predicted_time_saved_share": share / (i + 2)} for i in range(4)]}


def _folder(tmp_path, gain=0.30, pred=0.32, bfs_pred=None):
    """Every mode timed (before 1.0 ms, each fix 1 - gain) and attributed (share pred; bfs: bfs_pred)."""
    f = tmp_path / "fixes"
    f.mkdir(parents=True)
    for mode, fixes in af.FIXES.items():
        for v in ["before", *fixes]:
            (f / f"{mode}_{v}.stdout").write_text(_timing(mode, v, 1.0 if v == "before" else 1.0 - gain))
            (f / f"{mode}_{v}.stderr").write_text("rc=0\n")
        share = bfs_pred if mode == "bfs" and bfs_pred is not None else pred
        doc = {"schema": "divbench.attribute/1", "provenance": {"git": "synthetic"}, "device": {"name": "SYNTHETIC"},
               "kernels": [_kernel(f"{mode}_before", share, 1e-3), _kernel("other_kernel", 0.9, 1e-3)]}
        (f / f"{mode}.json").write_text(json.dumps(doc))
        (f / f"{mode}.attr.stderr").write_text("rc=0\n")
    return f


def _row(doc, mode, fix):
    return next(r for r in doc["fixes"] if r["mode"] == mode and r["fix"] == fix)


def _valid(doc):
    cat = schemas.load_catalog()
    assert schemas.errors_of(cat, doc, "results/synthetic/attribute/fixes.json") == []


def test_error_arithmetic_groups_and_a_passing_folder(tmp_path):
    doc, ok = af.report(_folder(tmp_path, gain=0.30, pred=0.32))
    assert ok and doc["summary"]["complete"]
    r = _row(doc, "bfs", "after")
    assert r["headline"] and not r["fix_changes_work"]
    assert r["measured_gain"] == pytest.approx(0.30)
    assert r["predicted_time_saved_share"] == pytest.approx(0.32)
    assert r["error_points"] == pytest.approx(2.0)
    assert r["agrees"] is True and r["prediction_method"] == "kernel_share"
    lo, hi = r["measured_gain_range"]
    assert lo < 0.30 < hi
    assert r["top_branches"][0]["predicted_time_saved_share"] == pytest.approx(0.16)  # the largest of bfs_before's
    s = doc["summary"]
    rows = len(doc["fixes"])
    assert rows == sum(len(v) for v in af.FIXES.values()) >= 8
    assert s["same_work"]["judged"] + s["changes_work"]["judged"] == rows
    assert s["changes_work"]["judged"] == sum(1 for m in af.FIXES.values() for _, ch in m.values() if ch) > 0
    assert s["same_work"]["median_error_points"] == pytest.approx(2.0)
    assert s["headline"]["agrees"] is True
    _valid(doc)
    lines = af.summary_lines(doc, ok)
    assert "agrees" in lines[0] and "error 2.0 points" in lines[0]


def test_the_headline_outside_5_points_fails(tmp_path):
    doc, ok = af.report(_folder(tmp_path, gain=0.30, pred=0.32, bfs_pred=0.40))
    assert not ok and doc["summary"]["complete"]
    assert doc["summary"]["headline"]["error_points"] == pytest.approx(10.0)
    assert doc["summary"]["headline"]["agrees"] is False
    assert _row(doc, "bfs", "after_warp")["agrees"] is False  # the same prediction, the same gain
    assert "FAILED" in af.summary_lines(doc, ok)[0]
    # other rows outside 5 points are reported, not failed on, while the headline agrees
    doc, ok = af.report(_folder(tmp_path / "b", gain=0.30, pred=0.50, bfs_pred=0.31))
    assert ok and doc["summary"]["same_work"]["agreeing"] == 1  # bfs after alone
    assert doc["summary"]["same_work"]["max_error_points"] == pytest.approx(20.0)


def test_time_weighting_over_several_timed_kernels(tmp_path):
    f = _folder(tmp_path)
    (f / "spmv_before.stdout").write_text(_timing("spmv", "before", 1.0, kernels=["k_a", "k_b"]))
    doc = json.loads((f / "spmv.json").read_text())
    doc["kernels"] = [_kernel("k_a", 0.5, 3e-3), _kernel("k_b", 0.1, 1e-3)]
    (f / "spmv.json").write_text(json.dumps(doc))
    out, _ = af.report(f)
    r = _row(out, "spmv", "after_sorted")
    assert r["prediction_method"] == "time_weighted"
    assert r["predicted_time_saved_share"] == pytest.approx((0.5 * 3e-3 + 0.1 * 1e-3) / 4e-3)  # 0.4, not the mean 0.3
    assert r["timed_kernels_before"] == ["k_a", "k_b"]
    # without a kernel's measured time the shares cannot be weighted: reported, not guessed
    doc["kernels"] = [_kernel("k_a", 0.5, 3e-3), _kernel("k_b", 0.1, None)]
    (f / "spmv.json").write_text(json.dumps(doc))
    out, ok = af.report(f)
    assert not ok
    assert _row(out, "spmv", "after")["status"] == "no_time_for_weighting"
    assert _row(out, "spmv", "after")["error_points"] is None
    _valid(out)


def test_missing_data_is_reported_per_row(tmp_path):
    f = _folder(tmp_path)
    (f / "nbody.json").unlink()                                   # no document
    (f / "nw.attr.stderr").write_text("divbench attribute: error: the program failed\nrc=1\n")
    (f / "segsort_after.stdout").unlink()                          # no timing of a fix
    (f / "segsort_after.stderr").unlink()
    (f / "mandelbrot_before.stdout").write_text("")               # program failed
    (f / "mandelbrot_before.stderr").write_text("fixes mandelbrot before: iterations wrong at 3\nrc=1\n")
    doc = json.loads((f / "resample.json").read_text())
    doc["kernels"] = [_kernel("other_kernel", 0.2, 1e-3)]          # the timed kernel is not in the document
    (f / "resample.json").write_text(json.dumps(doc))
    doc = json.loads((f / "histogram.json").read_text())
    doc["kernels"][0]["predicted_time_saved_share"] = None         # no prediction (no PC sampling)
    (f / "histogram.json").write_text(json.dumps(doc))
    out, ok = af.report(f)
    assert not ok and not out["summary"]["complete"]
    assert out["summary"]["headline"]["agrees"] is True  # bfs is intact
    assert _row(out, "nbody", "after")["status"] == "missing_document"
    nw = _row(out, "nw", "after")
    assert nw["status"] == "attribute_failed" and "program failed" in nw["attribute_error"]
    assert _row(out, "segsort", "after")["status"] == "after_missing"
    mb = _row(out, "mandelbrot", "after")
    assert mb["status"] == "before_program_failed" and "iterations wrong" in mb["program_errors"][0]
    rs = _row(out, "resample", "after")
    assert rs["status"] == "kernel_not_in_document" and rs["missing_kernel"] == "resample_before"
    assert _row(out, "histogram", "after_sorted")["status"] == "no_prediction"
    not_judged = out["summary"]["same_work"]["not_judged"] + out["summary"]["changes_work"]["not_judged"]
    assert len(not_judged) == sum(1 for r in out["fixes"] if r["error_points"] is None) == 1 + 1 + 1 + 1 + 2 + 2  # nbody, nw, segsort, mandelbrot, resample, histogram
    lines = af.summary_lines(out, ok)
    assert any("nbody after not judged: missing_document" in ln for ln in lines)
    _valid(out)


def test_bad_input_and_the_output_rule(tmp_path, capsys):
    assert af.main([str(tmp_path / "none")]) == 2
    f = _folder(tmp_path)
    (f / "bfs.json").write_text("{not json")
    with pytest.raises(InputError):
        af.report(f)
    (f / "bfs.json").write_text(json.dumps({"schema": "divbench.attribute_programs/1"}))
    with pytest.raises(InputError, match="not a divbench.attribute/1"):
        af.report(f)
    f2 = _folder(tmp_path / "two")
    out = tmp_path / "fixes.json"
    assert af.main([str(f2), "--out", str(out), "--summary"]) == 0
    assert json.loads(out.read_text())["schema"] == af.SCHEMA
    assert af.main([str(f2), "--out", str(f2 / "bfs.json")]) == 2  # never overwrites an input
    assert "attribute-fixes: headline" in capsys.readouterr().out


def test_the_stage_and_the_program_list_the_modules_fixes():
    stage = (ROOT / "scripts" / "gpu" / "54-attribute-fixes.sh").read_text()
    entries = re.search(r'MODES="([^"]*)"', stage).group(1).split()
    table = {e.split(":")[0]: e.split(":")[1].split(",") for e in entries}
    assert table == {m: list(v) for m, v in af.FIXES.items()}
    source = (ROOT / "tests" / "attribute" / "fixes.cu").read_text()
    for mode, fixes in af.FIXES.items():
        listed = re.search(r'\{"%s", run_\w+, \{([^}]*)\}\}' % mode, source).group(1)
        assert [v.strip(' "') for v in listed.split(",")] == ["before", *fixes], mode
        for v in ["before", *fixes]:
            assert f'extern "C" __global__ void {mode}_{v}(' in source, f"{mode}_{v}: the timed kernel's name"
