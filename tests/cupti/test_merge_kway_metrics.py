#!/usr/bin/env python3
"""Tests of scripts/gpu/merge_kway_metrics.py on synthetic inputs built here (no real results)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True

MERGER = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "gpu", "merge_kway_metrics.py")
spec = importlib.util.spec_from_file_location("merger", MERGER)
merger = importlib.util.module_from_spec(spec)
spec.loader.exec_module(merger)

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
    return {"experiment": "kway", "config": {}, "device": {"name": "synthetic"}, "provenance": {}, "points": pts}


def ncu_launches(ks):
    seq = []
    for k in ks:
        seq += [counts(k), counts(k), twin_counts(k)]
    return seq


class Merge(unittest.TestCase):
    def run_merger(self, doc, csv, expect_rc=0):
        with tempfile.TemporaryDirectory() as d:
            dj, nc, out = (os.path.join(d, n) for n in ("d.json", "n.csv", "out.json"))
            with open(dj, "w") as f:
                json.dump(doc, f)
            with open(nc, "w") as f:
                f.write(csv)
            p = subprocess.run([sys.executable, MERGER, "--divbench", dj, "--ncu", nc, "--out", out],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, expect_rc, p.stderr + p.stdout)
            if expect_rc:
                self.assertIn("error", p.stderr)
                self.assertFalse(os.path.exists(out))
                return None
            with open(out) as f:
                return json.load(f)

    def test_agreement_and_region(self):
        ks = [1, 2, 4, 8, 16, 32]
        res = self.run_merger(divbench_doc(ks), csv_text(ncu_launches(ks)))
        e = res["experiments"][0]
        self.assertEqual([x["k"] for x in e["per_k"]], ks)
        self.assertTrue(e["summary"]["agree_within_2pct"])
        self.assertTrue(e["summary"]["region_within_10pct_of_32_over_k"])
        for x in e["per_k"]:
            self.assertAlmostEqual(x["region_ratio"]["ncu"], 32.0 / x["k"], places=9)
            self.assertAlmostEqual(x["rel_diff"][I], 0.0, places=9)

    def test_disagreement_is_reported(self):
        ks = [1, 32]
        res = self.run_merger(divbench_doc(ks, scale=1.05), csv_text(ncu_launches(ks)))
        s = res["experiments"][0]["summary"]
        self.assertFalse(s["agree_within_2pct"])
        self.assertAlmostEqual(s["max_abs_rel_diff_divbench_vs_ncu"], 0.05, places=6)

    def test_wrong_launch_count_fails(self):
        ks = [1, 2]
        self.run_merger(divbench_doc(ks), csv_text(ncu_launches(ks)[:-1]), expect_rc=1)

    def test_unavailable_divbench_metrics_fail(self):
        doc = divbench_doc([1, 2])
        doc["points"][1]["metrics"] = {"available": False, "reason": "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}
        self.run_merger(doc, csv_text(ncu_launches([1, 2])), expect_rc=1)

    def test_numbers_and_units(self):
        self.assertEqual(merger.parse_number("1,234,567"), 1234567.0)
        self.assertEqual(merger.parse_number("31.95"), 31.95)
        self.assertEqual(merger.parse_number("2.5", "Kinst"), 2500.0)
        with self.assertRaises(merger.MergeError):
            merger.parse_number("n/a")
        rows = merger.parse_ncu_csv(csv_text(ncu_launches([4]), unit_inst="Kinst"))
        self.assertEqual(len(rows), 3)
        self.assertAlmostEqual(rows[0][2][I], counts(4)[I], places=3)

    def test_csv_without_rows_fails(self):
        with self.assertRaises(merger.MergeError):
            merger.parse_ncu_csv("==PROF== No kernels were profiled.\n")


if __name__ == "__main__":
    unittest.main()
