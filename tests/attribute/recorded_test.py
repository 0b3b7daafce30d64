#!/usr/bin/env python3
"""The join and the estimate on counts recorded on the H200 (no GPU): `divbench attribute --from-counts`
on tests/data/attribute/lanes (made by scripts/gpu/50-attribute.sh with --save-counts: the lane kernels
of tests/attribute/targets.cu, their module as the program loaded it, and the host's expectations in
expect.json). Checks the host-known counts per branch, the nesting rule of the kernel total, that the
result validates against its schema, and that --out/--report symlinks are written through (kept as links).
usage: recorded_test.py DIVBENCH SOURCE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    sys.path.insert(0, str(root / "scripts"))
    from divbench import attribute_validation, schemas  # noqa: E402 - the package lives in scripts/

    data = root / "tests" / "data" / "attribute" / "lanes"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lanes.json"
        r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(data), "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(f"FAIL: divbench attribute --from-counts: exit {r.returncode}: {r.stderr.strip()}")
            return 1
        shutil.copy(data / "expect.json", Path(tmp) / "lanes.target.json")
        for row in attribute_validation.lanes_checks(Path(tmp)):
            print(f"{row['kernel']}:{row['line']}: {'ok' if row['ok'] else 'FAIL'} {row}")
            if not row["ok"]:
                failures.append(row["kernel"])
        doc = json.loads(out.read_text())
        nested = [k for k in doc["kernels"] if "lanes_nested" in k["name"]][0]
        divergent = [b for b in nested["branches"] if b["divergent_executions"]]
        outer = [b for b in divergent if b["nesting"] == 0]
        if len(divergent) != 2 or len(outer) != 1 or abs(nested["cycles_lost"] - outer[0]["cycles_lost"]) > 1e-6:
            failures.append("nesting: the kernel total must count the inner branch inside the outer region once")
        if not all(b["cycles_lost"] > 0 for b in divergent):
            failures.append("a divergent branch with no estimated loss")
        # Time saved (issue 47): every kernel and branch carries it; every share within [0, 1]; a kernel
        # saves at least what its most costly branch alone saves; a kernel without divergence saves 0.
        for k in doc["kernels"]:
            share = k.get("predicted_time_saved_share")
            if share is None or not 0 <= share <= 1 or "predicted_time_saved_s" not in k:
                failures.append(f"{k['name']}: predicted_time_saved_share {share!r} missing or outside [0, 1]")
                continue
            shares = []
            for b in k["branches"]:
                if "predicted_time_saved_share" not in b or "predicted_time_saved_s" not in b:
                    failures.append(f"{k['name']} pc {b['pc']}: no predicted_time_saved_share/_s")
                elif b["predicted_time_saved_share"] is not None:
                    shares.append(b["predicted_time_saved_share"])
                    if not 0 <= b["predicted_time_saved_share"] <= 1:
                        failures.append(f"{k['name']} pc {b['pc']}: share {b['predicted_time_saved_share']} outside [0, 1]")
            if shares and share + 1e-12 < max(shares):
                failures.append(f"{k['name']}: kernel share {share} below its branch's {max(shares)}")
            if k["branch_targets_threads_divergent"] == 0 and share != 0 and k["time_model"]["predicated_loops"]["instructions"] == 0:
                failures.append(f"{k['name']}: no divergence, yet a saving of {share}")
        problems = schemas.validate_file(schemas.load_catalog(), out)
        if problems:
            failures.append(f"schema: {problems}")
        # The output rule for symlinks (issue 37): --out and --report that are symlinks to regular files (in
        # another folder) are written through; the links stay links.
        (Path(tmp) / "targets").mkdir()
        (Path(tmp) / "links").mkdir()
        links = {}
        for opt, name in (("--out", "a.json"), ("--report", "a.md")):
            target = Path(tmp) / "targets" / name
            target.write_text("old\n")
            link = Path(tmp) / "links" / name
            link.symlink_to(Path("..") / "targets" / name)
            links[opt] = (link, target)
        r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(data),
                            "--out", str(links["--out"][0]), "--report", str(links["--report"][0])],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            failures.append(f"--out/--report through symlinks: exit {r.returncode}: {r.stderr.strip()}")
        for opt, (link, target) in links.items():
            if not link.is_symlink() or os.readlink(link) != str(Path("..") / "targets" / target.name):
                failures.append(f"{opt}: the symlink {link.name} was replaced")
            if target.read_text() == "old\n":
                failures.append(f"{opt}: the file the symlink points to was not written")
        if links["--out"][1].exists() and json.loads(links["--out"][1].read_text())["kernels"] != doc["kernels"]:
            failures.append("--out through a symlink: not the same kernels as the plain --out")
        if sorted(p.name for p in (Path(tmp) / "links").iterdir()) != ["a.json", "a.md"]:
            failures.append("a temporary file left beside the links")
        if sorted(p.name for p in (Path(tmp) / "targets").iterdir()) != ["a.json", "a.md"]:
            failures.append("a temporary file left beside the targets")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
