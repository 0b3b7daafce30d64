"""Compile one CUDA source file to a cubin with NVRTC (CUDA 12.x), for architectures nvcc 13 refuses.

usage: python3 -m divbench.study.nvrtc_compile --prefix CU12_PREFIX --arch sm_61 [-I DIR]... SOURCE OUTPUT.cubin
       python3 -m divbench.study.nvrtc_compile --prefix CU12_PREFIX --version

CU12_PREFIX is what scripts/study/setup-cu12.sh installed (py/nvidia/cuda_nvrtc, cuda_runtime, cuda_cccl).
The CUDA and CCCL include directories of that prefix are added automatically (cooperative_groups needs
both). Options mirror what nvcc does for the corpus: -O3 device code (NVRTC's default), C++17.
Exit 1 with NVRTC's log on stderr when the compile fails; the output is written atomically.
"""
import argparse
import ctypes
import os
import sys

from divbench.cli import tool_main
from divbench.jsonio import OutputError, check_output, write_atomic

# NVRTC emits this for every pre-Turing target; it is expected here and not worth a line per file.
DEPRECATION = "Architectures prior to '<compute/sm>_75' are deprecated"


def load(prefix):
    path = os.path.join(prefix, "py", "nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12")
    if not os.path.exists(path):
        sys.exit(f"nvrtc_compile: {path} not found: run scripts/study/setup-cu12.sh")
    return ctypes.CDLL(path)


def version(lib):
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def check(lib, code, what):
    if code != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        raise RuntimeError(f"{what}: {lib.nvrtcGetErrorString(code).decode()}")


def compile_cubin(lib, source, arch, includes):
    src = open(source, "rb").read()
    prog = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(prog), src, os.path.basename(source).encode(), 0, None, None),
          "nvrtcCreateProgram")
    opts = [f"-arch={arch}".encode(), b"--std=c++17"] + [b"-I" + i.encode() for i in includes]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    text = "\n".join(l for l in log.value.decode(errors="replace").splitlines()
                     if l.strip() and DEPRECATION not in l)
    if rc != 0:
        raise RuntimeError(f"{source} ({arch}): compile failed\n{text}")
    if text:
        print(text, file=sys.stderr)
    check(lib, lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
    if size.value == 0:
        raise RuntimeError(f"{source} ({arch}): NVRTC produced no cubin (is {arch} a real sm_ target?)")
    buf = ctypes.create_string_buffer(size.value)
    check(lib, lib.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.raw


@tool_main("nvrtc_compile")
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--arch")
    ap.add_argument("--version", action="store_true")
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("source", nargs="?")
    ap.add_argument("output", nargs="?")
    a = ap.parse_args()
    lib = load(a.prefix)
    if a.version:
        print(version(lib))
        return 0
    if not (a.arch and a.source and a.output):
        ap.error("--arch, SOURCE and OUTPUT are required")
    # NVRTC gets the source as a string, so "quoted" includes need the source's folder explicitly.
    includes = [os.path.dirname(os.path.abspath(a.source))] + a.includes + [os.path.join(a.prefix, "py", "nvidia", d, "include") for d in ("cuda_runtime", "cuda_cccl")]
    try:
        check_output(a.output, [a.source], "OUTPUT")
    except OutputError as e:
        print(f"nvrtc_compile: error: {e}", file=sys.stderr)
        return 2
    try:
        cubin = compile_cubin(lib, a.source, a.arch, includes)
    except RuntimeError as e:
        print(f"nvrtc_compile: {e}", file=sys.stderr)
        return 1
    try:
        write_atomic(a.output, cubin)
    except OutputError as e:
        print(f"nvrtc_compile: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
