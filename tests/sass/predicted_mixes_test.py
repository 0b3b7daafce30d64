#!/usr/bin/env python3
"""docs/sass.md's table of the three issue-port mixes, predicted before they ran, is what
`divbench kernels predict --cubin DIVBENCH --function ... --json` gives from this build's sm_90 SASS with the
committed constants: per body the loop's instruction count and stall sum, the predicted a, the interval outside
and inside the excess region, and which placements are in it. A compiler or model change that moves a
prediction fails here, so that the table is re-frozen before the loops are measured, never after.
usage: predicted_mixes_test.py DIVBENCH SOURCE_DIR"""
import json
import re
import subprocess
import sys
from pathlib import Path

TYPES = {"fma_pair_int": "FmaPairInt", "fma_int_alternating": "FmaIntAlternating", "convert_chain": "ConvertChain"}


def fmt(x: float) -> str:
    return f"{x:g}"


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    doc = (root / "docs" / "sass.md").read_text()
    failures = []
    # One run for the three (each run disassembles the executable's sm_90 cubins).
    r = subprocess.run([divbench, "kernels", "predict", "--cubin", divbench, "--function",
                        "validation11loop_kernelINS0_[0-9]+(" + "|".join(TYPES.values()) + ")E", "--json"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        print(f"FAIL kernels predict exit {r.returncode}: {r.stderr.strip()[:300]}")
        return 1
    every = json.loads(r.stdout)["loops"]
    for body, t in TYPES.items():
        m = re.search(rf"^  \| {body} \| (\d+), (\d+) \| (\S+) \| \[(\S+), (\S+)\], \[(\S+), (\S+)\] in the region \| "
                      rf"([\d, ]+) \|$", doc, re.M)
        if not m:
            failures.append(f"docs/sass.md: no table row for {body}")
            continue
        mine = [l for l in every if re.search(rf"INS0_\d+{t}ELi", l["function"])]
        loops = sorted(mine, key=lambda l: int(l["function"].split("ELi")[1].split("E")[0]))
        if len(loops) != 8:
            failures.append(f"{body}: {len(loops)} loops, not one per placement (8)")
            continue
        inside = [i for i, l in enumerate(loops) if l["a_max"] > l["a_predicted"]]
        outside = [l for l in loops if l["a_max"] == l["a_predicted"]]
        got = (str(loops[0]["instructions"]), str(loops[0]["stall_sum"]), fmt(loops[0]["a_predicted"]),
               fmt(outside[0]["a_min"]) if outside else "?", fmt(outside[0]["a_max"]) if outside else "?",
               fmt(loops[inside[0]]["a_min"]) if inside else "?", fmt(loops[inside[0]]["a_max"]) if inside else "?",
               ", ".join(map(str, inside)))
        same_loop = len({(l["instructions"], l["stall_sum"], l["a_predicted"]) for l in loops}) == 1
        if got != m.groups() or not same_loop:
            failures.append(f"{body}: docs/sass.md says {m.groups()}, the build predicts {got}"
                            f"{'' if same_loop else ' (and the placements differ in their loop)'}")
    for f in failures:
        print("FAIL", f)
    print(f"predicted mixes: {len(TYPES) - len(failures)} of {len(TYPES)} bodies as docs/sass.md froze them")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
