#!/usr/bin/env python3
"""`divbench attribute --static` on the programs with their fixes (tests/attribute/fixes.cu; no GPU): exit 0, and
every mode's variants the program lists (its usage) have their kernel `<mode>_<variant>` in the table, each
`before` kernel with a branch at a line of fixes.cu (the divergence its fix addresses).
usage: fixes_static_test.py DIVBENCH FIXES_BINARY FIXES_SOURCE"""
import json
import os
import re
import subprocess
import sys


def main():
    divbench, binary, source = sys.argv[1:4]
    failures = []
    usage = subprocess.run([binary], capture_output=True, text=True, timeout=60)
    if usage.returncode != 2:
        failures.append(f"{binary} without arguments: exit {usage.returncode}, expected 2 (usage)")
    listed = dict(re.findall(r"^  (\w+)\s+([\w|]+)$", usage.stderr, re.M))
    if len(listed) < 8:
        failures.append(f"the program lists {len(listed)} modes, at least 8 expected: {usage.stderr.strip()}")
    r = subprocess.run([divbench, "attribute", "--static", "--json", binary], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        failures.append(f"attribute --static: exit {r.returncode}: {r.stderr.strip()}")
        doc = {"kernels": []}
    else:
        doc = json.loads(r.stdout)
    kernels = {k["name"]: k for k in doc.get("kernels", [])}
    name = os.path.basename(source)
    for mode, variants in listed.items():
        for v in variants.split("|"):
            k = kernels.get(f"{mode}_{v}")
            if k is None:
                failures.append(f"{mode}_{v}: not in the static table")
                continue
            lines = {b["source"] for b in k["branches"] if (b.get("source") or "").split(":")[0].endswith(name)}
            if v == "before" and not lines:
                failures.append(f"{mode}_before: no branch at a line of {name}")
    for f in failures:
        print("FAIL:", f)
    print(f"fixes static: {len(listed)} modes, {sum(len(v.split('|')) for v in listed.values())} kernels, "
          f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
