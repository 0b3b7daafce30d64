#!/usr/bin/env python3
"""In sample or out of sample (issue 47 item 5): the ledger in scripts/divbench/attribute_validation.py
(RULES: the rules in use and the commit that last changed each; SET_FIRST_RUN: when each set of shapes first
ran) against what it claims to summarise.
  - every rule commit exists in git with the time the ledger gives, and touches the model's code (skipped,
    saying so, where the checkout has no history);
  - no rule changed since the shapes' run unseen: the current divbench re-analyses the committed recording
    of the shapes (results/h200/attribute/shapes_random, shapes_sorted: `--save-counts` of that run) and
    must give every kernel the cycles lost the committed documents hold. A commit that changes them changes
    a rule: it goes into RULES, and the shapes run before it become in sample;
  - validation.json marks each shape as the ledger says, and only shapes whose first run came after every
    rule are out of sample.
usage: sample_ledger_test.py DIVBENCH SOURCE_DIR"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

MODEL_FILES = ("src/attribute/attribution.cpp", "src/attribute/run.cpp", "src/model/issue_cost.cpp",
               "src/model/memory_cost.cpp", "include/divbench/model/memory_cost.hpp", "src/model/loop_cost_constants.cpp")


def git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    sys.path.insert(0, str(root / "scripts"))
    from divbench import attribute_validation as av  # noqa: E402 - the package lives in scripts/

    failures = []
    if git(root, "cat-file", "-e", av.RULES[0][0] + "^{commit}").returncode != 0:
        print("SKIP (git part): the checkout has no history of the rule commits")
    else:
        for commit, when, what in av.RULES:
            t = git(root, "show", "-s", "--format=%cI", commit).stdout.strip().replace("+00:00", "Z")
            if t != when:
                failures.append(f"rule {commit} ({what}): committed {t!r}, the ledger says {when}")
            files = git(root, "show", "--name-only", "--format=", commit).stdout.split()
            if not files:
                failures.append(f"rule {commit}: no such commit")
            if not any(f in MODEL_FILES or f.startswith("src/attribute/") or f.startswith("src/model/") for f in files):
                failures.append(f"rule {commit}: touches none of the model's code ({files[:5]})")

        # Each set's shapes appear in tests/attribute/shapes.cu at the commit it was written in, not before.
        for k, commit in av.SET_WRITTEN.items():
            names = [n for n, s in av.SHAPE_SETS.items() if s == k]
            text = git(root, "show", f"{commit}:tests/attribute/shapes.cu").stdout
            before = git(root, "show", f"{commit}~1:tests/attribute/shapes.cu").stdout
            for n in names:
                if f"{n}" not in text or (k > 0 and f'"{n}"' in before):
                    failures.append(f"set {k} ({n}): not written in {commit}")
    a = root / "results" / "h200" / "attribute"
    with tempfile.TemporaryDirectory() as tmp:
        for order in ("random", "sorted"):
            out = Path(tmp) / f"{order}.json"
            r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(a / f"shapes_{order}"), "--out", str(out)],
                               capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                failures.append(f"--from-counts shapes_{order}: exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            now = {k["name"]: k["cycles_lost"] for k in json.loads(out.read_text())["kernels"]}
            then = {k["name"]: k["cycles_lost"] for k in json.loads((a / f"shapes_{order}.json").read_text())["kernels"]}
            if set(now) != set(then):
                failures.append(f"shapes_{order}: kernels differ from the committed document")
            for name, c in then.items():
                if name in now and abs(now[name] - c) > 1e-9 * max(1.0, abs(c)):
                    failures.append(f"shapes_{order} {name[:60]}: cycles lost {now[name]:.6g} now, {c:.6g} committed: "
                                    "a rule changed since the shapes' run (add its commit to RULES)")
            print(f"shapes_{order}: {len(then)} kernels re-analysed, {'identical' if not failures else 'see failures'}")

    v = json.loads((a / "validation.json").read_text())
    last = max(t for _, t, _ in av.RULES)
    for row in v["shapes"]:
        want, after = av.sample_of(row["shape"])
        if row.get("sample") != want or row.get("rules_changed_after_first_run") != after:
            failures.append(f"validation.json {row['shape']}: sample {row.get('sample')!r}, the ledger says {want!r}")
        if want == "out_of_sample" and av.SET_FIRST_RUN[av.SHAPE_SETS[row["shape"]]] <= last:
            failures.append(f"{row['shape']}: out of sample, yet first run before the last rule change")
    outs = [r["shape"] for r in v["shapes"] if r.get("sample") == "out_of_sample"]
    if v["summary"].get("shapes_out_of_sample") != len(outs):
        failures.append("summary.shapes_out_of_sample does not count the rows")
    print(f"out of sample: {outs}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
