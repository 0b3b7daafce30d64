"""scripts/slurm/ without a cluster: submit.sh --study and GRES "none" against a stand-in sbatch that
records its argv; the array scripts run by hand (their checks and the status file they leave); gather.py
on stages built here: failed and missing tasks named, the study merged from shards cut out of the
committed results/static/ (and refused when incomplete, from another corpus, or over existing results).
The real cluster run is tests/slurm/test_study_array.sh and test_gpu_array.sh."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SLURM = ROOT / "scripts" / "slurm"
STATIC = ROOT / "results" / "static"
from divbench.study import shards as study_shards  # noqa: E402  (pytest.ini: pythonpath = scripts)

ARCHS = study_shards.archs()


def run(argv, env=None, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), **kw)


@pytest.fixture
def sbatch(tmp_path):
    """A stand-in sbatch: appends its argv (JSON) to calls.jsonl and answers job ids 201, 202, ..."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    calls = tmp_path / "calls.jsonl"
    (bin_ / "sbatch").write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"with open({str(calls)!r}, 'a') as f: f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"print(200 + sum(1 for _ in open({str(calls)!r})))\n")
    (bin_ / "sbatch").chmod(0o755)
    fake = tmp_path / "divbench"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    env = {"PATH": f"{bin_}:{os.environ['PATH']}", "DIVBENCH_STAGE": str(tmp_path / "stage")}
    return env, calls, fake


def read_calls(calls):
    return [json.loads(line) for line in calls.read_text().splitlines()]


def manifest(stage):
    return [line.split("\t") for line in (stage / "tasks.tsv").read_text().splitlines()]


def test_archs_order_and_validation():
    assert ARCHS[:2] == ["sm_61", "sm_70"] and len(ARCHS) == 12 and "sm_121" in ARCHS
    assert study_shards.archs(["sm_90", "sm_61"]) == ["sm_61", "sm_90"]
    p = run([sys.executable, "-m", "divbench.study.shards", "archs", "--arch", "sm_99"],
            env={"PYTHONPATH": str(ROOT / "scripts")})
    assert p.returncode == 2 and "unknown architecture 'sm_99'" in p.stderr


def test_submit_study_one_task_per_arch(sbatch, tmp_path):
    env, calls, fake = sbatch
    p = run(["bash", SLURM / "submit.sh", "--study", "--divbench", fake, "--cu12-prefix", tmp_path,
             "--cache", tmp_path / "cubins"], env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["201", "202"]
    array, gather = read_calls(calls)
    assert f"--array=1-{len(ARCHS)}" in array
    export = next(a for a in array if a.startswith("--export="))
    assert f"DIVBENCH_STUDY_ARCHS={' '.join(ARCHS)}" in export and f"DIVBENCH_SRC={ROOT}" in export
    script = array.index(str(SLURM / "study-array.sbatch"))
    # submit.sh's own --divbench first, then the study's arguments as given
    assert array[script + 1:] == ["--divbench", str(fake), "--cu12-prefix", str(tmp_path), "--cache", str(tmp_path / "cubins")]
    assert "--dependency=afterany:201" in gather and any("gather.sh" in a for a in gather)
    rows = manifest(tmp_path / "stage")
    assert rows == [["201", str(i + 1), "study", a] for i, a in enumerate(ARCHS)]


def test_submit_study_arch_subset_and_gres_none(sbatch, tmp_path):
    env, calls, fake = sbatch
    p = run(["bash", SLURM / "submit.sh", "--study", "--arch", "sm_90", "--arch=sm_100", "--divbench", fake,
             "--cu12-prefix", tmp_path], env)
    assert p.returncode == 0, p.stderr
    assert "--array=1-2" in read_calls(calls)[0]
    assert [r[3] for r in manifest(tmp_path / "stage")] == ["sm_90", "sm_100"]
    # GRES "none": no --gres; repetitions named <gpu>-rN in the task list
    gpus = tmp_path / "gpus.txt"
    gpus.write_text("cpuonly none --cpus-per-task=1\n")
    env2 = dict(env, DIVBENCH_STAGE=str(tmp_path / "stage2"))
    p = run(["bash", SLURM / "submit.sh", gpus, "2"], env2)
    assert p.returncode == 0, p.stderr
    call = read_calls(calls)[2]
    assert not any(a.startswith("--gres") for a in call) and "--cpus-per-task=1" in call
    assert [r[3] for r in manifest(tmp_path / "stage2")] == ["cpuonly", "cpuonly-r2"]


@pytest.mark.parametrize("args, message", [
    (["--study", "--out", "x"], "tasks write into the stage"),
    (["--study", "--arch", "sm_42"], "unknown architecture"),
    (["--study", "--divbench", "/nonexistent/divbench", "--cu12-prefix", "/tmp"], "divbench not executable"),
])
def test_submit_study_bad_input(sbatch, tmp_path, args, message):
    env, calls, _ = sbatch
    p = run(["bash", SLURM / "submit.sh"] + args, env)
    assert p.returncode == 2 and message in p.stderr
    assert not calls.exists() and not (tmp_path / "stage").exists()


def test_submit_refuses_a_used_stage(sbatch, tmp_path):
    env, calls, fake = sbatch
    argv = ["bash", SLURM / "submit.sh", "--study", "--arch", "sm_90", "--divbench", fake, "--cu12-prefix", tmp_path]
    assert run(argv, env).returncode == 0
    p = run(argv, env)
    assert p.returncode == 2 and "already holds a submission" in p.stderr
    assert len(read_calls(calls)) == 2


def test_array_scripts_record_how_they_ended(tmp_path):
    stage = tmp_path / "stage"
    env = {"DIVBENCH_SRC": str(ROOT), "DIVBENCH_STAGE": str(stage), "SLURM_ARRAY_JOB_ID": "7",
           "SLURM_ARRAY_TASK_ID": "13", "DIVBENCH_STUDY_ARCHS": " ".join(ARCHS)}
    p = run(["bash", SLURM / "study-array.sbatch"], env)
    assert p.returncode == 2 and "task 13 but only 12 architectures" in p.stderr
    assert (stage / "status" / "7_13").read_text().startswith("rc=2 host=")
    p = run(["bash", SLURM / "divbench-array.sbatch"],
            dict(env, DIVBENCH_GPU="a100", SLURM_ARRAY_TASK_ID="2", CUDA_VISIBLE_DEVICES=""))
    assert p.returncode == 1
    assert p.stderr.strip().endswith("no GPU visible on " + os.uname().nodename + " (check --gres for a100)")
    assert (stage / "status" / "7_2").read_text().startswith("rc=1 host=")


def make_stage(tmp_path, tasks, statuses, logs=None):
    """tasks: [(job, task, kind, name)]; statuses: {(job, task): rc}; logs: {(job, task, jobname): text}."""
    stage = tmp_path / "stage"
    (stage / "status").mkdir(parents=True)
    (stage / "logs").mkdir()
    (stage / "tasks.tsv").write_text("".join("\t".join(map(str, t)) + "\n" for t in tasks))
    for (job, task), rc in statuses.items():
        (stage / "status" / f"{job}_{task}").write_text(f"rc={rc} host=node1 start=100 end=142\n")
    for (job, task, name), text in (logs or {}).items():
        (stage / "logs" / f"{name}-{job}_{task}.out").write_text(text)
    return stage


def study_stage(tmp_path, archs=ARCHS, failed=()):
    stage = make_stage(tmp_path, [(9, i + 1, "study", a) for i, a in enumerate(archs)],
                       {(9, i + 1): (1 if a in failed else 0) for i, a in enumerate(archs)},
                       {(9, i + 1, "divbench-study"): f"study: error: {a} broke\n" for i, a in enumerate(archs) if a in failed})
    for a in archs:
        if a not in failed:
            (stage / "study" / a).mkdir(parents=True)
            shutil.copy(STATIC / f"{a}.json", stage / "study" / a / f"{a}.json")
    return stage


def gather(stage, results, force=False):
    """gather.sh, as submit.sh runs it (it puts the package's import root, scripts/, on PYTHONPATH)."""
    return run(["bash", SLURM / "gather.sh", stage],
               {"DIVBENCH_RESULTS": str(results), "FORCE": "1" if force else "0", "MPLBACKEND": "Agg"})


def test_gather_merges_the_study_into_the_committed_files(tmp_path):
    stage, results = study_stage(tmp_path), tmp_path / "results"
    p = gather(stage, results)
    assert p.returncode == 0, p.stderr
    assert "study sm_61 (job 9 task 1): ok on node1 after 42 s" in p.stderr
    assert study_shards.compare(STATIC, results / "static") == []
    assert sorted(os.listdir(results / "static")) == sorted(os.listdir(STATIC))
    run_info = json.loads((results / "static" / "table2.json").read_text())["run"]
    assert "Slurm array tasks" in run_info["generator"] and run_info["slurm_jobs"] == ["9"]
    # a second gather does not write over results/static/ without FORCE=1
    p = gather(stage, results)
    assert p.returncode == 1 and "already holds results; FORCE=1 to replace" in p.stderr
    assert gather(stage, results, force=True).returncode == 0


def test_gather_names_failed_and_missing_tasks(tmp_path):
    stage = make_stage(tmp_path, [(5, 1, "gpu", "a100"), (5, 2, "gpu", "a100-r2"), (6, 1, "gpu", "h100")],
                       {(5, 1): 1, (6, 1): 0},
                       {(5, 1, "divbench-a100"): "building\ndivbench-array: no GPU visible on n1 (check --gres for a100)\n"})
    (stage / "h100").mkdir()
    p = gather(stage, tmp_path / "results")
    assert p.returncode == 1
    assert ("gpu a100 (job 5 task 1): FAILED exit 1 on node1 after 42 s: divbench-array: no GPU visible on n1 "
            "(check --gres for a100) [log: logs/divbench-a100-5_1.out]") in p.stderr
    assert "gpu a100-r2 (job 5 task 2): FAILED no status recorded (never ran, cancelled, or killed): (no log)" in p.stderr
    assert "h100 produced no JSON" in p.stderr
    assert "2 of 3 tasks failed: a100, a100-r2" in p.stderr
    assert not (tmp_path / "results").exists()


def test_gather_refuses_a_partial_or_foreign_study(tmp_path):
    stage, results = study_stage(tmp_path, failed=("sm_70",)), tmp_path / "results"
    p = gather(stage, results)
    assert p.returncode == 1
    assert "static study not gathered: 1 of 12 architectures failed (sm_70)" in p.stderr
    assert "FAILED exit 1 on node1 after 42 s: study: error: sm_70 broke" in p.stderr
    assert not (results / "static").exists()

    shutil.rmtree(tmp_path / "stage")
    stage = study_stage(tmp_path, archs=["sm_90"])
    doc = json.loads((stage / "study" / "sm_90" / "sm_90.json").read_text())
    doc["corpus"]["sha256"] = "0" * 64
    (stage / "study" / "sm_90" / "sm_90.json").write_text(json.dumps(doc))
    p = gather(stage, results)
    assert p.returncode == 1 and "sm_90: shard made from another corpus" in p.stderr
    assert not (results / "static").exists()


def test_gather_refuses_symlinks_around_the_study(tmp_path):
    """A shard that is a symlink out of the stage, or a symlink at a file RESULTS/static/ would get: one
    line, exit 2, nothing written (issue 37)."""
    stage, results = study_stage(tmp_path), tmp_path / "results"
    shard = stage / "study" / "sm_90" / "sm_90.json"
    outside = tmp_path / "outside.json"
    shard.rename(outside)
    shard.symlink_to(outside)
    p = gather(stage, results)
    assert p.returncode == 2 and f"gather: error: {shard}: a symlink in the stage" in p.stderr
    assert not results.exists()

    shard.unlink()
    outside.rename(shard)
    (results / "static").mkdir(parents=True)
    (results / "static" / "table2.json").symlink_to(outside)
    p = gather(stage, results, force=True)
    assert p.returncode == 2 and "table2.json: a symlink in DIVBENCH_RESULTS" in p.stderr
    assert os.listdir(results / "static") == ["table2.json"] and not outside.exists()
