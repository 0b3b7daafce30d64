"""One definition of the whole run on a GPU: the GPU workflow and the H200 runs both call
scripts/run_on_gpu.sh, which runs every scripts/gpu/NN-*.sh stage and checks its folder against
scripts/gpu/files.txt; results/h200/README.md lists exactly that file set, and the committed H200 run has
it. The check itself (divbench.gpu_files) is exercised on synthetic folders and on a run of the entry with
stand-in stages."""
import os
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT
from divbench import gpu_files

ENTRY = "scripts/run_on_gpu.sh"
# What results/h200 holds besides one run (its README says so).
# run-*.log: the logs of stages run again on their own (run.log is the whole run's).
NOT_FROM_A_RUN = ("README.md", "loop_cost.json", "console/*", "earlier-6357e41/*", "earlier-4133d6d/*", "earlier-d4bd0a2/*", "earlier-8418717/*",
                  "earlier-3af4ba5/*", "earlier-f584a11/*", "earlier-eef4363/*", "run-*", "probes/*")
# Stages added since the committed H200 run and not run there yet: their files are not looked for.
NOT_RUN_YET = ()


def stage_scripts():
    return sorted(p.stem for p in (ROOT / "scripts" / "gpu").glob("[0-9][0-9]-*.sh"))


def test_workflow_and_h200_runs_call_the_one_entry():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "gpu.yml").read_text())
    runs = [st.get("run", "") for st in wf["jobs"]["divbench"]["steps"]]
    calls = [r for r in runs if f"bash {ENTRY}" in r]
    assert len(calls) == 1, "gpu.yml runs the suite through scripts/run_on_gpu.sh, once"
    assert "DIVBENCH_GPU_BUDGET_S=0" in calls[0]
    text = "\n".join(runs)
    assert "scripts/gpu/prepare.sh" in text, "the bundle the entry runs is made by prepare.sh there too"
    # nothing of the run is defined in the workflow itself: no divbench experiment invoked outside the gate
    gate_free = "\n".join(r for r, st in zip(runs, wf["jobs"]["divbench"]["steps"]) if st.get("id") != "gate")
    assert not re.search(r"divbench\s+--(all|sweep|probe)", gate_free)
    entry = (ROOT / ENTRY).read_text()
    assert "scripts/gpu/[0-9][0-9]-*.sh" in entry and "divbench.gpu_files" in entry


def test_readme_table_is_the_file_set():
    stages = gpu_files.manifest()
    assert sorted(s for s in stages if s != "run") == stage_scripts(), "one line per stage script"
    readme = (ROOT / "results" / "h200" / "README.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| (\S+) \| (.*) \|$", readme, re.M)}
    for stage, files in stages.items():
        assert stage in rows, f"results/h200/README.md has no row for {stage}"
        # the backticked file names (a name has an extension; options and symbols like `a` do not)
        named = [n for n in re.findall(r"`([^`]+)`", rows[stage]) if re.fullmatch(r"[\w*-]+(/[\w*-]+)*\.[\w.]+", n)]
        assert sorted(named) == sorted(files), stage


def test_committed_h200_run_has_the_file_set():
    folder = ROOT / "results" / "h200"
    problems = [p for p in gpu_files.check_folder(folder, gpu_files.manifest())
                if not any(p.startswith(x.rstrip("*")) for x in NOT_FROM_A_RUN)
                and not any(p.startswith(f"{stage}: ") for stage in NOT_RUN_YET)]
    assert problems == []


def test_check_folder_finds_missing_and_unlisted(tmp_path):
    stages = {"10-kway": ["kway.json", "gate/*.md"], "run": ["summary.txt"]}
    (tmp_path / "gate").mkdir()
    (tmp_path / "kway.json").write_text("{}")
    (tmp_path / "gate" / "same.md").write_text("")
    (tmp_path / "summary.txt").write_text("")
    assert gpu_files.check_folder(tmp_path, stages) == []
    (tmp_path / "gate" / "same.md").unlink()
    (tmp_path / "stray.json").write_text("{}")
    assert gpu_files.check_folder(tmp_path, stages) == [
        "10-kway: gate/*.md missing", "stray.json: not in the file set of a run (scripts/gpu/files.txt)"]


def test_entry_runs_every_stage_and_checks_the_folder(tmp_path):
    """The real entry, with the repository copied and its stages replaced by stand-ins that write the
    listed files: exit 0 with every file; exit 1 when a stage leaves one out."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "scripts", repo / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    stages = gpu_files.manifest()
    gpu = repo / "scripts" / "gpu"
    for name in stage_scripts():
        concrete = [f.replace("*", "x") for f in stages[name]]
        mk = "\n".join(f'mkdir -p "$GPU_RESULTS/$(dirname {f})"; echo > "$GPU_RESULTS/{f}"' for f in concrete)
        (gpu / f"{name}.sh").write_text(f"#!/usr/bin/env bash\n{mk}\n")
    (repo / ".gpubundle" / "bin").mkdir(parents=True)
    (repo / ".gpubundle" / "bin" / "divbench").write_text("#!/bin/sh\n")
    (repo / ".gpubundle" / "bin" / "divbench").chmod(0o755)
    env = dict(os.environ, OUT=str(tmp_path / "out"), DIVBENCH_GPU="synthetic", PATH="/usr/bin:/bin")
    r = subprocess.run(["bash", "scripts/run_on_gpu.sh"], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all present, none unlisted" in r.stdout
    # a stage that leaves a file out
    (gpu / "40-bitflip.sh").write_text("#!/usr/bin/env bash\necho > \"$GPU_RESULTS/bitflip.json\"\n")
    r = subprocess.run(["bash", "scripts/run_on_gpu.sh"], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 1
    assert "40-bitflip: bitflip-8warps.json missing" in r.stdout


@pytest.mark.parametrize("env,line", [
    ({"DIVBENCH_GENERATED_KERNELS": "abc"}, "DIVBENCH_GENERATED_KERNELS: a count of kernels (1..1000), not 'abc'"),
    ({"DIVBENCH_GENERATED_KERNELS": "0"}, "DIVBENCH_GENERATED_KERNELS: 1..1000, not 0"),
    ({"DIVBENCH_GENERATED_KERNELS": "1001"}, "DIVBENCH_GENERATED_KERNELS: 1..1000, not 1001"),
    ({"DIVBENCH_GENERATED_PART": "bogus"}, "DIVBENCH_GENERATED_PART: all, measure or ncu, not 'bogus'"),
    ({"DIVBENCH_GENERATED_PART": "ncu"}, "DIVBENCH_GENERATED_PART=ncu needs DIVBENCH_GENERATED_SEED (the measure part's seed)"),
])
def test_generated_stage_refuses_bad_settings_before_touching_results(tmp_path, env, line):
    """Stage 53's settings: one line, exit 2, and an earlier run's folder left as it was (nothing run, nothing removed)."""
    kept = tmp_path / "attribute" / "generated" / "keep"
    kept.parent.mkdir(parents=True)
    kept.write_text("earlier run")
    full = {k: v for k, v in os.environ.items() if not k.startswith("DIVBENCH_GENERATED_")}
    full.update(env, GPU_RESULTS=str(tmp_path), RESULTS=str(tmp_path))
    r = subprocess.run(["bash", str(ROOT / "scripts" / "gpu" / "53-attribute-generated.sh")], env=full,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.strip() == line, (r.returncode, r.stderr)
    assert kept.read_text() == "earlier run" and sorted(p.name for p in tmp_path.rglob("*")) == ["attribute", "generated", "keep"]
