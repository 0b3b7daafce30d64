"""The bad-input rows the declarations imply (bench/harness/settings.hpp): for every experiment and every
setting it declares, values its declaration refuses — below or above an integer's range, a word where a
number goes, a value outside a name's choices, junk in a list — must each get exit 2 and one
'divbench: error:' line naming the option, before any GPU work, on any machine. The declarations come from
`divbench --list --format json`, so a setting added to an experiment is tested here with no new row.

  python3 tests/badinput/declared.py --divbench build/divbench [--jobs 2]"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def bad_values(s: dict) -> list[str]:
    t = s["type"]
    if t == "int":
        v = ["x", "1.5"]
        if "min" in s:
            v.append(str(int(s["min"]) - 1))
        if "max" in s and s["max"] < 1e18:
            v.append(str(int(s["max"]) + 1))
        return v
    if t == "float":
        v = ["x", "nan"]
        if "min" in s:
            v.append(repr(s["min"] - 0.5))
        return v
    if t == "string":
        return ["no-such-value"] if s.get("choices") or s["option"] in ("--body", "--map") else []
    if t == "list":
        return ["x", "1,,2", "40"]
    return []  # a flag takes no value


def cases(listing: dict) -> list[tuple[str, list[str]]]:
    out = []
    for e in listing["experiments"]:
        select = ["--sweep" if e["kind"] == "sweep" else "--probe", e["name"]]
        for s in e["settings"]:
            for v in bad_values(s):
                out.append((s["option"], select + [s["option"], v]))
    for s in listing["harness_settings"]:
        if s["option"] in ("--sweep", "--probe", "--axis", "--out", "--device"):
            continue  # their refusals are rows of cases.tsv (unknown names, output paths, devices)
        for v in bad_values(s):
            out.append((s["option"], ["--sweep", "k", s["option"], v]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    a.divbench = os.path.abspath(a.divbench)
    listing = json.loads(subprocess.run([a.divbench, "--list", "--format", "json"], check=True,
                                        capture_output=True, text=True).stdout)
    todo = cases(listing)
    if len(todo) < 50:
        print(f"declared: only {len(todo)} cases from the declarations; expected many more", file=sys.stderr)
        return 1

    def run(case):
        option, args = case
        with tempfile.TemporaryDirectory() as work:
            p = subprocess.run([a.divbench] + args, capture_output=True, text=True, cwd=work, timeout=60)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        ok = (p.returncode == 2 and len(lines) == 1 and lines[0].startswith("divbench: error: ") and option in lines[0])
        return ok, f"{' '.join(args)}: exit {p.returncode}, stderr {p.stderr.strip()!r}"

    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(run, todo))
    failed = [why for ok, why in results if not ok]
    for why in failed:
        print("FAIL", why)
    print(f"declared: {len(results) - len(failed)} passed, {len(failed)} failed "
          f"({len(listing['experiments'])} experiments' declarations)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
