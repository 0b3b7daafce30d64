"""scripts/slurm/: valid bash; submit.sh submits one job array per GPU type plus a dependent gather job
(a fake sbatch records the calls); gather.sh fills results/<gpu>/ from the stage and draws the figures."""
import importlib
import json
import os
import subprocess
import sys

import pytest

from conftest import REFERENCE, ROOT, device, kway, write

SLURM = ROOT / "scripts" / "slurm"
SCRIPTS = ["divbench-array.sbatch", "submit.sh", "gather.sh"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_bash_syntax(name):
    p = subprocess.run(["bash", "-n", str(SLURM / name)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def fake_sbatch(tmp_path):
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "sbatch.log"
    (bin_ / "sbatch").write_text(
        "#!/usr/bin/env bash\n"
        f"echo \"$*\" >> '{log}'\n"
        f"n=$(wc -l < '{log}')\n"
        "echo $((100 + n))\n")
    (bin_ / "sbatch").chmod(0o755)
    return bin_, log


def test_submit_one_array_per_type_then_gather(tmp_path):
    bin_, log = fake_sbatch(tmp_path)
    gpus = tmp_path / "gpus.txt"
    gpus.write_text("# comment\na100 gpu:a100:1 --partition=gpu\n\nh100 gpu:h100:1\n")
    env = dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}", DIVBENCH_STAGE=str(tmp_path / "stage"))
    p = subprocess.run(["bash", str(SLURM / "submit.sh"), str(gpus), "3"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    calls = log.read_text().splitlines()
    assert len(calls) == 3
    assert "--gres=gpu:a100:1" in calls[0] and "--array=1-3" in calls[0] and "--partition=gpu" in calls[0]
    assert "DIVBENCH_GPU=a100" in calls[0] and calls[0].endswith("divbench-array.sbatch")
    assert "--gres=gpu:h100:1" in calls[1] and "DIVBENCH_GPU=h100" in calls[1]
    assert "--dependency=afterany:101:102" in calls[2] and "gather.sh" in calls[2]


@pytest.mark.parametrize("content, args, message", [
    ("a100\n", [], "has no GRES"),
    ("# nothing\n", [], "no GPU types"),
    ("a100 gpu:a100:1\n", ["0"], "REPEATS must be a positive integer"),
])
def test_submit_bad_input(tmp_path, content, args, message):
    bin_, _ = fake_sbatch(tmp_path)
    gpus = tmp_path / "gpus.txt"
    gpus.write_text(content)
    env = dict(os.environ, PATH=f"{bin_}:{os.environ['PATH']}", DIVBENCH_STAGE=str(tmp_path / "stage"))
    p = subprocess.run(["bash", str(SLURM / "submit.sh"), str(gpus)] + args, capture_output=True, text=True, env=env)
    assert p.returncode == 2 and message in p.stderr


def test_gather(tmp_path):
    stage = tmp_path / "stage"
    results = tmp_path / "results"
    write(stage / "gpu_x", "kway.json", kway(device("SYNTHETIC GPU X", "8.0"), 500.0, 5.0))
    (stage / "empty").mkdir(parents=True)
    write(results / "reference", "paper-2607.23402.json", json.loads((ROOT / "results/reference/paper-2607.23402.json").read_text()))
    env = dict(os.environ, DIVBENCH_RESULTS=str(results), MPLBACKEND="Agg")
    p = subprocess.run(["bash", str(SLURM / "gather.sh"), str(stage)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert (results / "gpu_x" / "kway.json").exists()
    assert "empty produced no JSON" in p.stderr
    assert (results / "figures" / "figure1_kway.png").exists()
    assert "SYNTHETIC GPU X (gpu_x)" in (results / "figures" / "compare.md").read_text()
    # a second gather does not overwrite without FORCE=1
    p = subprocess.run(["bash", str(SLURM / "gather.sh"), str(stage)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "already holds results" in p.stderr


def test_gather_refuses_a_disturbed_gpu(tmp_path):
    """The verdict is recomputed from the data: a GPU whose result lists another process on the GPU is not
    gathered (named, with the reason) unless ALLOW_DISTURBED=1."""
    stage = tmp_path / "stage"
    results = tmp_path / "results"
    r = kway(device("SYNTHETIC GPU X", "8.0"), 500.0, 5.0)
    r["points"][0]["conditions"] = {"available": True, "processes": {
        "before": {"read": True, "others": [4242], "others_count": 1},
        "after": {"read": True, "others": [4242], "others_count": 1}}}
    write(stage / "gpu_x", "kway.json", r)
    write(results / "reference", "paper-2607.23402.json", json.loads((ROOT / "results/reference/paper-2607.23402.json").read_text()))
    env = dict(os.environ, DIVBENCH_RESULTS=str(results), MPLBACKEND="Agg")
    p = subprocess.run(["bash", str(SLURM / "gather.sh"), str(stage)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and not (results / "gpu_x").exists(), p.stderr
    assert "gpu_x not gathered" in p.stderr and "co_tenant" in p.stderr and "ALLOW_DISTURBED=1" in p.stderr
    env["ALLOW_DISTURBED"] = "1"
    p = subprocess.run(["bash", str(SLURM / "gather.sh"), str(stage)], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and (results / "gpu_x" / "kway.json").exists(), p.stderr
    assert "--allow-disturbed" in (results / "figures" / "compare.md").read_text()


# The gather never follows or writes outside the stage and DIVBENCH_RESULTS (issue 37): planted symlinks
# at a temporary name or a destination, staged symlinks, and status files or logs that are FIFOs, devices
# or too large. Every refusal is one line, exit 2, before anything is written; nothing may hang (timeout).
def run_gather(stage, results, **env):
    env = dict(os.environ, DIVBENCH_RESULTS=str(results), MPLBACKEND="Agg", **env)
    return subprocess.run(["bash", str(SLURM / "gather.sh"), str(stage)], capture_output=True, text=True, env=env,
                          timeout=120)


def one_error(p, *words):
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("gather: error: "), p.stderr
    assert all(w in lines[0] for w in words), p.stderr


def gpu_stage(tmp_path, s=500.0):
    stage, results = tmp_path / "stage", tmp_path / "results"
    write(stage / "gpu_x", "kway.json", kway(device("SYNTHETIC GPU X", "8.0"), s, 5.0))
    return stage, results


@pytest.mark.parametrize("victim_exists", [True, False])
def test_gather_never_follows_a_planted_temporary_file(tmp_path, victim_exists):
    stage, results = gpu_stage(tmp_path)
    write(results / "reference", "paper-2607.23402.json", json.loads(REFERENCE.read_text()))
    write(results / "gpu_x", "kway.json", {"old": True})
    victim = tmp_path / "outside" / "victim"
    victim.parent.mkdir()
    if victim_exists:
        victim.write_text("not yours\n")
    os.symlink(victim, results / "gpu_x" / ".kway.json.tmp")  # the temporary name an older gather used
    p = run_gather(stage, results, FORCE="1")
    assert p.returncode == 0, p.stderr
    assert victim.read_text() == "not yours\n" if victim_exists else not os.path.lexists(victim)
    dest = results / "gpu_x" / "kway.json"
    assert not dest.is_symlink() and json.loads(dest.read_text())["experiment"] == "kway"
    assert sorted(os.listdir(results / "gpu_x")) == [".kway.json.tmp", "kway.json"]  # no temporary file left


@pytest.mark.parametrize("target_exists", [True, False])
def test_gather_refuses_a_symlink_at_a_destination(tmp_path, target_exists):
    stage, results = gpu_stage(tmp_path)
    outside = tmp_path / "outside.json"
    if target_exists:
        outside.write_text("{}\n")
    (results / "gpu_x").mkdir(parents=True)
    os.symlink(outside, results / "gpu_x" / "kway.json")
    p = run_gather(stage, results, FORCE="1")
    one_error(p, str(results / "gpu_x" / "kway.json"), "a symlink in DIVBENCH_RESULTS")
    assert (results / "gpu_x" / "kway.json").is_symlink()
    assert outside.read_text() == "{}\n" if target_exists else not os.path.lexists(outside)
    assert os.listdir(results / "gpu_x") == ["kway.json"]


@pytest.mark.parametrize("link", ["gpu_y/kway.json", "gpu_y"])
def test_gather_refuses_a_staged_symlink_before_writing(tmp_path, link):
    """gpu_x (sorted first) is fine; gpu_y or its file is a symlink out of the stage: nothing is gathered."""
    stage, results = gpu_stage(tmp_path)
    secret = tmp_path / "outside" / "gpu_y"
    write(secret, "kway.json", kway(device("SYNTHETIC GPU Y", "8.0"), 400.0, 5.0))
    if link == "gpu_y":
        os.symlink(secret, stage / "gpu_y")
    else:
        (stage / "gpu_y").mkdir()
        os.symlink(secret / "kway.json", stage / "gpu_y" / "kway.json")
    p = run_gather(stage, results)
    one_error(p, str(stage / link), "a symlink in the stage")
    assert not results.exists()


def task_stage(tmp_path):
    stage, results = gpu_stage(tmp_path)
    (stage / "tasks.tsv").write_text("5\t1\tgpu\tgpu_x\n")
    (stage / "status").mkdir()
    (stage / "logs").mkdir()
    return stage, results


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "too_large", "symlink"])
def test_gather_reads_only_a_small_regular_status_file(tmp_path, kind):
    stage, results = task_stage(tmp_path)
    status = stage / "status" / "5_1"
    if kind == "fifo":
        os.mkfifo(status)
    elif kind == "dev_zero":
        os.symlink("/dev/zero", status)
    elif kind == "too_large":
        status.write_text("rc=0 host=n1 start=1 end=2 " + "x" * (64 << 10) + "\n")
    else:
        (tmp_path / "elsewhere").write_text("rc=0 host=n1 start=1 end=2\n")
        os.symlink(tmp_path / "elsewhere", status)
    p = run_gather(stage, results)
    one_error(p, str(status), {"fifo": "not a regular file", "dev_zero": "a symlink in the stage",
                               "too_large": "more than the 65536 bytes", "symlink": "a symlink in the stage"}[kind])
    assert not results.exists()


def test_gather_does_not_wait_on_a_fifo_log(tmp_path):
    stage, results = task_stage(tmp_path)
    (stage / "status" / "5_1").write_text("rc=1 host=n1 start=1 end=2\n")
    os.mkfifo(stage / "logs" / "divbench-gpu_x-5_1.out")
    p = run_gather(stage, results)
    assert p.returncode == 1, p.stderr
    assert "FAILED exit 1 on n1 after 1 s: (log not read: " in p.stderr and "not a regular file" in p.stderr


def test_gather_write_failure_keeps_the_old_file(tmp_path, monkeypatch):
    """write_new: when the rename fails the temporary file is removed and the destination left as it was."""
    sys.path.insert(0, str(SLURM))
    gather = importlib.import_module("gather")
    (tmp_path / "kway.json").write_text("old\n")

    def fail(*a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gather.os, "replace", fail)
    with pytest.raises(gather.GatherError, match="cannot write .*kway.json .No space left on device"):
        gather.write_new(str(tmp_path), "kway.json", b"new\n")
    assert os.listdir(tmp_path) == ["kway.json"] and (tmp_path / "kway.json").read_text() == "old\n"
