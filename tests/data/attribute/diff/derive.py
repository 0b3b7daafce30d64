#!/usr/bin/env python3
"""Makes the recorded inputs of `divbench attribute diff`'s CPU test (tests/attribute/diff_test.py) from the
real H200 documents results/h200/attribute/thrust.json and lanes.json, by editing copies (README.md here
says what each edit stands for). Run from the repository root: python3 tests/data/attribute/diff/derive.py"""
import copy
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
OUT = Path(__file__).resolve().parent
THRUST = json.loads((ROOT / "results/h200/attribute/thrust.json").read_text())
LANES = json.loads((ROOT / "results/h200/attribute/lanes.json").read_text())


def write(name, doc):
    (OUT / name).write_text(json.dumps(doc, separators=(",", ":"), sort_keys=False) + "\n")


def new_build(doc, git="0123456789abcdef0123456789abcdef01234567"):
    d = copy.deepcopy(doc)
    d["provenance"]["git"] = git
    return d


def kernel(doc, part):
    return next(k for k in doc["kernels"] if part in k["name"])


def move_pcs(doc, delta):
    """A rebuild that places the code elsewhere: every pc, ipdom and branch target moves by delta bytes."""
    for k in doc["kernels"]:
        for b in k["branches"]:
            b["pc"] += delta
            if b.get("ipdom") is not None:
                b["ipdom"] += delta
            b["instruction"] = re.sub(r"0x([0-9a-f]+)", lambda m: hex(int(m.group(1), 16) + delta), b["instruction"])


def retotal(k):
    k["cycles_lost"] = sum(b["cycles_lost"] for b in k["branches"] if b["nesting"] == 0)


# thrust: 11 of the 13 kernels (the two largest left out to keep the files small).
thrust = copy.deepcopy(THRUST)
thrust["kernels"] = [k for k in thrust["kernels"]
                     if "DeviceSelectSweepKernel" not in k["name"] or len(k["branches"]) < 100]
thrust["kernels"] = [k for k in thrust["kernels"] if "DeviceReduceSingleTileKernel" not in k["name"]]
write("thrust_base.json", thrust)

moved = new_build(thrust)
move_pcs(moved, 0x80)
write("thrust_moved_pcs.json", moved)

no_lines = copy.deepcopy(moved)
for k in no_lines["kernels"]:
    for b in k["branches"]:
        b["source"] = None
write("thrust_no_lines.json", no_lines)

# lanes: the two lane kernels of tests/attribute/targets.cu.
write("lanes_base.json", LANES)

shifted = new_build(LANES)
move_pcs(shifted, 0x20)
for k in shifted["kernels"]:
    for b in k["branches"]:
        f, line = b["source"].rsplit(":", 1)
        b["source"] = f"{f}:{int(line) + 3}"
write("lanes_lines_moved.json", shifted)

added = new_build(LANES)
ie = kernel(added, "lanes_if_else")
nb = copy.deepcopy(ie["branches"][0])  # targets.cu:66, divergent 528 times
nb["pc"], nb["source"], nb["nesting"] = 184, nb["source"].rsplit(":", 1)[0] + ":67", 1
nb["divergent_executions"], nb["uniform_executions"] = 264, nb["executions"] - 264
nb["cycles_lost"] = 96921.0
ie["branches"].insert(1, nb)
write("lanes_added_branch.json", added)

small = new_build(LANES)
b = kernel(small, "lanes_nested")["branches"][0]  # targets.cu:80, efficiency 0.2537
b["region_thread_instructions"] = round(b["region_thread_instructions"] - 0.005 * 32 * b["region_warp_instructions"])
b["region_thread_instruction_efficiency"] = b["region_thread_instructions"] / (32 * b["region_warp_instructions"])
b["cycles_lost"] *= 1.02
retotal(kernel(small, "lanes_nested"))
write("lanes_efficiency_small.json", small)

large = new_build(LANES)
b = kernel(large, "lanes_nested")["branches"][0]
b["region_thread_instructions"] = round(b["region_thread_instructions"] - 0.05 * 32 * b["region_warp_instructions"])
b["region_thread_instruction_efficiency"] = b["region_thread_instructions"] / (32 * b["region_warp_instructions"])
write("lanes_efficiency_large.json", large)

rise = new_build(LANES)
b = kernel(rise, "lanes_if_else")["branches"][0]  # targets.cu:66
b["executions"], b["divergent_executions"], b["uniform_executions"] = 600, 581, 19  # a possible count: 581 <= 600
b["cycles_lost"] *= 1.10
retotal(kernel(rise, "lanes_if_else"))
write("lanes_cycles_rise.json", rise)

renamed = new_build(LANES)
k = kernel(renamed, "lanes_if_else")
k["name"] = k["name"].replace("13lanes_if_else", "14lanes_if_else2")
write("lanes_renamed.json", renamed)

# A kernel whose blocks wait on each other (decoupled look-back): marked nondeterministic with a 6% spread.
one = copy.deepcopy(THRUST)
one["kernels"] = [copy.deepcopy(kernel(THRUST, "DeviceRadixSortOnesweepKernel"))]
one["kernels"][0]["nondeterministic"] = {"spread": 0.06}
write("onesweep_base.json", one)


def scaled(doc, counts, thread, cycles):
    d = new_build(doc)
    k = d["kernels"][0]
    for b in k["branches"]:
        for key in ("executions", "divergent_executions", "uniform_executions", "region_warp_instructions"):
            b[key] = round(b[key] * counts)
        # At most 32 threads per warp instruction (rounding must not make an impossible count).
        b["region_thread_instructions"] = min(round(b["region_thread_instructions"] * counts * thread),
                                              32 * b["region_warp_instructions"])
        if b["region_warp_instructions"]:
            b["region_thread_instruction_efficiency"] = b["region_thread_instructions"] / (32 * b["region_warp_instructions"])
        b["cycles_lost"] *= cycles
    for key in ("inst_executed", "thread_inst_executed", "branch_targets_threads_divergent"):
        k[key] = round(k[key] * counts)
    retotal(k)
    return d


# Within the spread: counts +9%, efficiency -3% relative, cycles lost +9% (beyond the exact thresholds).
write("onesweep_within.json", scaled(one, 1.09, 0.97, 1.09))
# Beyond it: cycles lost +15% (> 5% + 6%).
write("onesweep_beyond.json", scaled(one, 1.15, 1.0, 1.15))
