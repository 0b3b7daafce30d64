"""scripts/compare.py --gate on synthetic fixtures (conftest.py): the exit codes (0 no change, 1 change,
2 bad input), the test chosen per point, the threshold and its placement-spread floor, the fallback
without raw samples, the markdown report and the github-action-benchmark JSON."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, device, kway, scaled, with_samples, write  # noqa: F401
from divbench import compare

DEV = device("SYNTHETIC GPU A", "9.0")


def gate(tmp_path, a, b, *extra, capsys=None, judged=False):
    """The gate on two fixtures. Their synthetic noise (up to +-110000 cycles) is far above what the H200's
    quiet level allows, so the statistics tests pass --allow-disturbed; judged=True leaves the verdict on."""
    fa = write(tmp_path, "a.json", a)
    fb = write(tmp_path, "b.json", b)
    rc = compare.main(["--gate", fa, fb, *extra, *([] if judged else ["--allow-disturbed"])])
    out, err = capsys.readouterr() if capsys else ("", "")
    return rc, out, err


def base(**kw):
    return kway(DEV, 280000.0, 700.0, iters=10000, metrics=False, **kw)


def test_two_runs_of_the_same_build_constant_samples(tmp_path, capsys):
    a = with_samples(base())
    rc, out, _ = gate(tmp_path, a, with_samples(base()), capsys=capsys)
    assert rc == 0, out
    assert out.count(" exact ") == 6 and "gate: no significant change at 6 points" in out


def test_two_runs_of_the_same_build_noisy_samples(tmp_path, capsys):
    # independent draws of the same distribution (different seeds): no change
    rc, out, _ = gate(tmp_path, with_samples(base(), noise=2000, seed=1), with_samples(base(), noise=2000, seed=2),
                      capsys=capsys)
    assert rc == 0, out
    assert out.count(" mann-whitney ") == 6


@pytest.mark.parametrize("noise", [0, 2000])
def test_every_sample_scaled_by_1_05_is_a_change(tmp_path, capsys, noise):
    a = with_samples(base(), noise=noise, seed=1)
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.05), capsys=capsys)
    assert rc == 1, out
    changes = [line for line in out.splitlines() if line.startswith("change: ")]
    assert len(changes) == 6 and all(": slower by 5.00%" in c for c in changes), changes
    assert "gate: 6 significant change(s) at 6 points" in out


def test_faster_is_listed_as_faster(tmp_path, capsys):
    a = with_samples(base())
    rc, out, _ = gate(tmp_path, a, scaled(a, 0.9), capsys=capsys)
    assert rc == 1 and "change: k=1 placement=0: faster by 10.00%" in out


def test_a_change_below_the_threshold_is_not_significant(tmp_path, capsys):
    a = with_samples(base(), noise=200, seed=3)
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.005), capsys=capsys)   # the test sees it, 0.5% < 1%
    assert rc == 0, out
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.005), "--threshold", "0.002", capsys=capsys)
    assert rc == 1, out


def test_a_large_shift_in_noise_is_not_significant(tmp_path, capsys):
    # 3% apart, but +-40% noise over 10 samples: the rank test cannot tell, so no change is claimed
    a = with_samples(base(ks=(1, 2)), n=10, noise=110000, seed=4)
    rc, out, _ = gate(tmp_path, a, scaled(with_samples(base(ks=(1, 2)), n=10, noise=110000, seed=5), 1.03),
                      capsys=capsys)
    assert rc == 0, out


def test_few_units_use_separation(tmp_path, capsys):
    """Below 8 independent units a side there is no rank test: a change is claimed only where every unit of
    B lies beyond every unit of A (and the size reaches the threshold)."""
    a = with_samples(base(ks=(1, 2)), n=5, noise=100, seed=6)
    rc, out, _ = gate(tmp_path, a, with_samples(base(ks=(1, 2)), n=5, noise=100, seed=7), capsys=capsys)
    assert rc == 0 and out.count(" separation ") == 2, out
    assert "2 point(s) have fewer than 8 independent units" in out
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.03), capsys=capsys)
    assert rc == 1 and "B's launches all beyond A's" in out, out


def test_launches_are_the_unit(tmp_path, capsys):
    """Warp-per-SM: 264 samples from 2 launches are 2 units, not 264: a shift of one launch's warps is not
    264 independent observations."""
    a = with_samples(base(ks=(1,)), n=264, noise=50, seed=8)
    b = with_samples(base(ks=(1,)), n=264, noise=50, seed=9)
    for r in (a, b):
        r["points"][0]["launches"] = 2
    b["points"][0]["samples"]["cycles"] = [c + (4000 if i >= 132 else 0) for i, c in enumerate(b["points"][0]["samples"]["cycles"])]
    rc, out, _ = gate(tmp_path, a, b, capsys=capsys)
    assert rc == 0 and " separation " in out, out   # one launch 1.4% slower: its launches do not all lie beyond A's


def test_candidate_spread_never_raises_the_threshold(tmp_path, capsys):
    a = with_samples(base())
    b = scaled(a, 1.05)
    b["summary"]["s_layout_spread_rel"] = 0.10   # the candidate's own spread: ignored
    rc, out, _ = gate(tmp_path, a, b, capsys=capsys)
    assert rc == 1 and "threshold 1.00% from --threshold" in out, out


def test_placement_spread_raises_the_threshold(tmp_path, capsys):
    a = with_samples(base())
    a["summary"]["s_layout_spread_rel"] = 0.06
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.05), capsys=capsys)
    assert rc == 0, out
    assert "6.00%" in out
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.07), capsys=capsys)
    assert rc == 1 and "threshold 6.00% from A's summary.s_layout_spread_rel" in out


def test_per_point_placement_spread(tmp_path, capsys):
    """Points that differ only in their code placement: their medians' spread is the floor of each."""
    a = with_samples(base(ks=(1, 2)))
    extra = json.loads(json.dumps(a["points"]))
    for p in a["points"]:
        p["placement"] = 0
    for p in extra:
        p["placement"] = 1
        p["median_cycles"] *= 1.04
        p["samples"]["cycles"] = [int(v * 1.04) for v in p["samples"]["cycles"]]
    a["points"] += extra
    b = scaled(a, 1.03)   # 3% < the 4% placement spread
    rc, out, _ = gate(tmp_path, a, b, capsys=capsys)
    assert rc == 0, out
    assert "k=1 placement=0" in out and "4.00%" in out


def test_without_samples_is_insufficient(tmp_path, capsys):
    """No raw samples: no verdict on the point (a 5% change in the medians alone is not called a change),
    and the gate exits 3, not comparable."""
    a = base()
    rc, out, err = gate(tmp_path, a, base(), capsys=capsys)
    assert rc == 3 and out.count("  insufficient  ") == 6, out
    assert "note: A has no raw samples at 6 of 6 points" in out and "insufficient" in err
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.05), capsys=capsys)
    assert rc == 3 and "gate: not comparable: 6 of 6 points lack raw samples" in out
    rc, out, _ = gate(tmp_path, a, with_samples(a), capsys=capsys)   # one side with samples: still insufficient
    assert rc == 3 and "note: A has no raw samples" in out and "note: B" not in out


def test_committed_runs_of_one_build_pass():
    """The committed `--sweep k` and its rerun (raw samples, two launches a point: separation), and the
    8-placement sweep against itself (--no-samples: insufficient, exit 3)."""
    h200 = ROOT / "results" / "h200"
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"), "--gate",
                        str(h200 / "kway_default.json"), str(h200 / "kway_rerun.json")], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "no raw samples" not in p.stdout and "gate: no significant change at 32 points" in p.stdout
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"), "--gate",
                        str(h200 / "kway.json"), str(h200 / "kway.json")], capture_output=True, text=True)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "no raw samples" in p.stdout and "256 of 256 points lack raw samples" in p.stdout


def test_report_and_benchmark_json(tmp_path, capsys):
    a = with_samples(base())
    md, bj = tmp_path / "gate.md", tmp_path / "bench.json"
    rc, out, _ = gate(tmp_path, a, scaled(a, 1.05), "--report", md, "--benchmark-json", bj, capsys=capsys)
    assert rc == 1
    text = md.read_text()
    assert text.startswith("# divbench gate: kway: 6 significant change(s)")
    assert "## Significant changes" in text and "| k=32 placement=0 |" in text and "**significant**" in text
    entries = json.loads(bj.read_text())
    assert [e["name"] for e in entries] == [f"kway k={k} placement=0" for k in (1, 2, 4, 8, 16, 32)]
    assert all(set(e) >= {"name", "unit", "value"} and e["unit"] == "cycles" for e in entries)
    assert entries[0]["value"] == pytest.approx(280700 * 1.05, abs=1)


def test_throttled_point_is_warned(tmp_path, capsys):
    a = with_samples(base())
    b = with_samples(base())
    b["points"][2]["throttled"] = True
    rc, out, _ = gate(tmp_path, a, b, capsys=capsys)
    assert rc == 0 and "warning: k=4 placement=0: B was throttled at this point" in out


# ---- bad input: one line `compare: error: ...`, exit 2, nothing written ----

def bad(tmp_path, capsys, a, b, *extra):
    md = tmp_path / "gate.md"
    rc, out, err = gate(tmp_path, a, b, "--report", md, *extra, capsys=capsys)
    assert rc == 2, out + err
    assert out == "" and err.count("\n") == 1 and err.startswith("compare: error: "), err
    assert not md.exists()
    return err


def test_different_config_refused(tmp_path, capsys):
    a = base()
    b = base()
    b["config"]["iters"] = 5000
    err = bad(tmp_path, capsys, a, b)
    assert "config.iters is 5000" in err and "10000" in err
    rc, _, _ = gate(tmp_path, with_samples(a), with_samples(b), "--ignore-config", "iters", capsys=capsys)
    assert rc == 0


def test_axis_help_text_is_not_configuration(tmp_path, capsys):
    # A result whose config.axes carry `help` (newer divbench) against one without it: the same settings.
    axes = [{"name": "placement", "type": "int", "unit": "placement", "option": "--placements", "values": [0]},
            {"name": "k", "type": "int", "unit": "paths", "option": "--k", "values": [1, 2, 4, 8, 16, 32]}]
    a, b = base(), base()
    a["config"]["axes"] = axes
    b["config"]["axes"] = [{**ax, "help": "what the axis is"} for ax in axes]
    rc, _, _ = gate(tmp_path, with_samples(a), with_samples(b), capsys=capsys)
    assert rc == 0
    # ... but an axis's values are configuration.
    b["config"]["axes"][1] = {**b["config"]["axes"][1], "values": [1, 2, 4]}
    assert "config.axes is" in bad(tmp_path, capsys, a, b)


def test_different_experiment_refused(tmp_path, capsys):
    b = base()
    b["experiment"] = "predication"
    assert "the gate compares one experiment with itself" in bad(tmp_path, capsys, base(), b)


def test_different_points_refused(tmp_path, capsys):
    assert "config.ks is [1, 2, 4]" in bad(tmp_path, capsys, base(), base(ks=(1, 2, 4)))
    b = base()
    b["points"].pop()          # same config, a point missing (e.g. an interrupted run)
    assert "the points differ" in bad(tmp_path, capsys, base(), b) and "only in A: k=32 placement=0" in bad(tmp_path, capsys, base(), b)


@pytest.mark.parametrize("mutate, message", [
    (lambda p: p.update(samples={"cycles": ["x"]}), "samples.cycles[0] is 'x'"),
    (lambda p: p.update(samples={"cycles": []}), "samples.cycles is empty"),
    (lambda p: p.update(samples=[1, 2]), "must be an object with a 'cycles' list"),
    (lambda p: p.update(samples={"cycles": [1, 2], "smid": [0]}), "smid must be a list as long as cycles"),
    (lambda p: p.update(samples={"cycles": [1, -2]}), "expected an integer >= 0"),
    (lambda p: p.update(median_cycles=0), "median_cycles is 0, expected a positive number"),
])
def test_malformed_points(tmp_path, capsys, mutate, message):
    b = base()
    mutate(b["points"][0])
    assert message in bad(tmp_path, capsys, base(), b)


def test_no_timed_points(tmp_path, capsys):
    a = base()
    a["points"] = [{"form": "x", "completed": True}]
    assert "no timed points" in bad(tmp_path, capsys, a, a)


@pytest.mark.parametrize("args, message", [
    (["--threshold", "1.5"], "--threshold 1.5"),
    (["--threshold", "nan"], "--threshold nan"),
    (["--alpha", "0"], "--alpha 0"),
])
def test_bad_settings(tmp_path, capsys, args, message):
    assert message in bad(tmp_path, capsys, base(), base(), *args)


def test_unwritable_report(tmp_path, capsys):
    a = write(tmp_path, "a.json", base())
    rc = compare.main(["--gate", a, a, "--benchmark-json", tmp_path / "missing" / "b.json"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and err.count("\n") == 1 and "folder" in err and "does not exist" in err


def test_usage_error_is_one_line():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "compare.py"), "--gate", "only-one.json"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("compare --gate: error: ")


def test_the_subcommand_and_the_older_option_are_one_gate(tmp_path, capsys):
    """`compare gate A B ...` and `compare --gate A B ...` hand the gate the same arguments (argparse: --gate
    takes every word after it); `--gate --help` and `gate --help` are the gate's help."""
    a = with_samples(base())
    fa, fb = write(tmp_path, "a.json", a), write(tmp_path, "b.json", scaled(a, 1.05))
    outs = []
    for route in (["gate"], ["--gate"]):
        assert compare.main([*route, fa, fb, "--threshold", "0.02", "--allow-disturbed"]) == 1
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "threshold 2.00% from --threshold" in outs[0]
    for route in (["gate"], ["--gate"]):
        with pytest.raises(SystemExit) as e:
            compare.main([*route, "--help"])
        assert e.value.code == 0 and "--benchmark-json" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--allow-disturbed", "--gate", "A.json", "B.json"],
                                  ["A.json", "--gate", "B.json"], ["--gate", "A.json", "--", "B.json"]])
def test_a_table_argument_beside_gate_is_refused(capsys, args):
    """Every argument of the older spelling comes after --gate; one before it is refused (exit 2, one line),
    never reordered into the gate's A and B."""
    with pytest.raises(SystemExit) as e:
        compare.main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "--gate takes every argument after it" in err, err


def test_the_sample_count_n_names_no_point(fixture_factory, tmp_path, capsys):
    """The harness records each point's sample count as "n"; a point is named by its axes only, so "n"
    names a point only where the experiment has an n axis (cost: iterations per path)."""
    ff = fixture_factory
    old = ff["kway"](ff["device"]("SYNTHETIC GPU A", "9.0"), 1000.0, 10.0)
    new = ff["with_samples"](old, n=201)
    for p in new["points"]:
        p["n"] = 201
    a = ff["write"](tmp_path, "a.json", ff["with_samples"](old, n=201))
    b = ff["write"](tmp_path, "b.json", new)
    assert compare.main(["--gate", str(a), str(b)]) == 0, capsys.readouterr().err
    assert "k=4 n=" not in capsys.readouterr().out
    # the cost sweep's n (iterations per path) is an axis: two points that differ only in n are two
    # points, while their sample count "n" names nothing
    cost = ff["record"]("cost", ff["device"]("SYNTHETIC", "9.0"), {"ns": [0, 100]},
                        [{"k": 2, "n": 201, "median_cycles": 100.0 + n, "min_cycles": 100.0 + n, "max_cycles": 100.0 + n,
                          "axes": {"body": "fma_chain", "placement": 0, "n": n, "k": 2}}
                         for n in (0, 100)])
    c = ff["write"](tmp_path, "c.json", cost)
    assert compare.main(["--gate", str(c), str(c)]) == 3   # no raw samples: insufficient
    assert "k=2 n=0" in capsys.readouterr().out


def test_points_are_named_by_their_declared_axes():
    from divbench import results as dr
    from divbench.jsonio import InputError
    # point.axes, whatever else the point holds ("n" is its sample count)
    p = {"k": 4.0, "n": 201, "body": "sfu", "sampling": "single", "placement": 2,
         "axes": {"placement": 2, "k": 4}}
    assert dr.point_label(p, "kway") == "k=4 placement=2"
    assert dr.point_coords(p, "cost") == {"placement": 2, "k": 4}
    assert dr.point_label({"axes": {"body": "sfu", "placement": 2, "n": 1000, "k": 4}}, "cost") == \
        "body=sfu k=4 n=1000 placement=2"
    # a point without axes (a file written before divbench recorded them) is refused, not guessed
    with pytest.raises(InputError, match="has no axes"):
        dr.point_label({"k": 4.0, "placement": 2}, "kway")


# ---- the gate's statistics on realistic synthetic runs: power and false alarms ----

def _run(rng, s_per_path, ks=(1, 2, 4, 8, 16, 32), launches=2, warps=132, c=768.0, jitter=25.0):
    """A k-way result shaped like the default warp-per-SM sweep: each point `launches` launches of `warps`
    samples, a per-launch offset and a per-warp jitter at the quiet H200's size (max-min ~ 100 cycles)."""
    import numpy as np
    r = kway(DEV, s_per_path, c, iters=10000, metrics=False, ks=ks)
    for p in r["points"]:
        t = s_per_path * p["k"] + c
        cyc = np.concatenate([t + rng.normal(0, jitter / 2) + rng.normal(0, jitter / 2, warps) for _ in range(launches)])
        cyc = np.round(cyc).astype(int)
        p["samples"] = {"cycles": cyc.tolist(), "smid": [i % warps for i in range(cyc.size)]}
        p.update(launches=launches, sampling="warp-per-sm", median_cycles=float(np.median(cyc)),
                 min_cycles=float(cyc.min()), max_cycles=float(cyc.max()))
    return r


@pytest.mark.parametrize("launches", [2, 16])
def test_a_two_percent_per_path_slowdown_is_caught(tmp_path, capsys, launches):
    """s grows by 2% (a real per-path slowdown): caught in at least 95% of 40 independent pairs, with the
    launch as the unit (2 launches: separation; 16: Mann-Whitney), judged quiet (no --allow-disturbed)."""
    import numpy as np
    rng = np.random.default_rng(2026)
    caught = 0
    for _ in range(40):
        rc, out, err = gate(tmp_path, _run(rng, 280179.0, launches=launches), _run(rng, 280179.0 * 1.02, launches=launches),
                            capsys=capsys, judged=True)
        assert rc in (0, 1), out + err
        caught += rc == 1
    assert caught >= 38, f"caught {caught} of 40"


@pytest.mark.parametrize("launches", [2, 16])
def test_fifty_pairs_of_one_distribution_give_at_most_one_alarm(tmp_path, capsys, launches):
    import numpy as np
    rng = np.random.default_rng(7)
    alarms = 0
    for _ in range(50):
        rc, out, err = gate(tmp_path, _run(rng, 280179.0, launches=launches), _run(rng, 280179.0, launches=launches),
                            capsys=capsys, judged=True)
        assert rc in (0, 1), out + err
        alarms += rc == 1
    assert alarms <= 1, f"{alarms} false alarms in 50 pairs"


# ---- disturbed inputs: not comparable (exit 3) unless --allow-disturbed ----

def test_a_disturbed_candidate_is_not_comparable(tmp_path, capsys):
    import numpy as np
    rng = np.random.default_rng(3)
    a, b = _run(rng, 280179.0), _run(rng, 280179.0)
    p = b["points"][3]
    p["samples"]["cycles"][200] += 198000   # one launch's warp held up 0.1 ms by another context
    p["max_cycles"] = float(max(p["samples"]["cycles"]))
    rc, out, err = gate(tmp_path, a, b, capsys=capsys, judged=True)
    assert rc == 3 and out == "", out
    assert err.count("\n") == 1 and "not comparable: disturbed measurement" in err and "b.json" in err, err
    assert "k=8" in err and "noise" in err, err
    rc, out, _ = gate(tmp_path, a, b, capsys=capsys)   # --allow-disturbed: compared, and said
    assert rc in (0, 1) and "--allow-disturbed" in out


def test_a_co_tenant_in_the_conditions_is_not_comparable(tmp_path, capsys):
    """The verdict comes from the data: a result whose conditions list another process is refused even
    though nothing in it says "disturbed"."""
    import numpy as np
    rng = np.random.default_rng(4)
    a, b = _run(rng, 280179.0), _run(rng, 280179.0)
    for p in a["points"]:
        p["conditions"] = {"available": True, "processes": {"before": {"read": True, "others": [31337], "others_count": 1},
                                                            "after": {"read": True, "others": [], "others_count": 0}}}
    rc, out, err = gate(tmp_path, a, b, capsys=capsys, judged=True)
    assert rc == 3 and "co_tenant" in err and "a.json" in err, err


def test_an_unphysical_fit_is_not_comparable(tmp_path, capsys):
    import numpy as np
    rng = np.random.default_rng(5)
    a, b = _run(rng, 280179.0), _run(rng, 280179.0)
    b["fit"]["c"] = -278489.0
    rc, _, err = gate(tmp_path, a, b, capsys=capsys, judged=True)
    assert rc == 3 and "fit_c" in err, err


def test_many_points_of_one_label_are_linear(tmp_path, capsys):
    """30,000 points with the same coordinates (labels made unique as "k=1 placement=0", then #2, #3, ...): the gate answers in
    seconds (numbering each repeat from 2 again made it quadratic: 119 s for this input)."""
    import time
    a = kway(DEV, 280000.0, 700.0, iters=10000, metrics=False, ks=(1,))
    a["points"] = a["points"] * 30000
    t0 = time.monotonic()
    rc, out, _ = gate(tmp_path, a, a, capsys=capsys)
    assert rc == 3 and "k=1 placement=0 #30000 " in out
    assert time.monotonic() - t0 < 20, f"the gate took {time.monotonic() - t0:.1f} s on 30,000 points"
