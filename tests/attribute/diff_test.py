#!/usr/bin/env python3
"""`divbench attribute diff` on recorded documents (tests/data/attribute/diff/, derived from the H200's
results/h200/attribute/*.json: README.md there) and on the recorded lane counts (tests/data/attribute/lanes,
a --save-counts folder), no GPU. Per case: the exit code, what the verdict must say, and that the verdict
validates against schemas/divbench.attribute_diff.schema.json and its markdown has what a PR comment needs.
usage: diff_test.py DIVBENCH SOURCE_DIR"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def branches(v):
    return [b for k in v["kernels"] for b in k["branches"]]


def case_checks():
    """(name, base, new, extra args, exit code, check(verdict, markdown) -> error or None)."""
    return [
        ("moved_pcs", "thrust_base.json", "thrust_moved_pcs.json", [], 0,
         lambda v, md: None if v["summary"]["kernels_matched"] == 11 and v["summary"]["branches_changed"] == 0
         and v["summary"]["branches_matched"] == sum(1 for _ in branches(v)) > 200
         and all(b["pc"]["new"] == b["pc"]["base"] + 0x80 and b["matched_by"] == "source_line" for b in branches(v))
         and not v["kernels_added"] and not v["kernels_removed"] and "No matched branch changed" in md
         else "a rebuild that only moves PCs: every branch matched by line, none changed"),
        ("no_line_table", "thrust_base.json", "thrust_no_lines.json", [], 0,
         lambda v, md: None if all(k["matching"] == "branch_ordinal" and "no line table in NEW" in k["matching_note"]
                                   for k in v["kernels"] if k["branches"]) and v["summary"]["branches_changed"] == 0
         and any("matched by ordinal" in w for w in v["warnings"]) and "matched by ordinal" in md
         else "without a line table: matched by ordinal, and said"),
        ("lines_moved", "lanes_base.json", "lanes_lines_moved.json", [], 0,
         lambda v, md: None if all(b["matched_by"] == "lines_moved" for b in branches(v)) and len(branches(v)) == 8
         and v["summary"]["branches_changed"] == 0 else "every line 3 further down: paired in order, no change"),
        ("added_divergent_branch", "lanes_base.json", "lanes_added_branch.json", [], 1,
         lambda v, md: None if v["summary"]["divergent_branches_added"] == 1 and len(v["findings"]) == 1
         and "targets.cu:67: a new divergent branch" in v["findings"][0] and "**new divergent branch**" in md
         and v["summary"]["branches_changed"] == 0 else "one new divergent branch at targets.cu:67, nothing else"),
        ("added_divergent_branch_allowed", "lanes_base.json", "lanes_added_branch.json",
         ["--allow-new-divergent-branches"], 0,
         lambda v, md: None if v["summary"]["divergent_branches_added"] == 1 and not v["findings"]
         and "new divergent branch (allowed)" in md else "allowed: listed, not a regression"),
        ("efficiency_drop_below", "lanes_base.json", "lanes_efficiency_small.json", [], 0,
         lambda v, md: None if v["summary"]["branches_changed"] == 1 and not v["findings"]
         and "| changed |" in md and "0.254 → 0.249" in md else "a 0.005 drop: changed, not a regression"),
        ("efficiency_drop_above", "lanes_base.json", "lanes_efficiency_large.json", [], 1,
         lambda v, md: None if len(v["findings"]) == 1 and "targets.cu:80: region efficiency" in v["findings"][0]
         and "**regression**" in md else "a 0.05 drop: a regression at targets.cu:80"),
        ("efficiency_drop_above_threshold_raised", "lanes_base.json", "lanes_efficiency_large.json",
         ["--max-efficiency-drop", "0.06"], 0, lambda v, md: None if not v["findings"] else "threshold 0.06: none"),
        ("cycles_rise_above", "lanes_base.json", "lanes_cycles_rise.json", [], 1,
         lambda v, md: None if len(v["findings"]) == 1 and "targets.cu:66: cycles lost" in v["findings"][0]
         and "(+10.0%)" in md else "cycles lost +10%: a regression at targets.cu:66"),
        ("cycles_rise_threshold_raised", "lanes_base.json", "lanes_cycles_rise.json",
         ["--max-cycles-lost-rise", "0.2"], 0, lambda v, md: None if not v["findings"] else "threshold 20%: none"),
        ("renamed_kernel", "lanes_base.json", "lanes_renamed.json", [], 1,
         lambda v, md: None if [k["name"] for k in v["kernels_added"]] == ["(anonymous namespace)::lanes_if_else2(float*, unsigned int, int)"]
         and [k["name"] for k in v["kernels_removed"]] == ["(anonymous namespace)::lanes_if_else(float*, unsigned int, int)"]
         and v["summary"]["kernels_matched"] == 1 and "Kernels added:" in md and "Kernels removed:" in md
         and any("a divergent branch of a new kernel" in f for f in v["findings"])
         else "a renamed kernel: one added, one removed, its divergent branch new"),
        ("renamed_kernel_allowed", "lanes_base.json", "lanes_renamed.json", ["--allow-new-divergent-branches"], 0,
         lambda v, md: None if v["summary"]["kernels_added"] == 1 and not v["findings"] else "allowed"),
        ("nondeterministic_within_spread", "onesweep_base.json", "onesweep_within.json", [], 0,
         lambda v, md: None if v["kernels"][0]["tolerance"] == {"nondeterministic": True, "spread": 0.06}
         and not v["findings"] and "nondeterministic, ±6.0%" in md else "+9% within a 6% spread + 5%: no regression"),
        ("nondeterministic_beyond_spread", "onesweep_base.json", "onesweep_beyond.json", [], 1,
         lambda v, md: None if v["findings"] and all("cycles lost" in f for f in v["findings"])
         else "+15% beyond 6% + 5%: regressions on cycles lost"),
        ("same_document", "thrust_base.json", "thrust_base.json", [], 0,
         lambda v, md: None if v["summary"]["branches_changed"] == 0 and not v["findings"] else "identical: nothing"),
    ]


def run_diff(divbench, base, new, extra, tmp, name):
    j, md = Path(tmp) / f"{name}.json", Path(tmp) / f"{name}.md"
    r = subprocess.run([divbench, "attribute", "diff", str(base), str(new), "--json", str(j), "--markdown", str(md), *extra],
                       capture_output=True, text=True, timeout=300)
    return r, j, md


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    sys.path.insert(0, str(root / "scripts"))
    from divbench import schemas  # noqa: E402 - the package lives in scripts/

    data = root / "tests" / "data" / "attribute" / "diff"
    catalog = schemas.load_catalog()
    failures = []

    def verdict_of(name, r, j, md, want):
        if r.returncode != want:
            failures.append(f"{name}: exit {r.returncode}, expected {want}: {r.stderr.strip()}")
            return None, None
        problems = schemas.validate_file(catalog, j)
        if problems:
            failures.append(f"{name}: the verdict does not validate: {problems}")
        v = json.loads(j.read_text())
        if v["regression"] != (want == 1):
            failures.append(f"{name}: regression {v['regression']} with exit {want}")
        return v, md.read_text()

    with tempfile.TemporaryDirectory() as tmp:
        for name, base, new, extra, want, check in case_checks():
            r, j, md = run_diff(divbench, data / base, data / new, extra, tmp, name)
            v, text = verdict_of(name, r, j, md, want)
            if v is None:
                continue
            err = check(v, text)
            print(f"{name}: {'ok' if err is None else 'FAIL'} (exit {r.returncode}; {v['summary']})")
            if err:
                failures.append(f"{name}: {err}")

        # Exact unless marked: the same +9% in the kernel without its nondeterministic marking is a regression.
        for f in ("onesweep_base.json", "onesweep_within.json"):
            d = json.loads((data / f).read_text())
            for k in d["kernels"]:  # unmarked: no key in one, false in the other (both mean exact)
                k.pop("nondeterministic", None)
                if f == "onesweep_base.json":
                    k["nondeterministic"] = False
            (Path(tmp) / f"unmarked_{f}").write_text(json.dumps(d))
        r, j, md = run_diff(divbench, Path(tmp) / "unmarked_onesweep_base.json",
                            Path(tmp) / "unmarked_onesweep_within.json", [], tmp, "unmarked")
        v, _ = verdict_of("unmarked_within", r, j, md, 1)
        print(f"unmarked_within: {'ok' if v is not None else 'FAIL'} (exit {r.returncode})")

        # A document whose waits were priced by PC samples: the diff says its cycles may move with equal counts.
        d = json.loads((data / "lanes_base.json").read_text())
        d.setdefault("collection", {})["pc_sampling"] = {"period_cycles": 4096, "total_samples": 10, "dropped_samples": 0}
        (Path(tmp) / "sampled_input.json").write_text(json.dumps(d))
        r, j, md = run_diff(divbench, data / "lanes_base.json", Path(tmp) / "sampled_input.json", [], tmp, "sampled")
        v, text = verdict_of("sampled", r, j, md, 0)
        ok = v is not None and any(w.startswith("NEW priced waits with PC samples") for w in v["warnings"]) \
            and "--no-pc-sampling" in text
        print(f"sampled: {'ok' if ok else 'FAIL'} (exit {r.returncode})")
        if v is not None and not ok:
            failures.append("sampled: no warning that PC-sampled estimates move from run to run")

        # A saved-count folder: analysed as --from-counts does; against its own document, nothing changed.
        lanes = root / "tests" / "data" / "attribute" / "lanes"
        doc = Path(tmp) / "lanes_from_counts.json"
        a = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(lanes), "--out", str(doc)],
                           capture_output=True, text=True, timeout=300)
        if a.returncode != 0:
            failures.append(f"--from-counts on {lanes}: exit {a.returncode}: {a.stderr.strip()}")
        else:
            for name, base, new in (("folder_vs_document", lanes, doc), ("folder_vs_folder", lanes, lanes)):
                r, j, md = run_diff(divbench, base, new, [], tmp, name)
                v, _ = verdict_of(name, r, j, md, 0)
                ok = v is not None and v["summary"]["branches_changed"] == 0 and v["summary"]["branches_matched"] == 8
                print(f"{name}: {'ok' if ok else 'FAIL'} (exit {r.returncode})")
                if v is not None and not ok:
                    failures.append(f"{name}: expected 8 branches matched, none changed: {v['summary']}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
