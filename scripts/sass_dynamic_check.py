#!/usr/bin/env python3
"""Structural SASS checks of the dynamic-suite kernels (issue 4), read from a built binary.

  sass_dynamic_check.py FILE [--json OUT] [--layout-json OUT] [--check] [--only NAME]
  sass_dynamic_check.py --self-test

FILE is an object file, a static library or an executable holding the kernels. Every embedded
cubin (one per translation unit and architecture) is disassembled with nvdisasm and checked:

  predication  the branchy kernel has more convergence barriers (BSSY) than the branch-free
               single path (the predicated kernel with one arm), and every predicated kernel has
               exactly as many as that one (the only barrier left is the timer's lane-0 store):
               the predicated form does not branch on the lane, the branchy form does.
  producer_consumer / peer_wait
               each kernel calls its two arms (distinct __noinline__ functions) from two call
               sites: the arms were not merged. The call site laid out first is the divergent
               branch's fall-through; it is reported as `pc_then_arm_first` per architecture.
  kway bodies  the SFU body uses MUFU; the divergent-memory body loads (LDG) inside its paths.

--layout-json writes {"sm_90": {"pc_then_arm_first": true, ...}, ...}: the facts divbench reads at run
time (next to the executable) to say which producer/consumer order was laid out first.
Exit status: 0 ok, 1 a check failed (with --check), 2 bad input, 77 with --check when no
cuobjdump/nvdisasm was found (a skip; without --check that is a note and exit 0).
This is a minimal text-level check; the SASS analyzer (divbench sass) can replace it.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

INSN = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)(.*?);")
LABEL = re.compile(r"^(\$?[A-Za-z_][\w$.]*):\s*$")


def find_tool(name, explicit=None):
    if explicit:
        return explicit if os.path.exists(explicit) else None
    hit = shutil.which(name)
    if hit:
        return hit
    for d in ("/usr/local/cuda/bin",):
        if os.path.exists(os.path.join(d, name)):
            return os.path.join(d, name)
    try:
        import nvidia  # PyPI nvidia-cuda-nvdisasm / nvidia-cuda-cuobjdump

        for root in nvidia.__path__:
            for cand in glob.glob(os.path.join(root, "*", "bin", name)):
                return cand
    except ImportError:
        pass
    return None


def disassemble(cubin, nvdisasm):
    """{function name: [(addr, pred, opcode, operands)]} for every function (kernels and $subfunctions)."""
    text = subprocess.run([nvdisasm, cubin], check=True, capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in text.splitlines():
        m = LABEL.match(line)
        if m and not m.group(1).startswith(".L"):
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = INSN.match(line)
        if m and cur is not None:
            funcs[cur].append((int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4).strip()))
    return funcs


def kernels(funcs):
    return {k: v for k, v in funcs.items() if not k.startswith("$") and v}


def count(insns, prefix):
    return sum(1 for _, _, op, _ in insns if op == prefix or op.startswith(prefix + "."))


def arch_of(cubin):
    m = re.search(r"\.(sm_\d+[a-z]?)\.cubin$", cubin)
    return m.group(1) if m else "unknown"


def check_predication(ks, problems):
    """The branch-free single path (the predicated kernel with one arm) is the baseline: its only
    convergence barrier is the timer's lane-0 store. The branchy kernel must add barriers (its arms
    branch on the lane); no predicated kernel may."""
    branchy = [v for k, v in ks.items() if "pred_branchy_kernel" in k]
    select = {int(re.search(r"pred_select_kernelILi(\d+)E", k).group(1)): v for k, v in ks.items()
              if "pred_select_kernel" in k}
    if not branchy or 1 not in select:
        return None
    base = count(select[1], "BSSY")
    out = {"bssy_single_path": base, "bssy_branchy": count(branchy[0], "BSSY"),
           "bssy_predicated": {str(a): count(v, "BSSY") for a, v in sorted(select.items())}}
    if out["bssy_branchy"] <= base:
        problems.append(f"branchy kernel has {out['bssy_branchy']} BSSY, the single path has {base}: it does not branch")
    for a, n in out["bssy_predicated"].items():
        if n != base:
            problems.append(f"predicated kernel (arms={a}) has {n} BSSY, the single path has {base}: it branches")
    return out


def call_order(insns, tag0, tag1):
    """Addresses of the first CALL to an arm whose name contains tag0 / tag1."""
    a0 = a1 = None
    for addr, _, op, ops in insns:
        if not op.startswith("CALL"):
            continue
        if tag0 in ops and a0 is None:
            a0 = addr
        if tag1 in ops and a1 is None:
            a1 = addr
    return a0, a1


def check_arms(ks, kernel_tag, tag0, tag1, what, problems):
    for k, v in ks.items():
        if kernel_tag not in k:
            continue
        a0, a1 = call_order(v, tag0, tag1)
        if a0 is None or a1 is None:
            problems.append(f"{what}: the two arms are not two call sites (then: {a0}, else: {a1}); merged or inlined")
            return None
        return {"then_call": hex(a0), "else_call": hex(a1), "then_arm_first": a0 < a1}
    return None


def check_bodies(ks, problems):
    out = {}
    for k, v in ks.items():
        if "kway_kernel" not in k:
            continue
        if "Sfu" in k:
            out["sfu_mufu"] = count(v, "MUFU")
            if out["sfu_mufu"] == 0:
                problems.append("kway_kernel<Sfu> has no MUFU instruction")
        if "MemDivergent" in k:
            out["mem_divergent_ldg"] = count(v, "LDG")
            if out["mem_divergent_ldg"] == 0:
                problems.append("kway_kernel<MemDivergent> has no LDG instruction")
    return out


def self_test():
    """The checks must be able to fail: feed them SASS shapes that are wrong and right."""
    def k(*ops):
        return [(16 * i, pred, op, args) for i, (pred, op, args) in enumerate(ops)]
    single = k(("", "BSSY", "B0, 0x40"), ("@P0", "BRA", "0x30"), ("", "BSYNC", "B0"), ("", "EXIT", ""))
    branchy = k(("", "BSSY", "B0, 0x80"), ("@P0", "BRA", "0x40"), ("", "BSYNC", "B0"),
                ("", "BSSY", "B0, 0x40"), ("@P0", "BRA", "0x30"), ("", "BSYNC", "B0"), ("", "EXIT", ""))
    failures = []

    def expect(name, got_problems, want_fail):
        if bool(got_problems) != want_fail:
            failures.append(f"{name}: problems={got_problems}, expected {'some' if want_fail else 'none'}")

    p = []
    check_predication({"pred_select_kernelILi1E": single, "pred_branchy_kernel": branchy,
                       "pred_select_kernelILi2E": single}, p)
    expect("good predication", p, False)
    p = []
    check_predication({"pred_select_kernelILi1E": single, "pred_branchy_kernel": single,
                       "pred_select_kernelILi2E": single}, p)
    expect("branchy without a branch", p, True)
    p = []
    check_predication({"pred_select_kernelILi1E": single, "pred_branchy_kernel": branchy,
                       "pred_select_kernelILi4E": branchy}, p)
    expect("predicated that branches", p, True)
    calls = k(("@P0", "BRA", "0x30"), ("", "CALL.REL.NOINC", "`($k$pc_armILi1E)"), ("", "BRA", "0x40"),
              ("", "CALL.REL.NOINC", "`($k$pc_armILi0E)"), ("", "EXIT", ""))
    p = []
    r = check_arms({"producer_consumer_kernel": calls}, "producer_consumer_kernel", "pc_armILi0E", "pc_armILi1E",
                   "pc", p)
    expect("two call sites", p, False)
    if not r or r["then_arm_first"]:
        failures.append(f"layout: expected the else arm first, got {r}")
    p = []
    check_arms({"producer_consumer_kernel": single}, "producer_consumer_kernel", "pc_armILi0E", "pc_armILi1E", "pc", p)
    expect("merged arms", p, True)
    p = []
    check_bodies({"kway_kernelISfuE": single}, p)
    expect("sfu without MUFU", p, True)
    line = "        /*0120*/               @!P0 BRA `(.L_x_3) ;"
    m = INSN.match(line)
    if not m or m.group(3) != "BRA" or m.group(2).strip() != "@!P0":
        failures.append(f"instruction regex did not parse {line!r}")
    for f in failures:
        print("SELF-TEST FAIL: " + f)
    print("sass_dynamic_check self-test: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--json", help="write every finding as JSON")
    ap.add_argument("--layout-json", help="write the per-architecture layout facts divbench reads")
    ap.add_argument("--check", action="store_true", help="exit 1 when a check fails")
    ap.add_argument("--only", help="check only cubins whose file name contains this (e.g. producer_consumer)")
    ap.add_argument("--self-test", action="store_true", help="check the checks on synthetic SASS and exit")
    ap.add_argument("--cuobjdump")
    ap.add_argument("--nvdisasm")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    cuobjdump, nvdisasm = find_tool("cuobjdump", a.cuobjdump), find_tool("nvdisasm", a.nvdisasm)
    if not cuobjdump or not nvdisasm:
        print("sass_dynamic_check: cuobjdump/nvdisasm not found: skipped", file=sys.stderr)
        if a.layout_json and os.path.exists(a.layout_json):
            os.remove(a.layout_json)  # no stale facts about an older binary
        return 77 if a.check else 0
    if not a.file or not os.path.exists(a.file):
        print(f"sass_dynamic_check: {a.file}: no such file", file=sys.stderr)
        return 2
    findings, problems = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([cuobjdump, "-xelf", "all", os.path.abspath(a.file)], cwd=tmp, check=True, capture_output=True)
        cubins = sorted(glob.glob(os.path.join(tmp, "*.cubin")))
        if a.only:
            cubins = [c for c in cubins if a.only in os.path.basename(c)]
        if not cubins:
            problems.append(f"{a.file}: no cubin inside")
        for cubin in cubins:
            arch = arch_of(cubin)
            ks = kernels(disassemble(cubin, nvdisasm))
            mine = []
            f = findings.setdefault(arch, {})
            pred = check_predication(ks, mine)
            if pred:
                f["predication"] = pred
            pc = check_arms(ks, "producer_consumer_kernel", "pc_armILi0E", "pc_armILi1E", "producer_consumer", mine)
            if pc:
                f["producer_consumer"] = pc
            pw = check_arms(ks, "peer_wait_kernel", "take_turnsILi0E", "take_turnsILi1E", "peer_wait", mine)
            if pw:
                f["peer_wait"] = pw
            bodies = check_bodies(ks, mine)
            if bodies:
                f.setdefault("bodies", {}).update(bodies)
            problems += [f"{arch} {os.path.basename(cubin)}: {p}" for p in mine]
    for arch, f in sorted(findings.items()):
        if not f:
            continue
        line = [arch]
        if "predication" in f:
            p = f["predication"]
            line.append(f"BSSY single-path={p['bssy_single_path']} branchy={p['bssy_branchy']} "
                        f"predicated={list(p['bssy_predicated'].values())}")
        if "producer_consumer" in f:
            line.append("producer/consumer: " + ("then" if f["producer_consumer"]["then_arm_first"] else "else") +
                        "-arm laid out first")
        if "peer_wait" in f:
            line.append("peer-wait arms: two call sites")
        if "bodies" in f:
            line.append(" ".join(f"{k}={v}" for k, v in sorted(f["bodies"].items())))
        print("  ".join(line))
    for p in problems:
        print("FAIL: " + p)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"findings": findings, "problems": problems}, fh, indent=2)
    if a.layout_json:
        layout = {arch: {"pc_then_arm_first": f["producer_consumer"]["then_arm_first"]}
                  for arch, f in findings.items() if "producer_consumer" in f}
        tmpfile = a.layout_json + ".tmp"
        with open(tmpfile, "w") as fh:
            json.dump(layout, fh, indent=2)
        os.replace(tmpfile, a.layout_json)
    if a.check and problems:
        return 1
    if a.check and not any(findings.values()):
        print("FAIL: no dynamic-suite kernel found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
