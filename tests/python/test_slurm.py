"""scripts/slurm/: valid bash; submit.sh submits one job array per GPU type plus a dependent gather job
(a fake sbatch records the calls); gather.sh fills results/<gpu>/ from the stage and draws the figures."""
import json
import os
import subprocess

import pytest

from conftest import ROOT, device, kway, write

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
