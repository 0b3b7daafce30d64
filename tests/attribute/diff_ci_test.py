#!/usr/bin/env python3
"""`divbench attribute diff --annotations github` and `--sarif FILE` (issue 49 item 2), no GPU:
  - one regression (tests/data/attribute/diff/lanes_added_branch.json, its sources moved into a folder
    named `we,ird:dir` of a repository root made here): one `::error file=...,line=67,title=...::` line,
    the path relative to the git top-level of the current directory (the default --repo-root) with ',' and
    ':' escaped; from a subfolder the same; with --repo-root elsewhere the path as given and the message
    says so; exit status 1 with and without the options;
  - 17 regressions of every kind (a synthetic pair): 10 ::error lines worst first (the largest rise of
    cycles lost), the one without a source line file-less, then one ::notice:: saying 7 did not fit;
    '%' and a newline of a kernel name escaped in the message;
  - the SARIF: valid against the official SARIF 2.1.0 schema (tests/data/sarif/, OASIS), the driver's rules
    the five stable ids, one result per regression with a source line (level error, uri relative to
    %SRCROOT% and percent-encoded, startLine), the file-less one a toolExecutionNotification,
    partialFingerprints "divbench/v1" = sha256("KERNEL\\nPATH\\nLINE\\nORDINAL"), distinct per result and
    equal across two runs (and from another current directory);
  - no regression: exit 0, no annotation, a SARIF without results;
  - bad input, exit 2 with one line and nothing written: --annotations gitlab, --sarif naming BASE or the
    --json file, --repo-root missing or without --annotations/--sarif.
usage: diff_ci_test.py DIVBENCH SOURCE_DIR"""
import copy
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

RULES = ["divbench/new-divergent-branch", "divbench/now-divergent-branch", "divbench/new-kernel-divergent-branch",
         "divbench/efficiency-drop", "divbench/cycles-lost-rise"]


def run(divbench, base, new, *extra, cwd=None):
    return subprocess.run([divbench, "attribute", "diff", str(base), str(new), "--quiet", *map(str, extra)],
                          capture_output=True, text=True, timeout=120, cwd=cwd)


def with_file(doc: dict, path: str) -> dict:
    """Every branch's source moved to `path` (its line kept)."""
    d = copy.deepcopy(doc)
    for k in d["kernels"]:
        for b in k["branches"]:
            if b["source"]:
                b["source"] = f"{path}:{b['source'].rsplit(':', 1)[1]}"
    return d


def synthetic(template: dict, path: str):
    """BASE and NEW with 17 regressions of all five kinds (see the module docstring)."""
    b0 = next(b for b in template["kernels"][0]["branches"] if b["divergent_executions"] > 0)
    k0 = {k: v for k, v in template["kernels"][0].items() if k != "branches"}

    def branch(pc, line, div, cycles, thread=1600.0):
        b = copy.deepcopy(b0)
        b.update({"pc": pc, "source": None if line is None else f"{path}:{line}", "executions": 10.0,
                  "divergent_executions": float(div), "region_warp_instructions": 100.0,
                  "region_thread_instructions": thread, "cycles_lost": float(cycles)})
        return b

    def kernel(name, branches):
        return dict(k0, name=name, branches=branches)

    name_a = "k_100%_a\nsecond line"
    base_a = [branch(16 * i, 10 + 2 * (i // 2), 5, 1000 * (i + 1)) for i in range(12)] + [branch(16 * 12, 40, 0, 0)]
    new_a = [branch(16 * i, 10 + 2 * (i // 2), 5, 1500 * (i + 1), 1200.0 if i == 0 else 1600.0) for i in range(12)]
    new_a += [branch(16 * 12, 40, 3, 100), branch(16 * 13, 50, 4, 50)]
    base, new = copy.deepcopy(template), copy.deepcopy(template)
    base["kernels"] = [kernel(name_a, base_a), kernel("k_no_lines", [branch(0, None, 5, 1000)])]
    new["kernels"] = [kernel(name_a, new_a), kernel("k_no_lines", [branch(0, None, 5, 100000)]),
                      kernel("k_new", [branch(0, 60, 2, 7)])]
    return base, new, name_a


def main() -> int:
    divbench, root = str(Path(sys.argv[1]).resolve()), Path(sys.argv[2]).resolve()  # runs from other folders
    import jsonschema  # scripts/deps/pip.txt

    schema = json.loads((root / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    data = root / "tests" / "data" / "attribute" / "diff"
    failures = []

    def check(name, ok, detail=""):
        print(f"{name}: {'ok' if ok else 'FAIL'}{' (' + detail + ')' if detail else ''}")
        if not ok:
            failures.append(f"{name}: {detail}")

    def sarif_problems(doc):
        return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(doc)][:3]

    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        repo = t / "repo"
        (repo / ".git").mkdir(parents=True)  # the git top-level the default --repo-root finds
        (repo / "sub" / "dir").mkdir(parents=True)
        weird = str(repo / "src" / "we,ird:dir" / "targets.cu")
        base = t / "base.json"
        new = t / "new.json"
        base.write_text(json.dumps(with_file(json.loads((data / "lanes_base.json").read_text()), weird)))
        new.write_text(json.dumps(with_file(json.loads((data / "lanes_added_branch.json").read_text()), weird)))

        # One regression: the annotation line, relative to the git top-level, escaped.
        plain = run(divbench, base, new)
        r = run(divbench, base, new, "--annotations", "github", cwd=repo)
        lines = r.stdout.splitlines()
        want = "::error file=src/we%2Cird%3Adir/targets.cu,line=67,title=Divergence regression%3A a new divergent branch::"
        check("one regression: exit 1 with and without --annotations", plain.returncode == 1 and r.returncode == 1,
              f"{plain.returncode}, {r.returncode}: {r.stderr.strip()[:200]}")
        check("one regression: one annotation, relative path escaped", len(lines) == 1 and lines[0].startswith(want)
              and "we,ird:dir/targets.cu:67: a new divergent branch" in lines[0], repr(r.stdout[:400]))
        r2 = run(divbench, base, new, "--annotations", "github", cwd=repo / "sub" / "dir")
        check("from a subfolder: the same line (git top-level)", r2.stdout == r.stdout, repr(r2.stdout[:300]))
        other = t / "elsewhere"
        other.mkdir()
        r3 = run(divbench, base, new, "--annotations", "github", "--repo-root", other, cwd=repo)
        esc_abs = weird.replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
        check("a source outside --repo-root: the path as given, said", r3.returncode == 1 and
              r3.stdout.startswith(f"::error file={esc_abs},line=67,") and "outside the repository root" in r3.stdout,
              repr(r3.stdout[:400]))
        s1 = t / "one.sarif"
        r4 = run(divbench, base, new, "--sarif", s1, cwd=repo)
        doc = json.loads(s1.read_text()) if s1.is_file() else {}
        res = doc.get("runs", [{}])[0].get("results", [])
        check("one regression: SARIF valid, one result, uri relative", r4.returncode == 1 and not sarif_problems(doc)
              and len(res) == 1 and res[0]["locations"][0]["physicalLocation"] == {
                  "artifactLocation": {"uri": "src/we%2Cird%3Adir/targets.cu", "uriBaseId": "%SRCROOT%"},
                  "region": {"startLine": 67}} and res[0]["ruleId"] == "divbench/new-divergent-branch"
              and res[0]["level"] == "error", f"exit {r4.returncode}; {sarif_problems(doc)}; {res[:1]}")

        # 17 regressions of all kinds: the cap, worst first, escaping; the SARIF.
        tb, tn, name_a = synthetic(json.loads((data / "lanes_base.json").read_text()), str(repo / "src" / "50%,a:b" / "k.cu"))
        sb, sn = t / "s_base.json", t / "s_new.json"
        sb.write_text(json.dumps(tb))
        sn.write_text(json.dumps(tn))
        sarifs = [t / "a.sarif", t / "b.sarif", t / "c.sarif"]
        j = t / "s_verdict.json"
        r = run(divbench, sb, sn, "--annotations", "github", "--sarif", sarifs[0], "--json", j, cwd=repo)
        v = json.loads(j.read_text()) if j.is_file() else {"regressions": [], "findings": []}
        check("17 regressions, all five kinds", r.returncode == 1 and len(v["regressions"]) == 17 == len(v["findings"])
              and {g["rule"] for g in v["regressions"]} == set(RULES), f"exit {r.returncode}: {r.stderr.strip()[:300]}")
        lines = r.stdout.split("\n")
        errors = [x for x in lines if x.startswith("::error ")]
        notices = [x for x in lines if x.startswith("::notice::")]
        check("at most 10 errors, then one notice with the rest", len(errors) == 10 and len(notices) == 1 and
              lines[10] == notices[0] and notices[0].startswith("::notice::7 more divergence regressions")
              and lines[11:] == [""], repr(r.stdout[-600:]))
        check("worst first: the file-less one (no -lineinfo) leads", errors[0].startswith(
            "::error title=Divergence regression%3A estimated cycles lost rose::k_no_lines branch #0: cycles lost 1000 -> 1e+05")
              and "(no source line: build with -lineinfo)" in errors[0], errors[0][:300])
        want_lines = [10 + 2 * (i // 2) for i in range(11, 2, -1)]
        got_lines = [int(x.split(",line=")[1].split(",")[0]) for x in errors[1:]]
        check("worst first: then by the rise of cycles lost", got_lines == want_lines, f"{got_lines} != {want_lines}")
        check("escaping: '%', ',' and ':' in the path, '%' and a newline in the message",
              all(x.startswith("::error file=src/50%25%2Ca%3Ab/k.cu,line=") for x in errors[1:]) and
              "::k_100%25_a%0Asecond line " in errors[1] and "\r" not in r.stdout, errors[1][:300])

        for s, cwd in ((sarifs[1], repo), (sarifs[2], repo / "sub")):
            run(divbench, sb, sn, "--sarif", s, cwd=cwd)
        docs = [json.loads(s.read_text()) if s.is_file() else {} for s in sarifs]
        d = docs[0]
        problems = sarif_problems(d)
        check("SARIF valid against the SARIF 2.1.0 schema", not problems and d.get("version") == "2.1.0"
              and len(d.get("runs", [])) == 1, str(problems))
        run0 = d["runs"][0]
        check("SARIF rules: the five stable ids", [x["id"] for x in run0["tool"]["driver"]["rules"]] == RULES and
              run0["tool"]["driver"]["name"] == "divbench" and run0["tool"]["driver"].get("version"),
              str([x["id"] for x in run0["tool"]["driver"]["rules"]]))
        res = run0["results"]
        notes = run0["invocations"][0].get("toolExecutionNotifications", [])
        uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in res}
        check("SARIF results: 16 with a line, the file-less one a notification", len(res) == 16 and len(notes) == 1
              and "k_no_lines" in notes[0]["message"]["text"] and all(x["level"] == "error" for x in res)
              and {x["ruleId"] for x in res} == set(RULES) and all(RULES[x["ruleIndex"]] == x["ruleId"] for x in res),
              f"{len(res)} results, {len(notes)} notes")
        check("SARIF uris relative to %SRCROOT%, percent-encoded", uris == {"src/50%25%2Ca%3Ab/k.cu"} and all(
            x["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%" for x in res)
              and run0["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/repo/"), str(uris))
        fps = [x["partialFingerprints"]["divbench/v1"] for x in res]
        check("fingerprints distinct per result", len(set(fps)) == len(fps) == 16, f"{len(set(fps))} distinct")
        same = all(sorted(x["partialFingerprints"]["divbench/v1"] for x in o["runs"][0]["results"]) == sorted(fps)
                   for o in docs[1:])
        check("fingerprints stable across runs (and current directories)", same and docs[1] == d)
        # The definition: sha256 of kernel, path, line and the ordinal among that (kernel, path, line)'s results,
        # in the order of the branch's ordinal on the line and the rule.
        groups = {}
        for g in v["regressions"]:
            if g["file"] is not None:
                groups.setdefault((g["kernel"], g["line"]), []).append((g["ordinal"], g["rule"]))
        expect = set()
        for (kernel, line), members in groups.items():
            for k, _ in enumerate(sorted(members)):
                expect.add(hashlib.sha256(f"{kernel}\nsrc/50%,a:b/k.cu\n{line}\n{k}".encode()).hexdigest())
        check("fingerprints as documented", set(fps) == expect, f"{len(expect & set(fps))} of {len(fps)} match")
        line10 = sorted((x["ruleId"], x["properties"]["branch_ordinal"]) for x in res
                        if x["locations"][0]["physicalLocation"]["region"]["startLine"] == 10)
        check("two rules on one branch, two branches on one line: three results at line 10", line10 == [
            ("divbench/cycles-lost-rise", 0), ("divbench/cycles-lost-rise", 1), ("divbench/efficiency-drop", 0)], str(line10))

        # No regression: exit 0, nothing on stdout, a SARIF without results (code scanning closes the alerts).
        s0 = t / "none.sarif"
        r = run(divbench, base, base, "--annotations", "github", "--sarif", s0, cwd=repo)
        d0 = json.loads(s0.read_text()) if s0.is_file() else {}
        check("no regression: exit 0, no annotation, no result", r.returncode == 0 and r.stdout == "" and
              d0.get("runs", [{}])[0].get("results") == [] and not sarif_problems(d0), f"exit {r.returncode} {r.stdout!r}")

        # Bad input: exit 2, one line, nothing written, inputs untouched.
        before = base.read_bytes()
        bad = {
            "--annotations gitlab": (["--annotations", "gitlab"], "--annotations: 'gitlab'"),
            "--sarif BASE": (["--sarif", base], "--sarif"),
            "--sarif = --json": (["--sarif", t / "same.out", "--json", t / "same.out"], "name the same file"),
            "--repo-root missing": (["--annotations", "github", "--repo-root", t / "missing"], "--repo-root"),
            "--repo-root alone": (["--repo-root", repo], "--repo-root is for --annotations and --sarif"),
        }
        for name, (extra, needle) in bad.items():
            r = run(divbench, base, new, *extra, cwd=repo)
            err = r.stderr.strip().splitlines()
            check(f"bad input: {name}", r.returncode == 2 and len(err) == 1 and needle in err[0] and r.stdout == ""
                  and base.read_bytes() == before and not (t / "same.out").exists(), f"exit {r.returncode}: {r.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"diff_ci: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
