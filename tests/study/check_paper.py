#!/usr/bin/env python3
"""Qualitative agreement of the static study (results/static/) with the paper's Table II / Figure 4.

usage: check_paper.py RESULTS_DIR [--expected FILE]

Each claim of the paper is evaluated on the study's files and printed as AGREES or DISAGREES with
the kernels responsible. Disagreements are allowed only where tests/study/paper_disagreements.json
lists them with a reason (the corpus is not tuned to force agreement); the test fails when a claim's
outcome differs from that file in either direction (a new disagreement, or a listed one that no
longer happens), or when a file is missing or malformed.
"""
import argparse
import json
import os
import sys

BLACKWELL = ["sm_100", "sm_103", "sm_110", "sm_120", "sm_121"]
AMPERE_HOPPER = ["sm_80", "sm_86", "sm_90"]
AMPERE = ["sm_80", "sm_86"]
PRE_BLACKWELL_BSSY = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
HERE = os.path.dirname(os.path.abspath(__file__))


def load(d, name):
    path = os.path.join(d, name)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"check_paper: cannot read {path}: {e}")


def kernels_where(arch_doc, pred):
    return sorted(k["name"] for k in arch_doc["kernels"] if pred(k))


def claims(d):
    t2 = load(d, "table2.json")["architectures"]
    archs = lambda names: [a for a in names if a in t2]  # noqa: E731
    per = {a: load(d, f"{a}.json") for a in t2}
    has_mod = lambda k: any(f != "bare" for b in ("BSSY", "BSYNC", "BREAK")  # noqa: E731
                            for f in k["census"]["opcodes"].get(b, {}))
    out = []

    for a in archs(BLACKWELL):
        ok = t2[a]["modifiers"]
        out.append((f"{a}: BSSY/BSYNC carry .RECONVERGENT/.RELIABLE", ok, [] if ok else ["(no kernel has one)"]))
        ok = t2[a]["bra_u"] > 0
        out.append((f"{a}: BRA.U present", ok, [] if ok else ["(no kernel has one)"]))
        ok = t2[a]["partial_mask_warpsync"]
        out.append((f"{a}: partial-mask WARPSYNC present", ok, [] if ok else ["(no kernel has one)"]))
    for a in archs(AMPERE_HOPPER):
        bad = kernels_where(per[a], has_mod)
        out.append((f"{a}: no .RECONVERGENT/.RELIABLE modifiers", not bad, bad))
        bad = kernels_where(per[a], lambda k: k["census"]["bra_u"] > 0)
        out.append((f"{a}: no BRA.U", not bad, bad))
    for a in archs(PRE_BLACKWELL_BSSY):
        bad = kernels_where(per[a], lambda k: k["census"]["warpsync_mask"] > 0)
        out.append((f"{a}: no partial-mask WARPSYNC (Blackwell only)", not bad, bad))
    for b in archs(BLACKWELL):
        for a in archs(AMPERE):
            ok = t2[b]["deferred"] < t2[a]["deferred"]
            why = [f"{b}={t2[b]['deferred']} {a}={t2[a]['deferred']}"]
            if not ok:
                why += kernels_where(per[b], lambda k: k["placement"]["after"] > 0)
            out.append((f"fewer deferred placements on {b} than on {a}", ok, why))
    if "sm_61" in t2:
        p = t2["sm_61"]
        ok = p["ssy"] > 0 and p["sync"] > 0 and p["bssy"] == 0
        out.append(("sm_61: SSY/SYNC reconvergence, no BSSY", ok, [] if ok else [f"ssy={p['ssy']} sync={p['sync']} bssy={p['bssy']}"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--expected", default=os.path.join(HERE, "paper_disagreements.json"))
    a = ap.parse_args()
    with open(a.expected) as f:
        expected = json.load(f)["disagreements"]
    failures = 0
    seen = set()
    for text, ok, kernels in claims(a.results):
        listed = text in expected
        seen.add(text)
        status = "AGREES   " if ok else "DISAGREES"
        line = f"{status} {text}" + (f"  [{', '.join(kernels)}]" if kernels else "")
        if not ok and listed:
            line += f"  (known: {expected[text]['reason']})"
        if ok == listed:
            failures += 1
            line = "FAIL " + line + ("  -- listed as a disagreement but now agrees: update paper_disagreements.json"
                                     if listed else "  -- new disagreement: explain it in paper_disagreements.json")
        print(line)
    for text in sorted(set(expected) - seen):
        failures += 1
        print(f"FAIL listed disagreement not evaluated (architecture missing?): {text}")
    print(f"check_paper: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
