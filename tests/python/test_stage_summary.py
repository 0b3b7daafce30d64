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


def test_accuracy_lines_keep_the_committed_cost_lines_and_show_the_split_and_unpublished_fits(tmp_path):
    # the committed run's cost lines come out again (older file: no control, every fit numeric)
    lines = stage_summary.accuracy(str(H200), 0.0, 16.3, 20.0)
    strip = lambda line: re.sub(r"process wall=[0-9.]+s", "", line)  # noqa: E731
    committed = {strip(line) for line in committed_summary() if line.startswith(("cost", "  cost"))}
    assert committed and {strip(line) for line in lines if line.startswith(("cost", "  cost"))} == committed
    # a result with the control's split and a body not linear in n (a, b, c null)
    import json
    doc = json.loads((H200 / "cost.json").read_text())
    for b in doc["summary"]["bodies"]:
        if b["body"] == "mem_divergent":
            for key in ("a", "a_min", "a_max", "b", "b_min", "b_max", "c", "c_min", "c_max", "r2", "a_rel_err"):
                b[key] = None
            b["linear_in_n"], b["not_linear"] = False, "placement 0: max relative residual 54"
        else:
            b.update({"b_loop_cycles_per_path": 160.0, "b_loop_cycles_per_path_min": 159.0,
                      "b_loop_cycles_per_path_max": 161.5, "b_divergence_cycles_per_path": 19.3,
                      "b_divergence_cycles_per_path_min": 18.0, "b_divergence_cycles_per_path_max": 20.0,
                      "b_param_reads_cycles_per_path": None})
    (tmp_path / "cost.json").write_text(json.dumps(doc))
    out = stage_summary.accuracy(str(tmp_path), 0.0, 1.0, 1.0)
    (mem,) = [line for line in out if "cost mem_divergent" in line]
    assert "a=n/a [n/a, n/a] b=n/a" in mem and "not linear in n (placement 0: max relative residual 54)" in mem
    (chain,) = [line for line in out if "cost fma_chain" in line]
    assert chain.endswith("b_loop=160.0 [159.0, 161.5] b_divergence=19.3 [18.0, 20.0]")
    # With the slot control's split, its parts follow.
    for b in doc["summary"]["bodies"]:
        if b["body"] == "fma_chain":
            b.update({"b_param_reads_cycles_per_path": 4.5, "b_param_reads_cycles_per_path_min": 4.0,
                      "b_param_reads_cycles_per_path_max": 5.0, "b_branch_cycles_per_path": 14.8,
                      "b_branch_cycles_per_path_min": 14.0, "b_branch_cycles_per_path_max": 15.0})
    (tmp_path / "cost.json").write_text(json.dumps(doc))
    (chain,) = [line for line in stage_summary.accuracy(str(tmp_path), 0.0, 1.0, 1.0) if "cost fma_chain" in line]
    assert chain.endswith("b_divergence=19.3 [18.0, 20.0] = b_param_reads 4.5 [4.0, 5.0] + b_branch 14.8 [14.0, 15.0]")


def test_attribute_line_matches_the_committed_run():
    (line,) = stage_summary.attribute(str(H200 / "attribute" / "validation.json"))
    assert line in committed_summary()
