#!/usr/bin/env python3
"""`divbench attribute --static` on the static corpus, on divbench's attribution targets and on a
Thrust/CUB program (no GPU): the JSON contract ({"kernels": [{"name", "arch", "branches": [{"pc",
"ipdom", "placement", "guarded", "source"}]}]}), agreement with `divbench sass` on how many
potentially divergent branches each function has, and the source lines of branches whose line the
test program's source names.
usage: static_test.py DIVBENCH TARGETS THRUST CORPUS_CUBIN_DIR"""
import glob
import json
import os
import re
import subprocess
import sys

PLACEMENTS = {"at", "after", "before", "unguarded", "unclosed"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run_json(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        fail(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


def check_contract(doc, what):
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list) or not doc["kernels"]:
        fail(f"{what}: no kernels[]")
        return
    for k in doc["kernels"]:
        for key in ("name", "arch", "branches"):
            if key not in k:
                fail(f"{what}: kernel without {key}")
                return
        for b in k["branches"]:
            for key in ("pc", "ipdom", "placement", "guarded", "source"):
                if key not in b:
                    fail(f"{what}: {k['name']}: branch without {key}")
                    return
            if not isinstance(b["pc"], int) or b["pc"] % 8:
                fail(f"{what}: {k['name']}: pc {b['pc']} is not an instruction offset")
            if b["ipdom"] is not None and (not isinstance(b["ipdom"], int) or b["ipdom"] <= 0):
                fail(f"{what}: {k['name']}: ipdom {b['ipdom']}")
            if b["placement"] not in PLACEMENTS:
                fail(f"{what}: placement {b['placement']}")
            if b["guarded"] != (b["placement"] != "unguarded"):
                fail(f"{what}: guarded {b['guarded']} with placement {b['placement']}")


def main():
    divbench, targets, thrust, corpus_dir = sys.argv[1:5]
    cubins = sorted(glob.glob(os.path.join(corpus_dir, "corpus_*.sm_90.cubin")))
    if not cubins:
        fail(f"no corpus cubins in {corpus_dir}")
    for cubin in cubins:
        doc = run_json([divbench, "attribute", "--static", "--json", cubin])
        if doc is None:
            continue
        check_contract(doc, os.path.basename(cubin))
        sass = run_json([divbench, "sass", "--format", "json", cubin])
        if sass is None:
            continue
        want = {f["name"]: f["placement"]["divergent_branches"] for c in sass["cubins"] for f in c["functions"]}
        got = {k["name"]: len(k["branches"]) for k in doc["kernels"]}
        if want != got:
            fail(f"{os.path.basename(cubin)}: branches per function {got} != divbench sass {want}")
    print(f"corpus: {len(cubins)} cubins checked")

    # The targets program: the lines of the lane kernels' branches, from the source itself.
    doc = run_json([divbench, "attribute", "--static", "--json", "--kernel", "lanes_", targets])
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.cu")).read().splitlines()
    lines = {}
    for i, text in enumerate(src, start=1):
        m = re.search(r"constexpr int (kLine\w+) = __LINE__ \+ (\d+);", text)
        if m:
            lines[m.group(1)] = i + int(m.group(2))
    if doc is not None:
        check_contract(doc, "targets")
        for kernel, key in (("lanes_if_else", "kLineIfElse"), ("lanes_nested", "kLineNestedInner")):
            ks = [k for k in doc["kernels"] if kernel in k["name"]]
            if not ks:
                fail(f"targets: no kernel {kernel}")
                continue
            srcs = [b["source"] for b in ks[0]["branches"] if b["source"]]
            if not any(s.endswith(f"targets.cu:{lines[key]}") for s in srcs):
                fail(f"targets: {kernel}: no branch at targets.cu:{lines[key]} (branches at {srcs})")
        print(f"targets: lane kernels' branches at lines {lines}")

    # Thrust/CUB as the toolkit ships them: kernels with branches, lines in the library's headers.
    doc = run_json([divbench, "attribute", "--static", "--json", thrust])
    if doc is not None:
        check_contract(doc, "thrust_cub")
        names = [k["name"] for k in doc["kernels"]]
        if not any("cub" in n.lower() for n in names):
            fail(f"thrust_cub: no CUB kernel among {names[:5]}")
        branches = sum(len(k["branches"]) for k in doc["kernels"])
        in_cub = sum(1 for k in doc["kernels"] for b in k["branches"] if b["source"] and "/cub/" in b["source"])
        if branches == 0 or in_cub == 0:
            fail(f"thrust_cub: {branches} branches, {in_cub} with a line in cub/")
        print(f"thrust_cub: {len(names)} kernels, {branches} potentially divergent branches, {in_cub} at a line in cub/")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
