#!/usr/bin/env python3
"""The gate never lies (issue 48 item 3), no GPU:
  - every committed attribute document and every committed --save-counts folder diffed with itself: exit 0,
    nothing changed (divbench's own rounding residues, like cycles_lost -5.2e-08, are read as 0);
  - 10,000 branches in one kernel: the same document, and the same branches 3 lines further down, each
    diffed in under 2 s (matching is linear in branches, not quadratic), every branch matched;
  - the same build from two checkout folders (every source path under another root): exit 0, every branch
    matched by its line;
  - documents divbench could not have written are bad input (exit 2, one line naming the file and key):
    no kernels, divergent_executions above executions at a two-way branch, more than 32 threads per warp
    instruction, a negative count; a negative cost an earlier divbench wrote is read as 0 and said;
  - --constants on diff of saved folders is used (a missing file is refused before any work).
usage: diff_gate_test.py DIVBENCH SOURCE_DIR"""
import copy
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ATTRIBUTE_SCHEMA = "divbench.attribute/1"


def diff(divbench, base, new, *extra, timeout=600):
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        j = Path(tmp) / "v.json"
        r = subprocess.run([divbench, "attribute", "diff", str(base), str(new), "--json", str(j), "--quiet", *extra],
                           capture_output=True, text=True, timeout=timeout)
        v = json.loads(j.read_text()) if j.is_file() else None
    return r, v, time.monotonic() - t0


def committed_documents(root: Path):
    for p in sorted(list((root / "results").rglob("*.json")) + list((root / "tests" / "data" / "attribute").rglob("*.json"))):
        if p.name.startswith("counts-") or p.name.startswith("pcsamples-") or "/bad/" in str(p):
            continue
        try:
            d = json.loads(p.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(d, dict) and d.get("schema") == ATTRIBUTE_SCHEMA and d.get("kernels"):
            yield p


def saved_folders(root: Path):
    dirs = set()
    for p in list((root / "results").rglob("counts-*.json")) + list((root / "tests" / "data" / "attribute").rglob("counts-*.json")):
        if "/bad/" in str(p):
            continue
        dirs.add(p.parent.parent)  # FOLDER/k0/counts-N.json
    return sorted(dirs)


def synthetic(template: dict, n: int, shift: int = 0, prefix: str = "/work/a/repo") -> dict:
    """One kernel of n branches on lines 10, 12, 14, ... (+ shift) of four files under prefix."""
    d = copy.deepcopy(template)
    k = d["kernels"][0]
    b0 = next(b for b in k["branches"] if b["divergent_executions"] > 0)
    branches = []
    for i in range(n):
        b = copy.deepcopy(b0)
        b["pc"] = 16 * i
        b["source"] = f"{prefix}/src/file{i % 4}.cu:{10 + 2 * (i // 4) + shift}"
        b["divergent_executions"] = float(i % 7)
        b["executions"] = 10.0
        b["cycles_lost"] = float(i)
        branches.append(b)
    k["branches"] = branches
    d["kernels"] = [k]
    return d


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    failures = []

    def check(name, ok, detail=""):
        print(f"{name}: {'ok' if ok else 'FAIL'}{' (' + detail + ')' if detail else ''}")
        if not ok:
            failures.append(f"{name}: {detail}")

    docs = list(committed_documents(root))
    bad = []
    for p in docs:
        r, v, _ = diff(divbench, p, p)
        if r.returncode != 0 or v is None or v["summary"]["branches_changed"] != 0:
            bad.append(f"{p.relative_to(root)}: exit {r.returncode} {r.stderr.strip()[:200]}")
    check("every committed document with itself", not bad and len(docs) > 20, f"{len(docs)} documents; {bad[:3]}")

    folders = saved_folders(root)
    bad = []
    for f in folders:
        r, v, _ = diff(divbench, f, f)
        if r.returncode != 0 or v is None or v["summary"]["branches_changed"] != 0:
            bad.append(f"{f.relative_to(root)}: exit {r.returncode} {r.stderr.strip()[:200]}")
    check("every committed saved folder with itself", not bad and len(folders) >= 8, f"{len(folders)} folders; {bad[:3]}")

    template = json.loads((root / "tests" / "data" / "attribute" / "diff" / "lanes_base.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        big = synthetic(template, 10000)
        (t / "big.json").write_text(json.dumps(big))
        (t / "big_moved.json").write_text(json.dumps(synthetic(template, 10000, shift=3)))
        (t / "big_other_checkout.json").write_text(json.dumps(synthetic(template, 10000, prefix="/home/ci/_work/checkout-2")))
        r, v, s = diff(divbench, t / "big.json", t / "big.json")
        check("10,000 branches, the same document", r.returncode == 0 and v and v["summary"]["branches_matched"] == 10000
              and s < 2.0, f"exit {r.returncode}, {s:.2f} s, {v and v['summary']}")
        r, v, s = diff(divbench, t / "big.json", t / "big_moved.json")
        moved = v and all(b["matched_by"] == "lines_moved" for k in v["kernels"] for b in k["branches"])
        check("10,000 branches 3 lines down", r.returncode == 0 and v and v["summary"]["branches_matched"] == 10000
              and moved and s < 2.0, f"exit {r.returncode}, {s:.2f} s, {v and v['summary']}")
        r, v, s = diff(divbench, t / "big.json", t / "big_other_checkout.json")
        by_line = v and all(b["matched_by"] == "source_line" for k in v["kernels"] for b in k["branches"])
        check("the same build from another checkout folder", r.returncode == 0 and v and
              v["summary"]["branches_matched"] == 10000 and by_line, f"exit {r.returncode}, {v and v['summary']}")

        # A rounding residue of divbench's own is no change and no bad input; a real negative cost is.
        residue = copy.deepcopy(template)
        residue["kernels"][0]["branches"][0]["cycles_lost"] = -5.2e-08
        (t / "residue.json").write_text(json.dumps(residue))
        r, v, _ = diff(divbench, t / "residue.json", t / "residue.json")
        check("a -5.2e-08 rounding residue", r.returncode == 0, f"exit {r.returncode} {r.stderr.strip()}")
        # A negative cost an earlier divbench wrote (the committed shapes_sorted.json holds -465): read as 0, said.
        negative = copy.deepcopy(template)
        negative["kernels"][0]["branches"][0]["cycles_lost"] = -465.0
        (t / "negative.json").write_text(json.dumps(negative))
        r, v, _ = diff(divbench, t / "negative.json", t / "negative.json")
        check("a negative cost written before the clamp", r.returncode == 0 and v is not None and
              any("negative cycles_lost" in w for w in v["warnings"]), f"exit {r.returncode} {r.stderr.strip()}")
        refusals = {
            "no_kernels": (lambda d: d.__setitem__("kernels", []), r"\(/kernels\) is empty"),
            "divergent_above_executions": (lambda d: d["kernels"][0]["branches"][0].update(
                {"divergent_executions": 1e9, "executions": 528.0}), r"divergent_executions 1000000000 > executions 528"),
            "negative_count": (lambda d: d["kernels"][0]["branches"][0].update({"executions": -1.0}),
                               r"executions missing or not a finite number >= 0"),
            "cost_not_a_number": (lambda d: d["kernels"][0]["branches"][0].update({"cycles_lost": "x"}),
                                  r"cycles_lost missing or not a finite number"),
            "threads_above_32_per_warp": (lambda d: d["kernels"][0]["branches"][0].update(
                {"region_thread_instructions": 33.0, "region_warp_instructions": 1.0}), r"> 32 x region_warp_instructions"),
        }
        import re
        for name, (edit, pattern) in refusals.items():
            d = copy.deepcopy(template)
            edit(d)
            (t / f"{name}.json").write_text(json.dumps(d))
            r, v, _ = diff(divbench, root / "tests" / "data" / "attribute" / "diff" / "lanes_base.json", t / f"{name}.json")
            lines = r.stderr.strip().splitlines()
            check(f"refused: {name}", r.returncode == 2 and len(lines) == 1 and re.search(pattern, lines[0]) is not None
                  and f"{name}.json" in lines[0] and v is None, f"exit {r.returncode}: {r.stderr.strip()[:300]}")

        lanes = root / "tests" / "data" / "attribute" / "lanes"
        r, v, _ = diff(divbench, lanes, lanes, "--constants", str(t / "missing_constants.json"))
        check("diff --constants missing", r.returncode == 2 and "--constants" in r.stderr and "no such file" in r.stderr,
              f"exit {r.returncode}: {r.stderr.strip()[:200]}")
        r, v, _ = diff(divbench, lanes, lanes, "--constants", str(root / "results" / "h200" / "loop_cost.json"))
        check("diff --constants on saved folders", r.returncode == 0 and v and v["summary"]["branches_matched"] == 8,
              f"exit {r.returncode}: {r.stderr.strip()[:200]}")
        r, v, _ = diff(divbench, t / "big.json", t / "big.json", "--constants", str(root / "results" / "h200" / "loop_cost.json"))
        check("diff --constants on documents", r.returncode == 2 and "for saved-count folders" in r.stderr,
              f"exit {r.returncode}: {r.stderr.strip()[:200]}")
        # A document too large for the memory the process may take: one line and exit 2, not an abort (a
        # failed parse's partial document aborted in its noexcept destructor). 8 MB of JSON under 128 MiB.
        huge = t / "huge.json"
        huge.write_text(json.dumps({"schema": ATTRIBUTE_SCHEMA, "kernels": [
            {"name": f"k{i}", "branches": [{"pc": 16 * j, "source": f"a.cu:{j}"} for j in range(100)]} for i in range(1000)]}))
        import resource  # noqa: E402 - only for this case

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (128 << 20, 128 << 20))
        r = subprocess.run([divbench, "attribute", "diff", str(huge), str(huge), "--quiet"], capture_output=True, text=True,
                           timeout=120, preexec_fn=limited)
        check("a document too large for the memory limit", r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
              and "memory" in r.stderr, f"exit {r.returncode}: {r.stderr.strip()[:300]}")
    for f in failures:
        print("FAIL:", f)
    print(f"diff_gate: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
