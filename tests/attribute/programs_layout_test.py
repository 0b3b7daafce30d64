#!/usr/bin/env python3
"""`divbench attribute --from-counts` takes every function layout nvcc produces (no GPU).

usage: programs_layout_test.py DIVBENCH PROGRAMS NVDISASM...

PROGRAMS is tests/attribute/programs.cu built (IEEE division, reciprocal and square root slow paths
after a kernel's EXIT, double math, a __noinline__ callee shared by two kernels, calls through a
register, a jump table, recursion, CUB). Each NVDISASM ("default": the one divbench finds; the
CUDA 12.8 one lists the slow paths as functions of their own, 13.5 inside the kernel) disassembles
its cubin; a recording is made in which every instruction of every kernel's section (the text
listing's offsets, subroutines included) was executed once by a full warp, and attribute
--from-counts must analyse every kernel with exit 0 and price every counted pc's instructions.
The control: the same recording with one pc past a kernel's code (counts of another build) is
still refused, exit 2, naming that pc.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def find_tool(name: str, beside: str | None) -> str | None:
    """`name` next to the given nvdisasm, else where divbench looks (PATH, CUDA_HOME, /usr/local/cuda,
    the PyPI wheels)."""
    if beside:
        p = Path(beside).with_name(name)
        if os.access(p, os.X_OK):
            return str(p)
    found = shutil.which(name)
    if found:
        return found
    for d in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
        if d and os.access(f"{d}/bin/{name}", os.X_OK):
            return f"{d}/bin/{name}"
    import site
    for sp in site.getsitepackages() + [site.getusersitepackages()]:
        for sub in ("nvidia/cu13/bin", "nvidia/cu12/bin", "nvidia/cuda_nvdisasm/bin", "nvidia/cuda_cuobjdump/bin"):
            p = Path(sp) / sub / name
            if os.access(p, os.X_OK):
                return str(p)
    return None


def section_offsets(nvdisasm: str, cubin: Path) -> dict[str, list[int]]:
    """Per kernel (a section .text.NAME), the offset of every instruction the text listing shows: the
    kernel's code and every subroutine in its section, up to the padding after the last one."""
    out = subprocess.run([nvdisasm, "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    offsets: dict[str, list[int]] = {}
    current = None
    for line in out.splitlines():
        m = re.match(r"\s*\.section\s+\.text\.([^,\s]+)", line)
        if m:
            current = m.group(1)
            offsets[current] = []
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*)", line)
        if m and current:
            offsets[current].append(int(m.group(1), 16))
    return offsets


def recording(folder: Path, cubin: Path, functions: dict[str, list[int]], crc: int, extra_pc: int | None = None) -> None:
    (folder / "cubins").mkdir(parents=True)
    shutil.copy(cubin, folder / "cubins" / f"{crc}.cubin")
    fns = []
    for name, pcs in functions.items():
        rows = [[pc, 1, 32, 32, 0, 0] for pc in pcs]
        if extra_pc is not None and not fns:
            rows.append([extra_pc, 1, 32, 32, 0, 0])
        fns.append({"crc": crc, "name": name, "pcs": rows})
    doc = {"schema": "divbench.attribute_counts/1", "pid": 1, "target": "*all*",
           "metrics": ["smsp__sass_inst_executed", "smsp__sass_thread_inst_executed"], "dropped_records": 0,
           "device": {"cc": "9.0", "name": "synthetic", "sms": 132},
           "cubins": [{"crc": crc, "file": f"cubins/{crc}.cubin"}],
           "launches": {name: 1 for name in functions}, "functions": fns}
    (folder / "counts-1.json").write_text(json.dumps(doc))


def main() -> int:
    divbench, programs = sys.argv[1], sys.argv[2]
    nvdisasms = ["" if a == "default" else a for a in sys.argv[3:]] or [""]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, nvd in enumerate(nvdisasms):
            label = nvd or "divbench's own nvdisasm"
            tool = nvd or find_tool("nvdisasm", None)
            cuobjdump = find_tool("cuobjdump", tool)
            if not tool or not cuobjdump:
                print(f"SKIPPED: no nvdisasm/cuobjdump for {label}")
                return 0
            work = Path(tmp) / str(i)
            work.mkdir()
            subprocess.run([cuobjdump, "-xelf", "all", str(Path(programs).resolve())], cwd=work, check=True,
                           capture_output=True)
            cubins = sorted(work.glob("*.cubin"))
            if len(cubins) != 1:
                print(f"FAIL {label}: expected one cubin in {programs}, found {[c.name for c in cubins]}")
                return 1
            offsets = section_offsets(tool, cubins[0])
            version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
            # The kernels whose code holds a subroutine of its own: what the layouts are about.
            listing = subprocess.run([tool, "-json", str(cubins[0])], capture_output=True, text=True, check=True).stdout
            entries = [f["function-name"] for f in json.loads(listing)[1]]
            wanted = ["Fan1", "likelihood_kernel", "ieee_float", "double_math", "callee_user_a", "callee_user_b",
                      "indirect_calls", "jump_table", "recursion", "DeviceHistogramSweepKernel"]
            kernels = {n: pcs for n, pcs in offsets.items() if any(w in n for w in wanted)}
            missing = [w for w in wanted if not any(w in n for n in kernels)]
            if missing:
                print(f"FAIL {label}: kernels not in the cubin: {missing}")
                failures += 1
                continue
            print(f"{label} ({version}): {len(kernels)} kernels, {sum(map(len, kernels.values()))} instructions; "
                  f"-json lists {len(entries)} entries for {len(offsets)} sections")
            rec = work / "rec"
            recording(rec, cubins[0], kernels, 4242)
            doc = work / "doc.json"
            argv = [divbench, "attribute", "--from-counts", str(rec), "--out", str(doc), "--quiet"]
            if nvd:
                argv += ["--nvdisasm", nvd]
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {label}: exit {r.returncode}: {r.stderr.strip().splitlines()[-1:]}")
                failures += 1
                continue
            d = json.loads(doc.read_text())
            got = {k["name"]: k for k in d["kernels"]}
            for name, pcs in kernels.items():
                k = got.get(name)
                if k is None:
                    print(f"FAIL {label}: {name} not analysed")
                    failures += 1
                elif int(k["inst_executed"]) != len(pcs):
                    print(f"FAIL {label}: {name}: {k['inst_executed']} instructions executed, {len(pcs)} counted")
                    failures += 1
            # The control: a pc past the end of the first kernel's section is refused as foreign.
            first = next(iter(kernels))
            past = max(kernels[first]) + 16 * 64
            bad = work / "bad"
            recording(bad, cubins[0], kernels, 4242, extra_pc=past)
            argv[3] = str(bad)
            argv[5] = str(work / "bad.json")
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.returncode != 2 or f"pc {past} of" not in r.stderr or "not an instruction of its code" not in r.stderr:
                print(f"FAIL {label}: a pc past {first}'s code: exit {r.returncode}, {r.stderr.strip()[-300:]}")
                failures += 1
            if (work / "bad.json").exists():
                print(f"FAIL {label}: a refused recording left {work / 'bad.json'}")
                failures += 1
    print(f"programs_layout: {len(nvdisasms)} nvdisasm(s), {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
