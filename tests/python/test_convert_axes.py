"""scripts/divbench/convert_axes.py: older results gain point.axes and config.axes, nothing else changes (the
same bytes apart from the added keys, every number's text kept), a converted file converts to itself, and
every committed result carries axes. The readers read both shapes (test_gate.py: point labels)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from divbench import convert_axes as ca
from divbench import results as dr

ROOT = Path(__file__).resolve().parents[2]

OLD_KWAY = """{
  "schema": "divbench.result/1",
  "experiment": "kway",
  "device": {
    "name": "SYNTHETIC",
    "cc": "9.0"
  },
  "command": "synthetic",
  "config": {
    "axis": "k",
    "ks": [1, 2]
  },
  "points": [
    {
      "k": 1.0,
      "median_cycles": 280911.0,
      "gpu_ms": 0.44166299999999997,
      "n": 264,
      "placement": 0,
      "samples": {
        "cycles": [280911, 280912],
        "smid": [0, 1]
      }
    },
    {
      "k": 2.0,
      "median_cycles": 561097.0,
      "gpu_ms": 6.05e-05,
      "n": 264,
      "placement": 0
    }
  ],
  "summary": {}
}
"""


def test_an_older_file_gains_its_axes_and_nothing_else_changes(tmp_path):
    f = tmp_path / "kway.json"
    f.write_text(OLD_KWAY)
    assert ca.main([str(f)]) == 0
    text = f.read_text()
    doc = json.loads(text)
    assert [p["axes"] for p in doc["points"]] == [{"placement": 0, "k": 1}, {"placement": 0, "k": 2}]
    assert doc["config"]["axes"] == [
        {"name": "placement", "type": "int", "unit": "placement", "option": "--placements", "values": [0]},
        {"name": "k", "type": "int", "unit": "paths", "option": "--k", "values": [1, 2]}]
    assert doc["converted_by"]["script"] == "scripts/divbench/convert_axes.py"
    assert list(doc)[list(doc).index("command") + 1] == "converted_by"
    # every number keeps its text (an older writer's 17 digits too); axes sit before the samples
    assert '"gpu_ms": 0.44166299999999997,' in text and '"gpu_ms": 6.05e-05,' in text
    assert list(doc["points"][0])[-2:] == ["axes", "samples"]
    # the file minus what was added is the file that was there
    old = json.loads(OLD_KWAY)
    doc.pop("converted_by")
    doc["config"].pop("axes")
    for p in doc["points"]:
        p.pop("axes")
    assert doc == old
    # converting again changes nothing
    assert ca.main([str(f)]) == 0 and f.read_text() == text
    assert ca.main([str(f), "--check"]) == 0


def test_check_names_a_file_without_axes_and_bad_input_is_one_line(tmp_path, capsys):
    f = tmp_path / "kway.json"
    f.write_text(OLD_KWAY)
    assert ca.main([str(f), "--check"]) == 1
    assert f.read_text() == OLD_KWAY  # --check writes nothing
    broken = json.loads(OLD_KWAY)
    del broken["points"][1]["k"]
    g = tmp_path / "broken.json"
    g.write_text(json.dumps(broken))
    capsys.readouterr()
    assert ca.main([str(g)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "points[1] gives axes ['placement'], expected ['k', 'placement']" in err
    unknown = json.loads(OLD_KWAY)
    unknown["experiment"] = "nope"
    g.write_text(json.dumps(unknown))
    assert ca.main([str(g)]) == 2 and "'nope' has no declared axes" in capsys.readouterr().err


def test_every_committed_result_carries_its_axes():
    p = subprocess.run([sys.executable, "-m", "divbench.convert_axes", "results", "--check"], cwd=ROOT,
                       capture_output=True, text=True, env={"PYTHONPATH": str(ROOT / "scripts")})
    assert p.returncode == 0, p.stderr
    files = ca.result_files([str(ROOT / "results")])
    assert files
    for f in files:
        doc = json.loads(f.read_text())
        names = [a["name"] for a in doc["config"]["axes"]]
        for p in doc["points"]:
            assert list(p["axes"]) == names, f
            # the reader takes the file's axes, and they agree with the older keys they came from (an
            # experiment newer than config.axes, as memory, has no older keys)
            if doc["experiment"] in dr.LEGACY_AXES:
                assert dr.point_coords(p, doc["experiment"]) == dr.legacy_point_axes(doc["experiment"], p)


@pytest.mark.parametrize("exp", sorted(ca.AXIS_META))
def test_the_legacy_table_and_the_converter_name_the_same_axes(exp):
    assert [name for name, _ in dr.LEGACY_AXES[exp]] == list(ca.AXIS_META[exp])
