"""scripts/divbench/merge_kway_metrics.py (run by scripts/gpu/30-metrics.sh) on synthetic inputs built here
(no real results): the side-by-side table, the ncu CSV parser, and bad input (exit 2, one line, no output)."""
import json
import subprocess
import sys

import pytest

from divbench import merge_kway_metrics as merger
from divbench.paths import repo_root

R, I, T = merger.RATIO, merger.INST, merger.THREAD_INST
HEADER = ['ID', 'Process ID', 'Process Name', 'Host Name', 'Kernel Name', 'Context', 'Stream', 'Block Size',
          'Grid Size', 'Device', 'CC', 'Section Name', 'Metric Name', 'Metric Unit', 'Metric Value']


def counts(k, overhead=50.0, per_path=7000.0):
    inst = overhead + k * per_path
    thread = 32 * overhead + 32 * per_path
    return {I: inst, T: thread, R: thread / inst}


def twin_counts(k):
    return counts(k, per_path=0.0)


def csv_text(launch_values, thousands=True, unit_inst="inst"):
    q = lambda s: '"' + s + '"'
    lines = ["==PROF== Connected to process 1", ",".join(q(h) for h in HEADER)]
    for lid, vals in enumerate(launch_values):
        for name, v in vals.items():
            unit = "" if name == R else unit_inst
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
        pts.append({"k": k, "median_cycles": 1000.0 * k, "clock_mhz": 1980.0, "wall_ms": 2.5, "launches": 201,
                    "metrics": {"available": True, "values": full, "twin": twin, "profile_ms": 40.0,
                                "twin_profile_ms": 30.0, "region": {"ratio": merger.region(full, twin)}}})
    return {"schema": "divbench.result/1", "experiment": "kway", "config": {},
            "device": {"name": "synthetic", "cc": "9.0"}, "git": "synthetic", "points": pts}


def ncu_launches(ks):
    seq = []
    for k in ks:
        seq += [counts(k), counts(k), twin_counts(k)]
    return seq


def run_merger(tmp_path, doc, csv, expect_rc=0):
    dj, nc, out = (tmp_path / n for n in ("d.json", "n.csv", "out.json"))
    dj.write_text(json.dumps(doc))
    nc.write_text(csv)
    p = subprocess.run([sys.executable, "-m", "divbench.merge_kway_metrics", "--divbench", str(dj), "--ncu", str(nc),
                        "--out", str(out)], capture_output=True, text=True, cwd=repo_root() / "scripts")
    assert p.returncode == expect_rc, p.stderr + p.stdout
    if expect_rc:
        assert p.stderr.count("\n") == 1 and p.stderr.startswith("merge_kway_metrics: error: ")
        assert not out.exists()
        return p.stderr
    return json.loads(out.read_text())


def test_agreement_and_region(tmp_path):
    ks = [1, 2, 4, 8, 16, 32]
    res = run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks)))
    e = res["experiments"][0]
    assert [x["k"] for x in e["per_k"]] == ks
    assert e["summary"]["agree_within_2pct"] and e["summary"]["region_within_10pct_of_32_over_k"]
    for x in e["per_k"]:
        assert x["region_ratio"]["ncu"] == pytest.approx(32.0 / x["k"], abs=1e-9)
        assert x["rel_diff"][I] == pytest.approx(0.0, abs=1e-9)


def test_disagreement_is_reported(tmp_path):
    ks = [1, 32]
    s = run_merger(tmp_path, divbench_doc(ks, scale=1.05), csv_text(ncu_launches(ks)))["experiments"][0]["summary"]
    assert not s["agree_within_2pct"]
    assert s["max_abs_rel_diff_divbench_vs_ncu"] == pytest.approx(0.05, abs=1e-6)


def test_wrong_launch_count_fails(tmp_path):
    ks = [1, 2]
    assert "expected 3 per point" in run_merger(tmp_path, divbench_doc(ks), csv_text(ncu_launches(ks)[:-1]), expect_rc=2)


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
    assert res["provenance"] == {"toolkit": None, "git": "synthetic", "created": None, "host": None, "command": None}


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
    rows = merger.parse_ncu_csv(csv_text(ncu_launches([4]), unit_inst="Kinst"))
    assert len(rows) == 3 and rows[0][2][I] == pytest.approx(counts(4)[I], abs=1e-3)


def test_csv_without_rows_fails():
    with pytest.raises(merger.MergeError):
        merger.parse_ncu_csv("==PROF== No kernels were profiled.\n")
