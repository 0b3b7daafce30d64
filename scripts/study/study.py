#!/usr/bin/env python3
"""The static study: compile the corpus for every architecture, analyse it with `divbench sass`,
write results/static/<arch>.json, figure4.json and table2.json.

usage: study.py --divbench PATH [--out DIR] [--cache DIR] [--jobs N] [--arch sm_XX]...
                [--cu12-prefix DIR] [--nvcc PATH] [--compare DIR]

Compilers: nvcc 13 (-cubin -O3) for sm_75..sm_121; NVRTC 12.9 (scripts/study/nvrtc_compile.py) for
sm_61 and sm_70, which nvcc 13 refuses. Disassembly and analysis: `divbench sass --json`, with the
nvdisasm it finds itself for CUDA 13 cubins and the CUDA 12.8 nvdisasm of the cu12 prefix
(scripts/study/setup-cu12.sh) for sm_61/sm_70, which nvdisasm 13 refuses.

Cubins are cached by content (source files, flags, compiler version) under --cache. With --compare DIR
the new files are compared with DIR's (volatile provenance such as the date is ignored); any
difference is printed and the exit status is 1 (a changed toolkit version is named as such).
"""
import argparse
import concurrent.futures as cf
import datetime
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import study_lib  # noqa: E402

NVCC13_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"]
CU12_ARCHS = ["sm_61", "sm_70"]
ALL_ARCHS = CU12_ARCHS + NVCC13_ARCHS
NVCC_FLAGS = ["-cubin", "-O3", "-std=c++17"]


def log(msg):
    print(f"[study] {msg}", file=sys.stderr, flush=True)


def run(argv, **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode != 0:
        raise study_lib.StudyError(f"{' '.join(argv[:3])} ... failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def first_release_line(text):
    for line in text.splitlines():
        if "release" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "unknown"


class Toolchains:
    def __init__(self, a):
        self.nvcc = a.nvcc
        self.cu12 = a.cu12_prefix
        self.divbench = a.divbench
        self.nvdisasm12 = os.path.join(self.cu12, "bin", "nvdisasm") if self.cu12 else None
        self._versions = {}

    def is_cu12(self, arch):
        return arch in CU12_ARCHS

    def check(self, archs):
        if not os.access(self.divbench, os.X_OK):
            raise study_lib.StudyError(f"divbench not executable: {self.divbench}")
        if any(not self.is_cu12(x) for x in archs):
            run([self.nvcc, "--version"])
        if any(self.is_cu12(x) for x in archs):
            if not (self.cu12 and os.path.exists(os.path.join(self.cu12, "py", "nvidia", "cuda_nvrtc"))
                    and os.access(self.nvdisasm12, os.X_OK)):
                raise study_lib.StudyError(
                    f"CUDA 12 toolchain for {'/'.join(CU12_ARCHS)} missing under {self.cu12!r}: "
                    "run scripts/study/setup-cu12.sh (or pass --arch to leave those out)")

    def compiler_version(self, arch):
        key = "nvrtc" if self.is_cu12(arch) else "nvcc"
        if key not in self._versions:
            if key == "nvcc":
                self._versions[key] = "nvcc " + first_release_line(run([self.nvcc, "--version"]))
            else:
                v = run([sys.executable, os.path.join(HERE, "nvrtc_compile.py"), "--prefix", self.cu12, "--version"]).strip()
                self._versions[key] = f"nvrtc {v} ({study_lib.wheel_version(self.cu12, 'nvidia_cuda_nvrtc_cu12')})"
        return self._versions[key]

    def nvdisasm_for(self, arch):
        return self.nvdisasm12 if self.is_cu12(arch) else None  # None: divbench sass finds its own

    def nvdisasm_version(self, arch, sass_doc):
        # Prefer what divbench sass reports (the tool it actually ran); else ask the binary.
        v = study_lib.nvdisasm_version_of(sass_doc)
        if v:
            return v
        tool = self.nvdisasm_for(arch)
        return "nvdisasm " + first_release_line(run([tool, "--version"])) if tool else "unknown"

    def compile(self, arch, src, out):
        if self.is_cu12(arch):
            run([sys.executable, os.path.join(HERE, "nvrtc_compile.py"), "--prefix", self.cu12, "--arch", arch, src, out])
        else:
            tmp = out + ".tmp.cubin"
            run([self.nvcc, *NVCC_FLAGS, f"-arch={arch}", "-o", tmp, src])
            os.replace(tmp, out)


def compile_all(tc, corpus, archs, cache, jobs):
    """Returns {arch: [cubin paths in corpus file order]} and the number of cache misses."""
    os.makedirs(cache, exist_ok=True)
    tasks, result = [], {}
    for arch in archs:
        version = tc.compiler_version(arch)
        flags = "nvrtc --std=c++17" if tc.is_cu12(arch) else " ".join(NVCC_FLAGS)
        result[arch] = []
        for f in corpus.files:
            key = hashlib.sha256("\0".join([corpus.file_hash(f), corpus.common_hash, arch, version, flags]).encode()).hexdigest()[:24]
            out = os.path.join(cache, f"{os.path.splitext(os.path.basename(f))[0]}.{arch}.{key}.cubin")
            result[arch].append(out)
            if not os.path.exists(out):
                tasks.append((arch, f, out))
    done = 0
    if tasks:
        log(f"compiling {len(tasks)} (file, arch) pairs with {jobs} jobs "
            f"({sum(len(v) for v in result.values()) - len(tasks)} cached)")
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            futs = {ex.submit(tc.compile, a, f, o): (a, f) for a, f, o in tasks}
            for fut in cf.as_completed(futs):
                fut.result()
                done += 1
                if done % 10 == 0 or done == len(tasks):
                    log(f"compiled {done}/{len(tasks)}")
    else:
        log("all cubins cached")
    return result, len(tasks)


def analyze_arch(tc, arch, cubins, workdir):
    out = os.path.join(workdir, f"sass.{arch}.json")
    argv = [tc.divbench, "sass", "--quiet", "--out", out]
    if tc.nvdisasm_for(arch):
        argv += ["--nvdisasm", tc.nvdisasm_for(arch)]
    run(argv + cubins)
    with open(out) as f:
        return json.load(f)


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", required=True, help="the divbench executable (its `sass` command analyses)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "static"))
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "divbench", "study-cubins"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--arch", action="append", help=f"architectures (default: all of {' '.join(ALL_ARCHS)})")
    ap.add_argument("--cu12-prefix", default=os.environ.get("DIVBENCH_CU12_PREFIX",
                                                           os.path.join(os.path.expanduser("~"), ".cache", "divbench", "cu12-12.9")))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "kernels", "corpus"))
    ap.add_argument("--compare", metavar="DIR", help="compare the written files with DIR's; exit 1 on a difference")
    a = ap.parse_args()
    try:
        archs = a.arch or ALL_ARCHS
        for x in archs:
            if x not in ALL_ARCHS:
                raise study_lib.StudyError(f"unknown architecture {x!r} (known: {' '.join(ALL_ARCHS)})")
        if a.jobs < 1:
            raise study_lib.StudyError("--jobs must be >= 1")
        corpus = study_lib.Corpus.load(a.corpus)
        tc = Toolchains(a)
        tc.check(archs)
        log(f"corpus: {len(corpus.kernels)} kernels in {len(corpus.files)} files; architectures: {' '.join(archs)}")

        t0 = time.monotonic()
        cubins, misses = compile_all(tc, corpus, archs, a.cache, a.jobs)
        t_compile = time.monotonic() - t0

        os.makedirs(a.out, exist_ok=True)
        t1 = time.monotonic()
        per_arch = {}
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {x: ex.submit(analyze_arch, tc, x, cubins[x], a.out) for x in archs}
            for x in archs:
                doc = futs[x].result()
                toolkit = {"compiler": tc.compiler_version(x), "ptxas": study_lib.ptxas_versions(doc),
                           "nvdisasm": tc.nvdisasm_version(x, doc)}
                per_arch[x] = study_lib.arch_record(x, doc, corpus, toolkit)
                os.remove(os.path.join(a.out, f"sass.{x}.json"))
                log(f"analysed {x}")
        t_analysis = time.monotonic() - t1

        run_info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "git_commit": git_commit(), "generator": "scripts/study/study.py",
                    "compile_seconds": round(t_compile, 1), "analysis_seconds": round(t_analysis, 1),
                    "compiled": misses, "jobs": a.jobs}
        written = study_lib.write_results(a.out, per_arch, corpus, run_info)
        log(f"wrote {len(written)} files to {a.out}; compile {t_compile:.1f} s ({misses} compiles), "
            f"analysis {t_analysis:.1f} s")
        if a.compare:
            problems = study_lib.compare_dirs(a.compare, a.out, [os.path.basename(w) for w in written])
            if problems:
                print("\n".join(problems))
                print(f"study: {len(problems)} difference(s) between {a.compare} and {a.out}; "
                      f"if intended, regenerate with scripts/study/run.sh and commit results/static/")
                return 1
            log(f"identical to {a.compare} (ignoring run provenance)")
        return 0
    except study_lib.StudyError as e:
        print(f"study: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
