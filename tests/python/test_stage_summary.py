"""divbench.stage_summary (the one-line summaries the GPU stages append to summary.txt), on the committed
H200 results: the lines the stages printed in that run (results/h200/summary.txt) come out again, and a
missing stage file is a line of its own, not a stop."""
import re

from divbench import stage_summary
from divbench.paths import repo_root

H200 = repo_root() / "results" / "h200"


def committed_summary() -> set[str]:
    return set((H200 / "summary.txt").read_text().splitlines())


def test_dynamic_lines_match_the_committed_run():
    lines = stage_summary.dynamic(str(H200), 0.0, 1.0)
    # the first line carries this call's own wall time; every other line is the run's
    assert lines[0].startswith("dynamic --all: process wall 1.0s, benchmark wall ")
    assert set(lines[1:]) <= committed_summary() and len(lines) > 20


def test_kway_and_bitflip_lines():
    # the line the run printed, but for the process wall time (this call's own t1 - t0)
    (kway,) = stage_summary.kway(str(H200 / "kway.json"), 0.0, 15.5)
    (committed,) = [line for line in committed_summary() if line.startswith("kway: ")]
    strip = lambda line: re.sub(r"process wall=[0-9.]+s ", "", line)  # noqa: E731
    assert strip(kway) == strip(committed)
    assert kway.startswith("kway: NVIDIA H200 s=280179 ")
    flips = stage_summary.bitflip(0.0, 1.0, [str(H200 / "bitflip.json")])
    assert flips[0].startswith("bitflip: sm_90 NVIDIA H200 threads=32 control_ok=True")


def test_missing_stage_file_is_reported_and_the_rest_still_prints(tmp_path, capsys):
    (tmp_path / "lock.json").write_text((H200 / "lock.json").read_text())
    assert stage_summary.main(["dynamic", str(tmp_path), "0", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("lock: completed=True") for line in out)
    assert any(line.startswith("dynamic: predication.json: missing or unreadable") for line in out)
