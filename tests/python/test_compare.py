"""scripts/compare.py on synthetic fixtures: rows, normalization, formats, refusals, bad input."""
import csv
import io
import json
import subprocess
import sys

import pytest

from divbench import compare
from divbench import results as dr
from conftest import ROOT


def run(args, capsys):
    rc = compare.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def rows_of(csv_text):
    return list(csv.DictReader(io.StringIO(csv_text)))


def test_rows_and_values(results, capsys):
    rc, out, err = run([results, "--csv"], capsys)
    assert rc == 0, err
    rows = rows_of(out)
    measured = [r for r in rows if r["source"] == "measured"]
    paper = [r for r in rows if r["source"] == "paper"]
    assert [r["gpu"] for r in measured] == ["SYNTHETIC GPU A (gpu_a)", "SYNTHETIC GPU B (gpu_b)"]
    assert len(paper) == 5
    a = measured[0]
    assert float(a["s"]) == 1000.0 and float(a["c"]) == 10.0 and a["cc"] == "9.0"
    assert float(a["c_over_s"]) == pytest.approx(0.01)
    assert float(a["ratio32"]) == pytest.approx((32 * 1000 + 10) / 1010)
    assert float(a["eff32"]) == pytest.approx(1.1) and float(a["eff32_region"]) == pytest.approx(1.0)
    assert float(a["pred_branchy"]) == 1.99 and float(a["pred_predicated"]) == 1.01
    assert a["occ_penalty"] == "30–31 (kernel time 30–33)"
    hopper = next(r for r in paper if "Hopper" in r["gpu"])
    assert float(hopper["s"]) == 58100 and hopper["occ_penalty"] == "28–31" and float(hopper["eff32"]) == 1.21
    pascal = next(r for r in paper if "Pascal" in r["gpu"])
    assert float(pascal["pred_branchy"]) == 1.94 and pascal["eff32"] == "" and pascal["c"] == ""


def test_default_baseline_normalizes_each_set(results, capsys):
    rc, out, _ = run([results, "--csv"], capsys)
    rows = {r["gpu"]: r for r in rows_of(out)}
    assert float(rows["SYNTHETIC GPU A (gpu_a)"]["s_norm"]) == 1.0       # cc 9.0 = Hopper: the measured baseline
    assert float(rows["SYNTHETIC GPU B (gpu_b)"]["s_norm"]) == pytest.approx(0.8)
    assert float(rows["paper: Hopper sm_90"]["s_norm"]) == 1.0
    assert float(rows["paper: Ampere sm_86"]["s_norm"]) == pytest.approx(54.1 / 58.1)


def test_baseline_by_folder_name(results, capsys):
    rc, out, _ = run([results, "--csv", "--baseline", "gpu_b"], capsys)
    rows = {r["gpu"]: r for r in rows_of(out)}
    assert float(rows["SYNTHETIC GPU A (gpu_a)"]["s_norm"]) == pytest.approx(1.25)
    assert float(rows["paper: Ampere sm_86"]["s_norm"]) == 1.0          # gpu_b is cc 8.6: Ampere


def test_unknown_baseline(results, capsys):
    rc, _, err = run([results, "--baseline", "volta"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "--baseline 'volta' matches no GPU" in err


def test_console_and_markdown(results, capsys):
    rc, out, _ = run([results], capsys)
    assert rc == 0 and out.splitlines()[0].startswith("source") and "SYNTHETIC GPU A" in out
    assert "s norm: measured rows / SYNTHETIC GPU A (gpu_a), paper rows / paper: Hopper sm_90" in out
    rc, out, _ = run([results, "--markdown"], capsys)
    lines = out.splitlines()
    assert lines[0].startswith("| source |") and lines[1].startswith("|---|")
    assert "| ≈2,000 |" in out


def test_files_and_out(results, capsys, tmp_path):
    dest = tmp_path / "t.csv"
    rc, out, _ = run([results / "gpu_a" / "kway.json", "--reference", "none", "--csv", "--out", dest], capsys)
    assert rc == 0 and out == ""
    rows = rows_of(dest.read_text())
    assert len(rows) == 1 and rows[0]["s_norm"] == "1.0"


def test_mismatched_iters_refused(results, capsys, fixture_factory):
    f = results / "gpu_b" / "kway.json"
    d = json.loads(f.read_text())
    d["config"]["iters"] = 200
    f.write_text(json.dumps(d))
    rc, out, err = run([results], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("compare: error: mismatched configurations:") and "iters=100" in err and "iters=200" in err
    assert "--normalize-iters" in err and err.count("\n") == 1
    rc, out, err = run([results, "--csv", "--normalize-iters"], capsys)
    assert rc == 0, err
    rows = {r["gpu"]: r for r in rows_of(out)}
    assert float(rows["SYNTHETIC GPU A (gpu_a)"]["s"]) == pytest.approx(10.0)   # 1000 cycles / 100 iters
    assert float(rows["SYNTHETIC GPU B (gpu_b)"]["s"]) == pytest.approx(4.0)    # 800 / 200
    rc, out, _ = run([results, "--normalize-iters"], capsys)
    assert "cycles per iteration and path" in out


@pytest.mark.parametrize("key, value", [("body", "sfu"), ("map", "contiguous")])
def test_body_or_map_is_selected_explicitly(results, capsys, key, value):
    """Only k-way results of the selected body and map are compared; choosing another is explicit."""
    f = results / "gpu_b" / "kway.json"
    d = json.loads(f.read_text())
    d["config"][key] = value
    d["config"]["iters"] = 200
    f.write_text(json.dumps(d))
    # the other body/map is simply not selected; selecting it for both GPUs is the explicit way
    rc, out, err = run([results, "--csv", "--normalize-iters", f"--{key}", value], capsys)
    assert rc == 0
    rows = {r["gpu"]: r for r in rows_of(out)}
    assert rows["SYNTHETIC GPU A (gpu_a)"]["s"] == ""                  # gpu_a has no such sweep
    rc, out, err = run([results / "gpu_a" / "kway.json", f, "--normalize-iters"], capsys)
    assert rc == 0  # different folders, and gpu_b's file is not the default body: not compared
    g = results / "gpu_c"
    g.mkdir()
    d2 = json.loads((results / "gpu_a" / "kway.json").read_text())
    d2["config"][key] = value
    (g / "kway.json").write_text(json.dumps(d2))
    rc, out, err = run([results, "--normalize-iters", f"--{key}", value], capsys)
    assert rc == 0  # same body/map on gpu_b and gpu_c, iters normalized explicitly


def test_mismatched_body_refused(results, capsys):
    """Two results selected for comparison with different work bodies: refused."""
    fa = results / "gpu_a" / "kway.json"
    fb = results / "gpu_b" / "kway.json"
    da = json.loads(fa.read_text())
    db = json.loads(fb.read_text())
    db["config"]["body"] = da["config"]["body"] = "sfu"
    db["config"]["map"] = "contiguous"
    fa.write_text(json.dumps(da))
    fb.write_text(json.dumps(db))
    checks = [(dr.load_result(fa)), (dr.load_result(fb))]
    with pytest.raises(compare.CompareError, match="map='modulo'.*map='contiguous'"):
        compare.check_configs([(None, checks[0]), (None, checks[1])], normalize_iters=True)


@pytest.mark.parametrize("content, message", [
    ("{oops", "not valid JSON"),
    ('{"schema": "divbench.result/0"}', "expected 'divbench.result/1'"),
    ('{"schema": "divbench.result/1", "experiment": "kway", "points": []}', "missing key 'device'"),
    ("[1, 2]", "expected a JSON object"),
])
def test_bad_file_one_line(tmp_path, capsys, content, message):
    f = tmp_path / "bad.json"
    f.write_text(content)
    rc, out, err = run([f], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("compare: error:") and message in err and "bad.json" in err


def test_missing_fit(results, capsys):
    f = results / "gpu_a" / "kway.json"
    d = json.loads(f.read_text())
    del d["fit"]
    f.write_text(json.dumps(d))
    rc, _, err = run([results], capsys)
    assert rc == 2 and "has no fit" in err


def test_missing_path_and_empty(tmp_path, capsys):
    rc, _, err = run([tmp_path / "nope"], capsys)
    assert rc == 2 and "no such file or directory" in err
    (tmp_path / "empty").mkdir()
    rc, _, err = run([tmp_path / "empty", "--reference", "none"], capsys)
    assert rc == 2 and "no results found" in err


def test_bad_reference(results, capsys, tmp_path):
    f = tmp_path / "ref.json"
    f.write_text('{"schema": "x"}')
    rc, _, err = run([results, "--reference", f], capsys)
    assert rc == 2 and "expected 'divbench.reference/1'" in err


def test_cli_usage_error():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"), "--markdown", "--csv"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "not allowed with" in p.stderr


# --- placement spread and predicted slopes ---

def with_spread(results):
    f = results / "gpu_a" / "kway.json"
    d = json.loads(f.read_text())
    d["summary"].update(layout_placements=4, s_layout_min=990.0, s_layout_max=1020.0, s_layout_spread_rel=0.03)
    f.write_text(json.dumps(d))


def test_placement_spread_beside_s(results, capsys):
    with_spread(results)
    rc, out, _ = run([results, "--markdown"], capsys)
    assert rc == 0
    row = next(line for line in out.splitlines() if "SYNTHETIC GPU A" in line)
    assert "| 1,000 | 990–1,020 (3.00%, 4 placements) |" in row
    gpu_b = next(line for line in out.splitlines() if "SYNTHETIC GPU B" in line)
    assert "| 800 | – |" in gpu_b  # no spread recorded: a dash, not a made-up number
    rc, out, _ = run([results, "--csv", "--normalize-iters"], capsys)
    a = next(r for r in rows_of(out) if r["gpu"].startswith("SYNTHETIC GPU A"))
    assert a["s_spread"] == "9.9–10.2 (3.00%, 4 placements)"


def write_predictions(fixture_factory, results, preds):
    for arch, a, kw in preds:
        fixture_factory["write"](results / "predicted", f"{arch}.json", fixture_factory["predicted"](arch, a, **kw))


def test_predicted_rows_beside_the_paper_and_checked(results, fixture_factory, capsys):
    write_predictions(fixture_factory, results, [("sm_90", 9.9, {}), ("sm_80", 7.0, {}), ("sm_61", None, {}),
                                                 ("sm_120", 6.0, {"layout": "flat"})])
    rc, out, err = run([results, "--csv"], capsys)
    assert rc == 0, err
    rows = rows_of(out)
    order = [r["gpu"] for r in rows if r["source"] != "measured"]
    assert order == ["paper: Pascal sm_61", "predicted: Pascal sm_61", "predicted: Ampere sm_80", "paper: Ampere sm_86",
                     "paper: Hopper sm_90", "predicted: Hopper sm_90", "paper: Blackwell sm_110", "paper: Blackwell sm_120",
                     "predicted: Blackwell sm_120"]
    by = {r["gpu"]: r for r in rows}
    assert float(by["predicted: Hopper sm_90"]["s"]) == pytest.approx(990.0)
    assert by["predicted: Pascal sm_61"]["s"] == ""                      # not predicted: no number
    assert float(by["predicted: Ampere sm_80"]["s_norm"]) == pytest.approx(700 / 990)  # / the sm_90 prediction
    assert float(by["predicted: Blackwell sm_120"]["s"]) == pytest.approx(600.0)      # the flat layout
    # the sm_90 prediction meets the measured cc 9.0 GPU: -1%
    assert by["predicted: Hopper sm_90"]["pred_err"] == "-1.00% (gpu_a)"
    assert by["SYNTHETIC GPU A (gpu_a)"]["pred_err"] == "-1.00% (predicted)"
    rc, out, _ = run([results, "--markdown"], capsys)
    assert ("prediction check sm_90: predicted s 990 vs measured 1,000 on SYNTHETIC GPU A (gpu_a): -1.00% "
            "(model constants: SYNTHETIC constants (tests/python/conftest.py))") in out
    assert "sm_61: not predicted: no loop found" in out and "predicted rows / predicted: Hopper sm_90" in out


def test_prediction_error_limit_exits_1(results, fixture_factory, capsys):
    write_predictions(fixture_factory, results, [("sm_90", 8.0, {})])
    rc, out, err = run([results, "--max-prediction-error", "0.1"], capsys)
    assert rc == 1 and "prediction sm_90 is off the measured s of SYNTHETIC GPU A (gpu_a) by -20.00%" in err
    assert "predicted: Hopper sm_90" in out                                # the table is still printed
    assert run([results, "--max-prediction-error", "0.25"], capsys)[0] == 0


def test_predictions_of_another_iteration_count_are_refused(results, fixture_factory, capsys):
    write_predictions(fixture_factory, results, [("sm_90", 9.9, {"n": 10000})])
    rc, _, err = run([results], capsys)
    assert rc == 2 and "predicts n=10000" in err and "--normalize-iters" in err
    rc, out, _ = run([results, "--csv", "--normalize-iters"], capsys)
    assert rc == 0
    assert float(next(r for r in rows_of(out) if r["gpu"] == "predicted: Hopper sm_90")["s"]) == pytest.approx(9.9)


def test_no_predicted_folder_or_none(results, fixture_factory, capsys):
    rc, out, _ = run([results, "--csv"], capsys)
    assert rc == 0 and "predicted" not in out
    write_predictions(fixture_factory, results, [("sm_90", 9.9, {})])
    rc, out, _ = run([results, "--csv", "--predicted", "none"], capsys)
    assert rc == 0 and "predicted:" not in out
    rc, out, _ = run([results / "gpu_a", "--csv"], capsys)   # a GPU folder finds results/predicted beside it
    assert "predicted: Hopper sm_90" in out


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(schema="divbench.result/1"), "expected 'divbench.predicted/1'"),
    (lambda d: d.update(arch="hopper"), "expected sm_NN"),
    (lambda d: d["bodies"][0].update(s=-5), "expected a positive number"),
    (lambda d: d.update(bodies={"fma_chain": 1}), "bodies must be a list"),
])
def test_bad_prediction_is_one_line(results, fixture_factory, capsys, mutate, message):
    d = fixture_factory["predicted"]("sm_90", 9.9)
    mutate(d)
    fixture_factory["write"](results / "predicted", "sm_90.json", d)
    rc, out, err = run([results], capsys)
    assert rc == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("compare: error:") and message in lines[0]


def test_occupancy_penalty_of_the_warps_per_sm_sweep(results, fixture_factory, capsys):
    ff = fixture_factory
    ff["write"](results / "gpu_a", "occupancy.json", ff["occupancy_v2"](ff["device"]("SYNTHETIC GPU A", "9.0")))
    rc, out, _ = run([results, "--csv"], capsys)
    a = next(r for r in rows_of(out) if r["gpu"].startswith("SYNTHETIC GPU A"))
    assert a["occ_penalty"] == "31.1–31.5 (kernel time, launch overhead subtracted)"


def test_occupancy_penalty_is_the_raw_ratio_with_the_informative_corrections(results, fixture_factory, capsys):
    """A summary with the raw ratio and penalty_bounded per shape: the raw range (a lower bound) and the
    bounded correction only over the shapes where it is a measurement (null elsewhere), never above K."""
    ff = fixture_factory
    doc = ff["occupancy_v2"](ff["device"]("SYNTHETIC GPU A", "9.0"))
    series = doc["summary"]["series"]
    for i, x in enumerate(series):
        x["penalty_bounded"] = None if i % 2 else 31.8 + 0.01 * i
    doc["summary"]["kernel_penalty_raw_min"] = min(x["kernel_penalty_raw"] for x in series)
    doc["summary"]["kernel_penalty_raw_max"] = max(x["kernel_penalty_raw"] for x in series)
    ff["write"](results / "gpu_a", "occupancy.json", doc)
    rc, out, _ = run([results, "--csv"], capsys)
    a = next(r for r in rows_of(out) if r["gpu"].startswith("SYNTHETIC GPU A"))
    informative = [x["penalty_bounded"] for x in series if x["penalty_bounded"] is not None]
    assert a["occ_penalty"].startswith("29.") and "(raw kernel event times, a lower bound; corrected 31.8" in a["occ_penalty"]
    assert f"at {len(informative)} of {len(series)} shapes)" in a["occ_penalty"]


def test_order_notes_state_the_rule_and_the_producer_consumer_conclusion(tmp_path):
    """compare.md restates the path-order rule and the producer/consumer conclusion of each GPU that has
    them (the committed H200 run), and says nothing for a folder without those results."""
    (h200,) = dr.load_gpus([ROOT / "results" / "h200"])
    notes = compare.order_notes([h200])
    assert notes[0].startswith("path order on NVIDIA H200 (h200, --probe order): the side with fewer active lanes")
    assert notes[1].startswith("producer/consumer on NVIDIA H200 (h200): the producer side entered first in")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "kway.json").write_text((ROOT / "results" / "h200" / "kway_default.json").read_text())
    assert compare.order_notes(dr.load_gpus([bare])) == []


def test_cost_decomposition_columns(fixture_factory, capsys):
    """a, b and c of --sweep cost with their spreads over placements, per GPU folder: the body
    of the k-way row; a folder without a cost result leaves the cells empty."""
    f = fixture_factory
    root = f["make_results"](f["tmp"] / "results", with_static=False, with_occupancy=False)
    dev = f["device"]("SYNTHETIC GPU A", "9.0")
    bodies = [{"body": "sfu", "a": 58.0, "a_min": 57.0, "a_max": 59.0, "b": 1.0, "b_min": 1.0, "b_max": 1.0,
               "c": 5.0, "c_min": 5.0, "c_max": 5.0},
              {"body": "fma_chain", "a": 28.0, "a_min": 27.5, "a_max": 28.5, "b": 179.25, "b_min": 179.0,
               "b_max": 181.0, "c": 767.0, "c_min": 765.0, "c_max": 768.0}]
    quiet = [{"k": 1, "median_cycles": 1000.0, "min_cycles": 1000.0, "max_cycles": 1000.0}]  # no points: no_points
    f["write"](root / "gpu_a", "cost.json", f["record"]("cost", dev, {"axis": "k,n"}, quiet, {"bodies": bodies}))
    rc, out, err = run([root, "--csv"], capsys)
    assert rc == 0, err
    rows = {r["gpu"]: r for r in rows_of(out)}
    a = rows["SYNTHETIC GPU A (gpu_a)"]
    assert (a["a"], a["b"], a["c_cost"]) == ("28 (27.5–28.5)", "179.2 (179–181)", "767 (765–768)")
    b = rows["SYNTHETIC GPU B (gpu_b)"]
    assert (b["a"], b["b"], b["c_cost"]) == ("", "", "")


def test_predictions_confronted_with_the_paper(results, fixture_factory, capsys):
    # ratios to the sm_90 prediction beside the paper's, with the interval from loop_cost.json beside the GPU:
    # each s in [s(1 - e), (s + band*n)(1 + e)], n = 100 in the synthetic predictions
    write_predictions(fixture_factory, results, [("sm_90", 9.9, {}), ("sm_120", 6.0, {}), ("sm_61", 12.0, {})])
    rc, out, _ = run([results, "--markdown"], capsys)
    assert rc == 0 and "confronted with the paper" not in out     # no loop_cost.json: no interval, no line
    (results / "gpu_a" / "loop_cost.json").write_text(json.dumps(
        {"schema": "divbench.loop_cost/1", "placement_band_cycles": {"below": 0, "above": 1.0},
         "oos_max_outside_interval_rel": 0.05}))
    rc, out, _ = run([results, "--markdown"], capsys)
    assert rc == 0
    line = next(l for l in out.splitlines() if l.startswith("predictions confronted with the paper"))
    lo, hi = 600 * 0.95 / (1090 * 1.05), 700 * 1.05 / (990 * 0.95)
    assert f"Blackwell sm_120 {600 / 990:.3f} [{lo:.3f}, {hi:.3f}] vs {46.1 / 58.1:.3f}" in line
    assert "DISAGREE: the paper" in line and "above the interval" in line
    assert f"Pascal sm_61 {1200 / 990:.3f}" in line and "inside the interval" in line
    assert "+1 cycles per iteration" in line and "5.0%" in line
