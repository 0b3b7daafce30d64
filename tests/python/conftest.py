"""Synthetic fixtures for the script tests. Every number here is made up (a toy linear model), every
device is named "SYNTHETIC ..." and every file is written to a pytest temporary folder: nothing here is a
measurement and nothing is committed under results/."""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "results" / "reference" / "paper-2607.23402.json"


def device(name, cc):
    return {"index": 0, "name": name, "cc": cc, "sm_count": 4, "sm_clock_khz": 1000000, "driver": "0.0",
            "runtime": "0.0", "warp_size": 32}


def record(experiment, dev, config, points, summary=None, fit=None):
    r = {"schema": "divbench.result/1", "experiment": experiment, "device": dev, "toolkit": "synthetic",
         "git": "synthetic-fixture", "created": "2000-01-01T00:00:00Z", "host": "fixture",
         "command": "synthetic fixture (tests/python/conftest.py)", "config": config, "points": points,
         "summary": summary or {}, "timing": {}}
    if fit is not None:
        r["fit"] = fit
    return r


def kway(dev, s, c, iters=100, body="fma_chain", map_="modulo", metrics=True, ks=(1, 2, 4, 8, 16, 32)):
    pts = []
    for k in ks:
        p = {"k": k, "median_cycles": s * k + c, "min_cycles": s * k + c, "max_cycles": s * k + c, "cv": 0.0,
             "axes": {"placement": 0, "k": k}}
        if metrics:
            p["metrics"] = {"available": True, "values": {"smsp__thread_inst_executed_per_inst_executed.ratio": 32.0 / k + 0.1},
                            "region": {"ratio": 32.0 / k}}
        pts.append(p)
    fit = {"model": "T(k) = s*k + c", "s": s, "c": c, "r2": 1.0, "n": len(ks)}
    cfg = {"axis": "k", "ks": list(ks), "iters": iters, "body": body, "map": map_, "reps": 3}
    return record("kway", dev, cfg, pts, {"ratio_32_over_1": (32 * s + c) / (s + c)}, fit)


def write(folder: Path, name: str, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data, indent=1))
    return folder / name


def make_results(root: Path, with_static=True, with_occupancy=True):
    """results/ with two synthetic GPUs (gpu_a: cc 9.0, gpu_b: cc 8.6) and, optionally, static files."""
    a = device("SYNTHETIC GPU A", "9.0")
    b = device("SYNTHETIC GPU B", "8.6")
    write(root / "gpu_a", "kway.json", kway(a, 1000.0, 10.0))
    write(root / "gpu_b", "kway.json", kway(b, 800.0, 20.0, metrics=False))
    write(root / "gpu_a", "kway.gbench.json", {"context": {}, "benchmarks": []})  # not a divbench result: skipped
    # One quiet point each: a result with no points has nothing to trust (quality.py: no_points).
    quiet = [{"k": 1, "median_cycles": 1000.0, "min_cycles": 1000.0, "max_cycles": 1000.0,
              "axes": {"placement": 0, "variant": "single", "arms": 1, "n": 100}}]
    write(root / "gpu_a", "predication.json", record("predication", a, {"iters": 100}, quiet,
          {"ratio_branchy_over_single": 1.99, "ratio_predicated_over_single": 1.01}))
    if with_occupancy:
        # the shape experiments/occupancy/experiment.cpp writes: penalties per residency in summary.pairs
        pairs = [{"series": "device", "target": w, "total_warps": w, "k": 32, "region_penalty": 31.0 - i * 0.1,
                  "kernel_penalty": 30.0 + i * 0.1} for i, w in enumerate((256, 512, 1024, 2048, 4096))]
        pairs += [{"series": "per_sm", "target": n, "total_warps": 4 * n, "k": 32, "region_penalty": 30.5,
                   "kernel_penalty": 29.0 + n} for n in (1, 2, 4)]
        write(root / "gpu_a", "occupancy.json", record("occupancy", a, {"axis": "residency"}, quiet,
              {"penalty_min": 30.0, "penalty_max": 31.0, "kernel_penalty_min": 30.0, "kernel_penalty_max": 33.0,
               "pairs": pairs}))
    if with_static:
        # the shapes scripts/divbench/study/records.py writes (divbench.study.figure4/1, divbench.study.table2/1)
        common = {"corpus": {"kernels": 3, "sha256": "synthetic"}, "toolkits": {"sm_80": "synthetic nvcc", "sm_90": "synthetic nvcc",
                  "sm_100": "synthetic nvcc"}, "run": {"date": "2000-01-01T00:00:00Z", "generator": "conftest.py"}}
        write(root / "static", "figure4.json", {"schema": "divbench.study.figure4/1", **common, "architectures": {
            "sm_80": {"before": 0, "at": 8, "after": 3, "unguarded": 1, "ipdom_exact_rate": 0.7273},
            "sm_90": {"before": 0, "at": 10, "after": 1, "unguarded": 1, "ipdom_exact_rate": 0.9091},
            "sm_100": {"before": 2, "at": 9, "after": 0, "unguarded": 1, "ipdom_exact_rate": 0.8182}}})
        write(root / "static", "table2.json", {"schema": "divbench.study.table2/1", **common, "architectures": {
            "sm_80": {"ipdom_exact_rate": 0.75, "deferred": 3, "modifiers": False, "modifier_counts": {}, "bra_u": 0},
            "sm_100": {"ipdom_exact_rate": 0.9, "deferred": 0, "modifiers": True,
                       "modifier_counts": {"BSSY.RECONVERGENT": 4}, "bra_u": 5}}})
    write(root / "reference", "paper-2607.23402.json", json.loads(REFERENCE.read_text()))
    return root


def occupancy_v2(dev, max_warps=64):
    """An occupancy result in the warps-per-SM shape docs/figures.md proposes (warps per SM on every SM, waves,
    penalty from kernel times minus an empty kernel's launch overhead, the per-warp region penalty with its
    steady_state flag); made-up penalties around 31."""
    series, points = [], []
    grid = [(w, 1) for w in (1, 2, 4, 8, 16, 32, max_warps)] + [(max_warps, 2), (max_warps, 4)]
    for i, (w, waves) in enumerate(grid):
        name = "resident" if waves == 1 else "oversubscribed"
        series.append({"series": name, "warps_per_sm": w, "waves": waves, "total_warps": 4 * w * waves, "k": 32,
                       "penalty": 31.5 - 0.05 * i, "kernel_penalty_raw": 30.0 - 0.05 * i,
                       "region_penalty": 31.9 - 0.02 * i, "steady_state": w < 32})
        for k in (1, 32):
            points.append({"k": k, "median_cycles": 1000.0 * k, "min_cycles": 1000.0 * k, "max_cycles": 1000.0 * k,
                           "mean_cycles": 1000.0 * k, "stddev_cycles": 0.0, "cv": 0.0, "launches": 3, "throttled": False,
                           "clock_mhz": 1000.0, "sampling": "grid", "placement": 0,
                           "residency": {"series": name, "warps_per_sm": w, "waves": waves, "total_warps": 4 * w * waves},
                           "kernel_ms": {"median": 0.01 * k * waves}, "kernel_ms_corrected": {"median": 0.01 * k * waves - 0.004},
                           "steady_state": w < 32,
                           "axes": {"series": name, "warps_per_sm": w, "waves": waves, "k": k}})
    pens = [x["penalty"] for x in series]
    return record("occupancy", dev, {"axis": "residency", "k_divergent": 32, "ks": [1, 32]}, points,
                  {"penalty_min": min(pens), "penalty_max": max(pens), "launch_overhead_ms": 0.004, "series": series})


def predicted(arch, a, n=100, layout="bodies", b=None):
    """A divbench.predicted/1 file (the shape src/model/slope_prediction.cpp writes: bodies[] with a, b, s
    and their status, the model's constants under "model"; layout="flat": the minimal top-level a/b/s with
    "constants" and "source"). a=None: not predicted. s = a*n (+ b where given)."""
    s = None if a is None else a * n + (b or 0)
    status = "not predicted: no loop found" if a is None else "a*n: b is not included (not predicted)"
    if layout == "flat":
        return {"schema": "divbench.predicted/1", "arch": arch, "n": n, "a": a, "b": b, "s": s,
                "constants": {"taken_branch_cycles": 5}, "source": "SYNTHETIC fixture (tests/python/conftest.py)"}
    bodies = [{"body": "fma_chain", "a": a, "a_status": "predicted" if a else status, "b": b, "b_status": "not predicted",
               "s": s, "s_status": status},
              {"body": "sfu", "a": None, "a_status": "not predicted: synthetic", "b": None, "b_status": "not predicted",
               "s": None, "s_status": "not predicted: a is not predicted"}]
    return {"schema": "divbench.predicted/1", "arch": arch, "sm": int(arch[3:]), "n": n,
            "status": "predicted from SASS; not measured on this architecture",
            "model": {"taken_branch_cycles": 5, "constants_fitted_on": "sm_90",
                      "constants_here": "SYNTHETIC constants (tests/python/conftest.py)"},
            "bodies": bodies, "default_body": "fma_chain", "s": s, "run": {"created": "2000-01-01T00:00:00Z"}}


@pytest.fixture
def results(tmp_path):
    return make_results(tmp_path / "results")


@pytest.fixture
def fixture_factory(tmp_path):
    return {"make_results": make_results, "kway": kway, "device": device, "write": write, "record": record,
            "with_samples": with_samples, "scaled": scaled, "predicted": predicted, "occupancy_v2": occupancy_v2,
            "tmp": tmp_path}


def with_samples(result, n=201, noise=0, seed=1, scale=1.0):
    """A copy of a synthetic result whose timed points carry raw samples (the divbench.result/1 contract:
    "samples": {"cycles": [...], "smid": [...]}): n samples around each point's median, constant when
    noise is 0, else uniform integer jitter of +-noise cycles (a fixed seed: the draws are reproducible);
    every sample multiplied by `scale` (rounded), and the point's statistics recomputed from them."""
    import numpy as np
    rng = np.random.default_rng(seed)
    out = json.loads(json.dumps(result))
    for p in out["points"]:
        if "median_cycles" not in p:
            continue
        base = np.full(n, p["median_cycles"], dtype=float)
        if noise:
            base += rng.integers(-noise, noise + 1, size=n)
        cycles = [int(round(v * scale)) for v in base]
        p["samples"] = {"cycles": cycles, "smid": [i % 4 for i in range(n)]}
        p.update(median_cycles=float(np.median(cycles)), min_cycles=float(min(cycles)), max_cycles=float(max(cycles)))
    return out


def scaled(result, factor):
    """A copy with every timed point's medians (and samples, where present) multiplied by `factor`."""
    out = json.loads(json.dumps(result))
    for p in out["points"]:
        for key in ("median_cycles", "min_cycles", "max_cycles"):
            if key in p:
                p[key] *= factor
        if "samples" in p:
            p["samples"]["cycles"] = [int(round(v * factor)) for v in p["samples"]["cycles"]]
    return out
