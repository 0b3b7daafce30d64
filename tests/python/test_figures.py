"""scripts/figures.py on synthetic fixtures: every figure renders, output is deterministic, missing inputs
are skipped with a message, malformed inputs fail with one line."""
import json
import subprocess
import sys

import pytest

from divbench import figures
from divbench import results as dr
from divbench import series as ds
from divbench.jsonio import InputError
from conftest import ROOT

ALL = ("figure1_kway", "figure2_efficiency", "figure3_occupancy", "figure4_placement")


def run(args, capsys=None):
    rc = figures.main([str(a) for a in args])
    return rc


def test_every_figure_renders(results, capsys):
    out = results / "figures"
    assert run(["--results", results]) == 0
    for stem in ALL:
        for ext in ("png", "svg"):
            f = out / f"{stem}.{ext}"
            assert f.exists() and f.stat().st_size > 1000, f
        assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()
    table = (out / "table2.md").read_text()
    assert "| Feature | sm_80 | sm_100 |" in table
    assert "75.0%" in table and "Paper reference" in table and "83.2%" in table
    assert "| Modifier forms (count) | – | BSSY.RECONVERGENT: 4 |" in table
    assert "synthetic nvcc (sm_80, sm_90, sm_100)" in table
    index = (out / "index.md").read_text()
    assert "gpu_a/kway.json" in index and "Not generated" not in index
    assert "skip" not in capsys.readouterr().err


def test_figure_uses_the_data(results):
    """The SVG changes when a measured value changes: the figure is drawn from the JSON."""
    out = results / "figures"
    assert run(["--results", results, "--only", "fig1"]) == 0
    before = (out / "figure1_kway.svg").read_bytes()
    f = results / "gpu_a" / "kway.json"
    d = json.loads(f.read_text())
    d["points"][-1]["median_cycles"] *= 3
    f.write_text(json.dumps(d))
    assert run(["--results", results, "--only", "fig1"]) == 0
    assert (out / "figure1_kway.svg").read_bytes() != before


def test_deterministic(results, tmp_path):
    assert run(["--results", results, "--out", tmp_path / "a"]) == 0
    assert run(["--results", results, "--out", tmp_path / "b"]) == 0
    for stem in ALL:
        for ext in ("png", "svg"):
            assert (tmp_path / "a" / f"{stem}.{ext}").read_bytes() == (tmp_path / "b" / f"{stem}.{ext}").read_bytes()
    svg = (tmp_path / "a" / "figure1_kway.svg").read_text()
    assert "<dc:date>" not in svg


def test_missing_inputs_are_skipped(fixture_factory, capsys):
    res = fixture_factory["make_results"](fixture_factory["tmp"] / "r", with_static=False, with_occupancy=False)
    assert run(["--results", res]) == 0
    err = capsys.readouterr().err
    assert "skip fig3" in err and "skip fig4" in err and "skip table2" in err
    assert (res / "figures" / "figure1_kway.png").exists()
    assert not (res / "figures" / "figure4_placement.png").exists()
    assert "## Not generated" in (res / "figures" / "index.md").read_text()


def test_empty_results_folder_skips_everything(tmp_path, capsys):
    (tmp_path / "results").mkdir()
    assert run(["--results", tmp_path / "results", "--reference", "none"]) == 0
    assert capsys.readouterr().err.count("figures: skip") == 5


def test_metrics_missing_skips_figure2(fixture_factory, capsys):
    root = fixture_factory["tmp"] / "r"
    fixture_factory["write"](root / "g", "kway.json",
                             fixture_factory["kway"](fixture_factory["device"]("SYNTHETIC", "9.0"), 10.0, 1.0, metrics=False))
    assert run(["--results", root, "--reference", "none", "--only", "fig1,fig2"]) == 0
    err = capsys.readouterr().err
    assert "skip fig2" in err and "--metrics" in err


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["points"][0].pop("median_cycles"), "needs 'k' and 'median_cycles'"),
    (lambda d: d["points"][0].update(median_cycles="fast"), "expected a finite number"),
])
def test_malformed_result_is_an_error(results, capsys, mutate, message):
    assert message in error_line(results, "gpu_a/kway.json", mutate, "fig1", capsys)


def error_line(results, name, mutate, only, capsys):
    """Mutates results/<name>, draws `only`: exit 2 with one line `figures: error: ...`, which is returned."""
    f = results / name
    d = json.loads(f.read_text())
    mutate(d)
    f.write_text(json.dumps(d))
    assert run(["--results", results, "--only", only]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("figures: error:"), err
    return err[0]


def test_foreign_json_in_a_gpu_folder_is_ignored(results, capsys):
    """A file that is not a divbench result (e.g. Google Benchmark's output) does not stop the figures."""
    f = results / "gpu_b" / "kway.json"
    d = json.loads(f.read_text())
    d["schema"] = "something-else/1"
    f.write_text(json.dumps(d))
    assert run(["--results", results, "--only", "fig1"]) == 0
    svg = (results / "figures" / "figure1_kway.svg").read_text()
    assert "SYNTHETIC GPU A" in svg and "SYNTHETIC GPU B" not in svg


def test_invalid_json_is_one_line(results):
    (results / "static" / "figure4.json").write_text("{not json")
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "figures.py"), "--results", str(results), "--only", "fig4"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "figure4.json: not valid JSON" in lines[0]


def test_bad_static_shape(results, capsys):
    (results / "static" / "figure4.json").write_text(json.dumps({"architectures": {"sm_80": {"x": 1}}}))
    assert run(["--results", results, "--only", "fig4"]) == 2
    assert "sm_80 has none of the counts" in capsys.readouterr().err


def test_occupancy_series_from_pairs_and_points(results):
    r = dr.load_result(results / "gpu_a" / "occupancy.json")
    xkey, series = ds.occupancy_series(r)
    assert xkey == "total_warps"
    assert sorted(series) == ["device: kernel_penalty", "device: region_penalty", "per_sm: kernel_penalty",
                              "per_sm: region_penalty"]
    assert series["device: region_penalty"][0] == (256.0, 31.0)
    # points that carry the penalties themselves (no summary.pairs)
    r.data["summary"] = {}
    r.data["points"] = [{"resident_warps": 256, "penalty": 30.0}, {"resident_warps": 512, "penalty": 31.0}]
    assert ds.occupancy_series(r) == ("resident_warps", {"penalty": [(256.0, 30.0), (512.0, 31.0)]})
    r.data["points"] = [{"k": 1, "median_cycles": 5}]
    with pytest.raises(InputError, match="need one of total_warps"):
        ds.occupancy_series(r)


def test_unknown_figure_is_a_usage_error(results):
    with pytest.raises(SystemExit) as e:
        run(["--results", results, "--only", "fig9"])
    assert e.value.code == 2


# --- raw samples, predicted slopes, the warps-per-SM occupancy shape, guarded placement shares ---

@pytest.fixture
def rich(results, fixture_factory):
    """The base fixture plus raw samples (gpu_a jittered, gpu_b constant), predictions for four
    architectures (sm_61 not predicted) and gpu_b's occupancy in the warps-per-SM shape."""
    ff = fixture_factory
    a, b = ff["device"]("SYNTHETIC GPU A", "9.0"), ff["device"]("SYNTHETIC GPU B", "8.6")
    ff["write"](results / "gpu_a", "kway.json", ff["with_samples"](ff["kway"](a, 1000.0, 10.0), n=64, noise=3))
    ff["write"](results / "gpu_b", "kway.json", ff["with_samples"](ff["kway"](b, 800.0, 20.0, metrics=False), n=64))
    ff["write"](results / "gpu_b", "occupancy.json", ff["occupancy_v2"](b))
    for arch, av in (("sm_90", 9.9), ("sm_80", 7.0), ("sm_61", None), ("sm_120", 6.0)):
        ff["write"](results / "predicted", f"{arch}.json", ff["predicted"](arch, av))
    return results


def svg_text(results, stem):
    return (results / "figures" / f"{stem}.svg").read_text()


def test_figure1_draws_samples_and_predictions(rich, capsys):
    assert run(["--results", rich]) == 0
    svg = svg_text(rich, "figure1_kway")
    assert "raw samples around the median, per k" in svg
    assert "SYNTHETIC GPU A (sm_90, gpu_a): 64 samples per k" in svg and "constant at 0 of 6 k" in svg
    assert "constant at 6 of 6 k" in svg                                   # gpu_b: every sample the same
    assert "predicted (SASS model, fma_chain; not measured)" in svg and "paper (measured; its own body)" in svg
    assert "0.71" in svg                                                   # predicted sm_80 / predicted sm_90
    index = (rich / "figures" / "index.md").read_text()
    assert "sm_61: not predicted: no loop found" in index and "predicted/sm_80.json" in index


def test_figure1_without_samples_leaves_the_panel_out_with_a_note(results):
    assert run(["--results", results, "--reference", "none"]) == 0
    svg = svg_text(results, "figure1_kway")
    assert "raw samples around the median" not in svg
    assert "measured here" in svg and "0.80" in svg                        # gpu_b (sm_86) / gpu_a (sm_90)
    index = (results / "figures" / "index.md").read_text()
    assert "gpu_a/kway.json has no raw samples" in index


def test_figure3_from_warps_per_sm_and_waves(rich):
    assert run(["--results", rich, "--only", "fig3"]) == 0
    svg = svg_text(rich, "figure3_occupancy")
    assert "warps launched per SM" in svg and "2 waves (oversubscribed)" in svg and "4 waves (oversubscribed)" in svg
    assert "region cycles, not steady state" in svg and "raw kernel event times (a lower bound)" in svg
    assert "by resident warps (first occupancy sweep)" in svg             # gpu_a keeps the first shape
    pts = ds.occupancy_grid(dr.load_result(rich / "gpu_b" / "occupancy.json"))
    assert {(p.series, p.waves) for p in pts} == {("resident", 1.0), ("oversubscribed", 2.0), ("oversubscribed", 4.0)}
    assert sum(p.steady_state is False for p in pts) == 4


def test_figure3_bad_series_is_one_line(rich, capsys):
    line = error_line(rich, "gpu_b/occupancy.json", lambda d: d["summary"]["series"][2].pop("waves"), "fig3", capsys)
    assert "summary.series[2] needs 'waves'" in line


def test_figure4_shares_among_guarded_branches(results):
    assert run(["--results", results, "--only", "fig4"]) == 0
    svg = svg_text(results, "figure4_placement")
    assert "share of barrier-guarded divergent branches" in svg and "unguarded (no barrier): counted, not placed" in svg
    assert "n=11" in svg and "73%" in svg and "3 after" in svg             # sm_80: 8 at, 3 after of 11 guarded
    assert ds.guarded_shares({"before": 2, "at": 9, "after": 0, "unguarded": 1}) == \
        (11, {"before": 2 / 11, "at": 9 / 11, "after": 0.0})
    assert ds.guarded_shares({"unguarded": 5}) == (0.0, {})


def test_rich_figures_are_deterministic(rich, tmp_path):
    assert run(["--results", rich, "--out", tmp_path / "a", "--only", "fig1,fig3"]) == 0
    assert run(["--results", rich, "--out", tmp_path / "b", "--only", "fig1,fig3"]) == 0
    for name in ("figure1_kway.svg", "figure1_kway.png", "figure3_occupancy.svg", "figure3_occupancy.png"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["points"][0]["samples"]["cycles"].__setitem__(0, -1), "samples.cycles[0] is -1"),
    (lambda d: d["points"][1]["samples"].update(smid=[0]), "samples.smid must be a list as long as cycles"),
])
def test_malformed_samples_are_an_error(rich, capsys, mutate, message):
    assert message in error_line(rich, "gpu_a/kway.json", mutate, "fig1", capsys)


def test_predicted_none(rich):
    assert run(["--results", rich, "--only", "fig1", "--predicted", "none"]) == 0
    assert "predicted (SASS model" not in svg_text(rich, "figure1_kway")
