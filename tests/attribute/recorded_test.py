#!/usr/bin/env python3
"""The join and the estimate on counts recorded on the H200 (no GPU): `divbench attribute --from-counts`
on tests/data/attribute/lanes (made by scripts/gpu/50-attribute.sh with --save-counts: the lane kernels
of tests/attribute/targets.cu, their module as the program loaded it, and the host's expectations in
expect.json). Checks the host-known counts per branch, the nesting rule of the kernel total, and that
the result validates against its schema.
usage: recorded_test.py DIVBENCH SOURCE_DIR"""
import json
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
        problems = schemas.validate_file(schemas.load_catalog(), out)
        if problems:
            failures.append(f"schema: {problems}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
