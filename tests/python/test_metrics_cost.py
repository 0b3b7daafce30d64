"""divbench.metrics_cost (what scripts/gpu/30-metrics.sh runs): the committed --all --metrics results give the
committed metrics_cost.json back, the output validates, bad input is one line and writes nothing."""
import json
from pathlib import Path

import pytest

from divbench import metrics_cost, schemas

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "results" / "h200"


def test_the_committed_run_gives_the_committed_file(tmp_path, capsys):
    committed = json.loads((H200 / "metrics_cost.json").read_text())
    out = tmp_path / "metrics_cost.json"
    basic = ["--all-metrics-basic-s", str(committed["all_metrics_basic_s"])] if "all_metrics_basic_s" in committed else []
    other = (["--other-replay-s", str(committed["all_metrics_other_replay_s"]), "--other-replay-results",
              str(H200 / f"all_metrics_{committed['other_replay']}_replay")] if "other_replay" in committed else [])
    runs = lambda key: ",".join(str(x) for x in committed.get(key + "_runs", [committed[key]]))  # noqa: E731
    rc = metrics_cost.main(["write", "--all-s", runs("all_s"), "--all-metrics-s", runs("all_metrics_s"), *basic, *other,
                            "--results", str(H200 / "all_metrics"), "--out", str(out)])
    assert rc == 0
    assert json.loads(out.read_text()) == committed
    assert f"ratio {committed['ratio']:.3f} (<=1.3: {committed['within_goal']})" in capsys.readouterr().out
    assert schemas.validate_file(schemas.load_catalog(ROOT / "schemas"), out) == []


def test_has_metrics(capsys):
    assert metrics_cost.main(["has-metrics", str(H200 / "predication_metrics_divbench.json")]) == 0
    assert capsys.readouterr().out == "1\n"
    assert metrics_cost.main(["has-metrics", str(H200 / "predication.json")]) == 0
    assert capsys.readouterr().out == "0\n"


def _refused(capsys, out: Path, all_s: str, all_metrics_s: str, *more: str,
             results: Path = H200 / "all_metrics") -> str:
    """`metrics_cost write` with these arguments: exit 2, one error line, nothing written; returns the line."""
    assert metrics_cost.main(["write", "--all-s", all_s, "--all-metrics-s", all_metrics_s, *more,
                              "--results", str(results), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not out.exists()
    return err


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert "metrics_cost: error:" in _refused(capsys, out, "0", "1")
    assert "--all-metrics-basic-s -1" in _refused(capsys, out, "1", "2", "--all-metrics-basic-s", "-1")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "x.json").write_text("[1]")
    _refused(capsys, out, "1", "2", results=tmp_path / "r")


def _with_replay(src: Path, dst: Path, replay: str, bump: str | None = None) -> Path:
    """A copy of a --metrics results folder whose counters say `replay`; `bump` adds 1 to that metric of
    the first point with counters."""
    dst.mkdir()
    bumped = False
    for f in sorted(src.glob("*.json")):
        doc = json.loads(f.read_text())
        for p in doc.get("points") or []:
            m = p.get("metrics")
            if m and m.get("available"):
                m["replay"] = replay
                if bump and not bumped:
                    m["values"][bump] += 1
                    bumped = True
        (dst / f.name).write_text(json.dumps(doc))
    return dst


def test_other_replay_is_timed_and_compared_counter_by_counter(tmp_path, capsys):
    user = _with_replay(H200 / "all_metrics", tmp_path / "user", "user")
    kernel = _with_replay(H200 / "all_metrics", tmp_path / "kernel", "kernel")
    out = tmp_path / "m.json"
    args = ["write", "--all-s", "8", "--all-metrics-s", "10", "--results", str(user), "--out", str(out)]
    assert metrics_cost.main(args + ["--other-replay-s", "16", "--other-replay-results", str(kernel)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["replay"], doc["other_replay"], doc["ratio_other_replay"]) == ("user", "kernel", 2.0)
    check = doc["replay_check"]
    assert check["all_identical"] and check["points"] == 72 and check["values"] == check["identical"] == 72 * 16
    assert "counters identical to user replay: 1152/1152" in capsys.readouterr().out
    assert schemas.validate_file(schemas.load_catalog(ROOT / "schemas"), out) == []

    # One counter off by one is found and named.
    off = _with_replay(H200 / "all_metrics", tmp_path / "off", "kernel", bump="smsp__inst_executed.sum")
    assert metrics_cost.main(args + ["--other-replay-s", "16", "--other-replay-results", str(off)]) == 0
    check = json.loads(out.read_text())["replay_check"]
    assert not check["all_identical"] and check["identical"] == check["values"] - 1
    assert [(d["launch"], d["metric"], d["other"] - d["main"]) for d in check["differing"]] == [
        ("full", "smsp__inst_executed.sum", 1)]
    capsys.readouterr()

    # The same mode twice, or one option without the other: one line, exit 2, nothing written.
    out.unlink()
    assert metrics_cost.main(args + ["--other-replay-s", "16", "--other-replay-results", str(user)]) == 2
    assert metrics_cost.main(args + ["--other-replay-s", "16"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "expected the other mode" in err and not out.exists()


def test_repeated_runs_give_medians_and_every_pair(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert metrics_cost.main(["write", "--all-s", "8,10,9", "--all-metrics-s", "12,11,13", "--results",
                              str(H200 / "all_metrics"), "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["all_s"], doc["all_metrics_s"], doc["repeats"]) == (9, 12, 3)
    assert doc["ratio"] == 12 / 9 and not doc["within_goal"]
    assert doc["ratio_pairs"] == [12 / 8, 11 / 10, 13 / 9]
    assert (doc["ratio_pairs_min"], doc["ratio_pairs_max"]) == (1.1, 1.5)
    assert "medians of 3 alternated runs each; pairs 1.100-1.500" in capsys.readouterr().out
    assert schemas.validate_file(schemas.load_catalog(ROOT / "schemas"), out) == []
    # One run of each: no run lists (the committed files of one pair stay as they were).
    assert metrics_cost.main(["write", "--all-s", "8", "--all-metrics-s", "10", "--results", str(H200 / "all_metrics"),
                              "--out", str(out)]) == 0
    assert "repeats" not in json.loads(out.read_text())


def test_repeated_runs_must_pair_up(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert "as many of each" in _refused(capsys, out, "8,9", "12")
    with pytest.raises(SystemExit) as exit_:  # argparse's own one-line error
        metrics_cost.main(["write", "--all-s", "8,x", "--all-metrics-s", "12,13", "--results",
                           str(H200 / "all_metrics"), "--out", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid seconds value: '8,x'" in err and not out.exists()
    assert "--all-s 8,-1" in _refused(capsys, out, "8,-1", "12,13")
