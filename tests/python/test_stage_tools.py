"""The small tools the GPU stages call instead of inline Python: divbench.scaled_copy (the gate's
positive control, scripts/gpu/10-kway.sh) and divbench.attribute_top (the kernel 50-attribute.sh
attributes alone), on the committed H200 results; divbench.attribute_diff_summary (55-attribute-diff.sh's summary
lines) on verdicts made here."""
import json

from divbench import attribute_diff_summary, attribute_top, scaled_copy
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


def _verdict(folder, pair, kernels):
    """A divbench.attribute_diff/1 verdict's parts the summary reads: kernels with branches changed or not."""
    ks = [{"name": n, "branches": [{"changed": c} for c in changes]} for n, changes in kernels]
    matched = sum(len(k["branches"]) for k in ks)
    changed = sum(b["changed"] for k in ks for b in k["branches"])
    (folder / f"{pair}.verdict.json").write_text(json.dumps(
        {"schema": "divbench.attribute_diff/1", "kernels": ks,
         "summary": {"branches_matched": matched, "branches_changed": changed}}))


def test_attribute_diff_summary_counts_deterministic_kernels(tmp_path, capsys):
    _verdict(tmp_path, "moved", [("k", [False, False])])
    _verdict(tmp_path, "repeat", [("k", [False, False])])
    _verdict(tmp_path, "thrust", [("onesweep", [True, False]), ("histogram", [False]), ("select", [True])])
    assert attribute_diff_summary.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "moved: 2 branches matched, 0 changed" in out
    assert "1 of 3 kernels deterministic; changed: onesweep; select" in out


def test_attribute_diff_summary_fails_when_placement_changed_counts(tmp_path, capsys):
    _verdict(tmp_path, "moved", [("k", [True, False])])
    _verdict(tmp_path, "repeat", [("k", [False])])
    _verdict(tmp_path, "thrust", [("k", [False])])
    assert attribute_diff_summary.main([str(tmp_path)]) == 1
    assert "moved: 2 branches matched, 1 changed (expect >0 and 0) FAILED" in capsys.readouterr().out
    _verdict(tmp_path, "moved", [])  # nothing matched: as bad as a change
    assert attribute_diff_summary.main([str(tmp_path)]) == 1
