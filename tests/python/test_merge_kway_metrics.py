"""scripts/divbench/merge_kway_metrics.py (run by scripts/gpu/30-metrics.sh) on synthetic inputs built here
(no real results): the side-by-side table (every point's launch first, then the metric launches of all
points in one batch), the ncu CSV parser, and bad input (exit 2, one line, no output)."""
import json
import subprocess
import sys

import pytest

from divbench import merge_kway_metrics as merger
from divbench import schemas
from divbench.paths import repo_root

R, I, T = merger.RATIO, merger.INST, merger.THREAD_INST
P, PR = merger.PRED_ON, merger.PRED_ON_RATIO
B, BU, BP = merger.BRANCH_TARGETS, merger.BRANCH_UNIFORM, merger.BRANCH_UNIFORM_PCT
HEADER = ['ID', 'Process ID', 'Process Name', 'Host Name', 'Kernel Name', 'Context', 'Stream', 'Block Size',
          'Grid Size', 'Device', 'CC', 'Section Name', 'Metric Name', 'Metric Unit', 'Metric Value']


def counts(k, overhead=50.0, per_path=7000.0):
    """All eight counters of a k-way kernel: each path's instructions run by 32/k lanes, one lane in
    eight predicated off in the overhead, one divergent branch target per extra path."""
    inst = overhead + k * per_path
    thread = 32 * overhead + 32 * per_path
    pred_on = 28 * overhead + 32 * per_path
    targets = 10.0 + per_path / 10 + (k - 1)
    uniform = targets - (k - 1)
    return {I: inst, T: thread, R: thread / inst, P: pred_on, PR: pred_on / inst, B: targets, BU: uniform,
            BP: 100.0 * uniform / targets}


def twin_counts(k):
    return counts(k, per_path=0.0)


def csv_text(launch_values, thousands=True, unit_inst="inst"):
    q = lambda s: '"' + s + '"'
    lines = ["==PROF== Connected to process 1", ",".join(q(h) for h in HEADER)]
    for lid, vals in enumerate(launch_values):
        for name, v in vals.items():
            unit = "" if name in (R, PR) else "%" if name == BP else unit_inst
            shown = v / 1e3 if unit.startswith("K") else v
            text = f"{shown:,.6f}" if thousands else f"{shown:.6f}"
            row = [str(lid), "1", "divbench", "h", "kway_kernel", "1", "7", "(32, 1, 1)", "(1, 1, 1)", "0", "9.0",
                   "Command line profiler metrics", name, unit, text]
            lines.append(",".join(q(c) for c in row))
    return "\n".join(lines) + "\n"


def divbench_doc(ks, scale=1.0):
    pts = []
    for k in ks:
        full, twin = counts(k), twin_counts(k)
        full = {n: v * (scale if n != R else 1.0) for n, v in full.items()}
        pts.append({"k": k, "axes": {"placement": 0, "k": k}, "median_cycles": 1000.0 * k, "clock_mhz": 1980.0, "wall_ms": 2.5, "launches": 201,
                    "metrics": {"available": True, "values": full, "twin": twin, "profile_ms": 40.0,
                                "twin_profile_ms": 30.0, "region": {"ratio": merger.region(full, twin)}}})
    return {"schema": "divbench.result/1", "experiment": "kway", "config": {},
            "device": {"name": "synthetic", "cc": "9.0", "sm_count": 132, "sm_clock_khz": 1980000}, "git": "synthetic",
            "toolkit": "13.0", "created": "2026-01-01T00:00:00Z", "host": "synthetic", "command": "synthetic",
            "points": pts}


def ncu_launches(ks, point_launches=1):
    """Every point's own launch(es), then the full and twin launch of every point (the metric batch)."""
    seq = []
    for k in ks:
        seq += [counts(k)] * point_launches
    for k in ks:
        seq += [counts(k), twin_counts(k)]
    return seq


def run_merger(tmp_path, doc, csv, expect_rc=0, extra=()):
    dj, nc, out = (tmp_path / n for n in ("d.json", "n.csv", "out.json"))
    dj.write_text(json.dumps(doc))
    nc.write_text(csv)
    p = subprocess.run([sys.executable, "-m", "divbench.merge_kway_metrics", "--divbench", str(dj), "--ncu", str(nc),
                        "--out", str(out), *extra], capture_output=True, text=True, cwd=repo_root() / "scripts")
    assert p.returncode == expect_rc, p.stderr + p.stdout
    if expect_rc:
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("merge_kway_metrics: error: ")
        assert not out.exists()
        return p.stderr
    assert schemas.validate_file(schemas.load_catalog(), out) == []  # schemas/divbench.kway_metrics.schema.json
    return json.loads(out.read_text())


def test_agreement_and_region(tmp_path):
    ks = [1, 2, 4, 8, 16, 32]
    res = run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks)))
    e = res["experiments"][0]
    assert [x["k"] for x in e["per_k"]] == ks
    assert e["summary"]["agree_within_2pct"] and e["summary"]["region_within_10pct_of_32_over_k"]
    assert e["summary"]["metrics_compared"] == merger.METRICS
    for x in e["per_k"]:
        assert x["region_ratio"]["ncu"] == pytest.approx(32.0 / x["k"], abs=1e-9)
        assert x["rel_diff"][I] == pytest.approx(0.0, abs=1e-9)
        assert x["rel_diff"][BP] == pytest.approx(0.0, abs=1e-7)  # ncu prints 6 decimals
        # The region alone: 32 lanes on for every path instruction; the uniform share of the extra targets.
        assert x["region_pred_on_ratio"]["ncu"] == pytest.approx(32.0 / x["k"], abs=1e-9)
        full, twin = counts(x["k"]), twin_counts(x["k"])
        assert x["region_branch_uniform_pct"]["ncu"] == pytest.approx(
            100.0 * (full[BU] - twin[BU]) / (full[B] - twin[B]), abs=1e-9)


def test_points_are_matched_in_run_order(tmp_path):
    ks = [4, 1, 2]  # the result's order is the launch order; never re-sorted
    e = run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks)))["experiments"][0]
    assert [x["k"] for x in e["per_k"]] == ks
    assert e["summary"]["max_abs_rel_diff_divbench_vs_ncu"] == pytest.approx(0.0, abs=1e-6)


def test_more_launches_per_point(tmp_path):
    ks = [1, 2]
    e = run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks, point_launches=3)),
                   extra=("--point-launches", "3"))["experiments"][0]
    assert e["summary"]["agree_within_2pct"]


def test_points_without_twin_or_metrics(tmp_path):
    doc = divbench_doc([1, 2, 4])
    doc["experiment"] = "predication"
    del doc["points"][0]["metrics"]          # a point with no metric launch
    m = doc["points"][1]["metrics"]
    del m["twin"], m["twin_profile_ms"]      # a point without a zero-work twin
    seq = [counts(1), counts(2), counts(4), counts(2), counts(4), twin_counts(4)]
    e = run_merger(tmp_path, doc, csv_text(seq))["experiments"][0]
    assert [x["k"] for x in e["per_k"]] == [2, 4]
    assert e["per_k"][0]["ncu_twin"] == {} and e["per_k"][0]["region_ratio"]["ncu"] is None
    assert "max_abs_region_rel_err" not in e["summary"]  # 32/k is a k-way expectation only
    assert e["summary"]["agree_within_2pct"]


def test_disagreement_is_reported(tmp_path):
    ks = [1, 32]
    s = run_merger(tmp_path, divbench_doc(ks, scale=1.05), csv_text(ncu_launches(ks)))["experiments"][0]["summary"]
    assert not s["agree_within_2pct"]
    assert s["max_abs_rel_diff_divbench_vs_ncu"] == pytest.approx(0.05, abs=1e-6)


def test_wrong_launch_count_fails(tmp_path):
    ks = [1, 2]
    err = run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks)[:-1]), expect_rc=2)
    assert "expected 1 per point x 2 points + 4 metric launches" in err


def test_unavailable_divbench_metrics_fail(tmp_path):
    doc = divbench_doc([1, 2])
    doc["points"][1]["metrics"] = {"available": False, "reason": "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}
    assert "INSUFFICIENT_PRIVILEGES" in run_merger(tmp_path, doc, csv_text(ncu_launches([1, 2])), expect_rc=2)


def test_not_a_result_fails(tmp_path):
    doc = divbench_doc([1, 2])
    doc["device"]["name"] = 7
    assert "device.name is 7" in run_merger(tmp_path, doc, csv_text(ncu_launches([1, 2])), expect_rc=2)


def test_provenance_is_carried(tmp_path):
    res = run_merger(tmp_path, divbench_doc([1, 2]), csv_text(ncu_launches([1, 2])))
    assert res["provenance"] == {"toolkit": "13.0", "git": "synthetic", "created": "2026-01-01T00:00:00Z",
                                 "host": "synthetic", "command": "synthetic"}


def test_malformed_result_fails(tmp_path):
    doc = divbench_doc([1, 2])
    del doc["points"][0]["k"]
    assert "malformed divbench result" in run_merger(tmp_path, doc, csv_text(ncu_launches([1, 2])), expect_rc=2)


def test_numbers_and_units():
    assert merger.parse_number("1,234,567") == 1234567.0
    assert merger.parse_number("31.95") == 31.95
    assert merger.parse_number("2.5", "Kinst") == 2500.0
    with pytest.raises(merger.MergeError):
        merger.parse_number("n/a")
    assert merger.parse_number("1.5", "Kbranch_target") == 1500.0
    assert merger.parse_number("87.5", "%") == 87.5
    rows = merger.parse_ncu_csv(csv_text(ncu_launches([4]), unit_inst="Kinst"))
    assert len(rows) == 3 and rows[0][2][I] == pytest.approx(counts(4)[I], abs=1e-3)


def test_csv_without_rows_fails():
    with pytest.raises(merger.MergeError):
        merger.parse_ncu_csv("==PROF== No kernels were profiled.\n")
