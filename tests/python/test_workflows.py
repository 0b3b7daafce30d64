"""The GitHub workflows: what they promise (docs/gpu-ci.md), and every run: block is valid bash
(bash -n; shellcheck too where it is installed). The schema lint is a separate CTest test
(check-jsonschema --builtin-schema vendor.github-workflows)."""
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT

WF = ROOT / ".github" / "workflows"


EXAMPLE = ROOT / "examples" / "ci" / "divergence-gate.yml"  # the gate users copy (examples/ci/README.md)


def load(name):
    return yaml.safe_load((WF / name).read_text() if name != "divergence-gate.yml" else EXAMPLE.read_text())


def steps(wf):
    for job in wf["jobs"].values():
        yield from job["steps"]


def run_blocks():
    for name in ("ci.yml", "gpu.yml", "divergence-gate.yml"):
        for i, st in enumerate(steps(load(name))):
            if "run" in st:
                yield f"{name}:{st.get('name', i)}", st["run"]


def test_gpu_workflow_contract():
    wf = load("gpu.yml")
    job = wf["jobs"]["divbench"]
    assert job["runs-on"] == ["self-hosted", "linux", "gpu"]
    text = "\n".join(st.get("run", "") for st in job["steps"])
    assert "nvidia-smi -L" in text and "::error::" in text and "exit 1" in text
    assert "CMAKE_CUDA_ARCHITECTURES=native" in text
    assert "bash scripts/run_on_gpu.sh" in text  # the whole run: tests/python/test_gpu_entry.py
    assert "scripts/figures.py" in text and "scripts/compare.py" in text
    upload = [st for st in job["steps"] if str(st.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload and upload[0]["with"]["path"] == "results/"
    # the gate: a fresh sweep against the committed results of this GPU, report and benchmark JSON uploaded
    # even when the gate fails (the uploads come after it and run unless cancelled)
    gate = next(st for st in job["steps"] if st.get("id") == "gate")
    assert 'git show "HEAD:$GPU_DIR/kway_default.json"' in gate["run"]
    assert re.search(r"compare\.py --gate \S+ \S+ \\\n\s+--report gate/report\.md --benchmark-json gate/benchmark\.json",
                     gate["run"])
    assert "GITHUB_STEP_SUMMARY" in gate["run"] and 'exit "$rc"' in gate["run"]
    steps_in_order = job["steps"]
    assert all(steps_in_order.index(u) > steps_in_order.index(gate) and u.get("if") == "${{ !cancelled() }}"
               for u in upload)
    assert [u["with"]["path"] for u in upload] == ["results/", "gate/"]
    # the "Require a GPU" step comes before any build step
    names = [st.get("name", "") for st in job["steps"]]
    assert names.index("Require a GPU (fail loudly without one)") < names.index("Build for the native architecture")


def test_divergence_gate_example():
    wf = load("divergence-gate.yml")
    job = wf["jobs"]["divergence"]
    assert job["runs-on"] == ["self-hosted", "linux", "gpu"]
    by_name = {st.get("name", ""): st for st in job["steps"]}
    attribute = by_name["Attribute divergence"]["run"]
    assert ("attribute --quiet --no-pc-sampling --repeat 2 --save-counts divergence/counts --out divergence/attribute.json"
            in attribute)
    diff = by_name["Diff against the base branch"]
    assert "attribute diff base/attribute.json divergence/attribute.json $GATE_OPTIONS" in diff["run"]
    assert "--markdown divergence/diff.md" in diff["run"] and "GITHUB_STEP_SUMMARY" in diff["run"]
    assert "--annotations github --sarif divergence/diff.sarif" in diff["run"]
    upload = by_name["Upload the regressions to code scanning"]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "divergence/diff.sarif" and upload["if"].startswith("github.event_name == 'pull_request'")
    assert wf["permissions"]["security-events"] == "write"
    assert 'if [ "$rc" -gt 1 ]; then exit "$rc"; fi' in diff["run"]  # a failed diff fails the job at once
    assert by_name["Fail on a divergence regression"]["if"] == "steps.diff.outputs.rc == '1'"
    assert "-lineinfo" in by_name["Build with a line table"]["run"]
    # the same commands as the docs give
    doc = (ROOT / "docs" / "attribute.md").read_text()
    for command in ("divbench attribute --quiet --no-pc-sampling --repeat 2 --save-counts divergence/counts --out divergence/attribute.json",
                    "divbench attribute diff base/attribute.json divergence/attribute.json",
                    "--annotations github --sarif divergence/diff.sarif"):
        assert command in doc, f"docs/attribute.md does not give {command}"


def test_ci_workflow_contract():
    wf = load("ci.yml")
    text = "\n".join(st.get("run", "") for st in steps(wf))
    assert "bash .ci/run" in text and "pytest -q tests/python" in text
    assert "check-jsonschema --builtin-schema vendor.github-workflows" in text
    assert all("gpu" not in str(j["runs-on"]) for j in wf["jobs"].values())


@pytest.mark.parametrize("where, script", list(run_blocks()))
def test_run_blocks_are_valid_bash(tmp_path, where, script):
    # ${{ expr }} is substituted by Actions before bash sees the script
    body = re.sub(r"\$\{\{[^}]*\}\}", "X", script)
    f = tmp_path / "step.sh"
    f.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + body)
    p = subprocess.run(["bash", "-n", str(f)], capture_output=True, text=True)
    assert p.returncode == 0, f"{where}: {p.stderr}"
    if shutil.which("shellcheck"):
        p = subprocess.run(["shellcheck", "-s", "bash", "-e", "SC2129", str(f)], capture_output=True, text=True)
        assert p.returncode == 0, f"{where}:\n{p.stdout}"
