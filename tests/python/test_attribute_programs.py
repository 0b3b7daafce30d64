"""divbench.attribute_programs (stage 52's judge) and divbench.launch_sampling (the launch-sampling probe's):
the committed H200 folder judged again gives the committed verdict; a folder edited so that a kernel's counts
leave the band, a kernel goes uncounted or the fault no longer names compute-sanitizer fails; the probe's
verdict on synthetic timings follows its rule."""
import json
import shutil

import pytest

from conftest import ROOT
from divbench import attribute_programs, launch_sampling
from divbench.jsonio import InputError

PROGRAMS = ROOT / "results" / "h200" / "attribute" / "programs"


def test_committed_verdict_is_regenerated():
    doc, ok = attribute_programs.report(PROGRAMS)
    committed = json.loads((ROOT / "results" / "h200" / "attribute" / "programs.json").read_text())
    assert doc["summary"] == committed["summary"]
    assert ok == committed["summary"]["ok"]


def _copy(tmp_path):
    dst = tmp_path / "programs"
    shutil.copytree(PROGRAMS, dst, ignore=shutil.ignore_patterns("*_counts"))
    return dst


def _agreeing(folder, mode):
    row = next(r for r in attribute_programs.report(folder)[0]["programs"] if r["mode"] == mode)
    return row["ok"], sum(1 for k in row["kernels"] if k.get("agrees"))


def test_counts_off_by_one_percent_fail(tmp_path):
    folder = _copy(tmp_path)
    assert _agreeing(folder, "ieee") == (True, 1)
    doc = json.loads((folder / "ieee.json").read_text())
    k = doc["kernels"][0]
    k["inst_issued"] = round(k["inst_issued"] * 1.01)
    (folder / "ieee.json").write_text(json.dumps(doc))
    assert _agreeing(folder, "ieee") == (False, 0)


def test_uncounted_kernel_and_silent_fault_fail(tmp_path):
    folder = _copy(tmp_path)
    doc = json.loads((folder / "gaussian.json").read_text())
    doc["kernels"] = doc["kernels"][:1]  # Fan2 launched (ncu saw it) but not counted
    (folder / "gaussian.json").write_text(json.dumps(doc))
    (folder / "fault.stderr").write_text("programs fault: an error\nrc=1\n")
    d, ok = attribute_programs.report(folder)
    row = next(r for r in d["programs"] if r["mode"] == "gaussian")
    assert not ok and not row["ok"] and row["kernels_counted"] == row["kernels_launched"] - 1
    assert not d["fault"]["ok"]


def test_missing_file_is_bad_input(tmp_path):
    folder = _copy(tmp_path)
    (folder / "cub_ncu.csv").unlink()
    with pytest.raises(InputError):
        attribute_programs.report(folder)


def _probe(tmp_path, sampled_ms, lost_ratio, drop_kernel=False):
    d = tmp_path / "probe"
    d.mkdir(parents=True)
    lines = []
    for i in (1, 2, 3):
        lines += [f"plain_{i} 700 ms rc=0", f"full_{i} 5300 ms rc=0", f"sampled_{i} {sampled_ms} ms rc=0"]
    lines += ["programs_full 9000 ms rc=0", "programs_sampled 8000 ms rc=0"]
    (d / "timing.txt").write_text("\n".join(lines) + "\n")
    k = lambda n, c: {"name": n, "cycles_lost": c}
    (d / "many_full.json").write_text(json.dumps({"kernels": [k("a", 100.0), k("b", 100.0)]}))
    (d / "many_sampled.json").write_text(json.dumps({"kernels": [k("a", 100.0 * lost_ratio), k("b", 100.0 * lost_ratio)]}))
    (d / "programs_full.json").write_text(json.dumps({"kernels": [k("x", 1.0), k("y", 1.0)]}))
    sampled = [k("x", 1.0)] + ([] if drop_kernel else [k("y", 1.0)])
    (d / "programs_sampled.json").write_text(json.dumps({"kernels": sampled, "collection": {
        "launch_sampling": {"runs": 2, "extrapolated": [{"name": "x"}]}}}))
    return d


def test_launch_sampling_rule(tmp_path):
    doc, ok = launch_sampling.report(_probe(tmp_path / "a", 2000, 1.01))
    assert ok and abs(doc["summary"]["overhead_sampled"] - 2000 / 700) < 1e-9
    assert not launch_sampling.report(_probe(tmp_path / "b", 2200, 1.0))[1]   # 3.14x
    assert not launch_sampling.report(_probe(tmp_path / "c", 2000, 1.03))[1]  # 3% off
    assert not launch_sampling.report(_probe(tmp_path / "d", 2000, 1.0, drop_kernel=True))[1]


def test_out_never_overwrites_an_input_but_its_own_earlier_output(tmp_path, capsys):
    folder = _copy(tmp_path)
    before = (folder / "gaussian.json").read_bytes()
    assert attribute_programs.main([str(folder), "--out", str(folder / "gaussian.json")]) == 2
    assert "is an input of this command" in capsys.readouterr().err
    assert (folder / "gaussian.json").read_bytes() == before
    out = folder / "programs.json"  # the stage writes its verdict beside what it judges, and may again
    assert attribute_programs.main([str(folder), "--out", str(out)]) == 1
    assert attribute_programs.main([str(folder), "--out", str(out)]) == 1
    assert json.loads(out.read_text())["schema"] == attribute_programs.SCHEMA
