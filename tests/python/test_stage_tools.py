"""The small tools the GPU stages call instead of inline Python: divbench.scaled_copy (the gate's
positive control, scripts/gpu/10-kway.sh) and divbench.attribute_top (the kernel 50-attribute.sh
attributes alone), on the committed H200 results."""
import json

from divbench import attribute_top, scaled_copy
from divbench.compare import main as compare_main
from divbench.paths import repo_root

H200 = repo_root() / "results" / "h200"


def test_scaled_copy_scales_every_cycle_count_and_the_gate_sees_it(tmp_path, capsys):
    src = H200 / "kway_rerun.json"
    out = tmp_path / "scaled.json"
    assert scaled_copy.main([str(src), str(out), "--factor", "1.05"]) == 0
    a, b = json.loads(src.read_text()), json.loads(out.read_text())
    assert len(a["points"]) == len(b["points"])
    for p, q in zip(a["points"], b["points"]):
        assert q["median_cycles"] == p["median_cycles"] * 1.05
        assert q["samples"]["cycles"] == [round(c * 1.05) for c in p["samples"]["cycles"]]
    # the gate on the run and its scaled copy: a significant change (exit 1), as 10-kway.sh expects
    assert compare_main(["--gate", str(H200 / "kway_default.json"), str(out)]) == 1
    # and on the run and itself: no change
    assert compare_main(["--gate", str(H200 / "kway_default.json"), str(src)]) == 0


def test_scaled_copy_refuses_a_file_that_is_not_json(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert scaled_copy.main([str(bad), str(tmp_path / "out.json"), "--factor", "2"]) == 2
    assert not (tmp_path / "out.json").exists()


def test_attribute_top_names_the_kernel_with_the_most_cycles_lost(capsys):
    doc = json.loads((H200 / "attribute" / "thrust.json").read_text())
    want = max(doc["kernels"], key=lambda k: k["cycles_lost"])["name"]
    assert attribute_top.main([str(H200 / "attribute" / "thrust.json")]) == 0
    assert capsys.readouterr().out.strip() == want
    # the kernel the committed run attributed alone
    one = json.loads((H200 / "attribute" / "thrust_one_kernel.json").read_text())
    assert [k["name"] for k in one["kernels"]] == [want]


def test_attribute_top_refuses_a_report_without_kernels(tmp_path, capsys):
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"kernels": []}))
    assert attribute_top.main([str(empty)]) == 2
    assert capsys.readouterr().err.startswith("attribute_top: error: ")
