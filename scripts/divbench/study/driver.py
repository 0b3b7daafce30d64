"""The static study's command line: compile the corpus for every architecture, analyse it with
`divbench sass`, write results/static/<arch>.json, figure4.json and table2.json.

usage: python3 -m divbench.study --divbench PATH [--out DIR] [--cache DIR] [--jobs N] [--arch sm_XX]...
                                 [--cu12-prefix DIR] [--nvcc PATH] [--compare DIR]
(from scripts/, or with scripts/ on PYTHONPATH; scripts/study/run.sh builds divbench and runs this)

Compilers and disassemblers: toolchains.py. Cubins are cached by content (source files, flags, compiler
version) under --cache, and nvdisasm's listings of them under --cache/listings (divbench sass
--nvdisasm-cache: keyed by nvdisasm, options and cubin bytes). With --compare DIR the new files are compared with DIR's (volatile provenance such
as the date is ignored); any difference is printed and the exit status is 1 (a changed toolkit version is
named as such). Bad arguments: one line and exit 2; a failing tool or analysis: one line and exit 1.
"""
import concurrent.futures as cf
import datetime
import hashlib
import os
import subprocess
import sys
import time

from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import InputError, OutputError, load_json, same_file
from divbench.pathargs import creatable_dir, existing_dir
from divbench.paths import repo_root
from divbench.study import StudyError
from divbench.study.corpus import Corpus
from divbench.study.diff import compare_dirs
from divbench.study.records import arch_record, ptxas_versions, write_results
from divbench.study.toolchains import ALL_ARCHS, NVCC_FLAGS, Toolchains, run

ROOT = str(repo_root())


def log(msg):
    print(f"[study] {msg}", file=sys.stderr, flush=True)


def compile_all(tc, corpus, archs, cache, jobs):
    """Returns {arch: [cubin paths in corpus file order]} and the number of cache misses."""
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
    os.makedirs(cache, exist_ok=True)  # after the compilers answered --version
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


def analyze_arch(tc, arch, cubins, workdir, cache):
    """`divbench sass` on one architecture's cubins; nvdisasm's listings are kept under the cubin cache
    (CACHE/listings), so a second analysis of the same cubins (the Slurm array after the study, a
    re-run) does not start nvdisasm again."""
    out = os.path.join(workdir, f"sass.{arch}.json")
    argv = [tc.divbench, "sass", "--quiet", "--out", out, "--nvdisasm-cache", os.path.join(cache, "listings")]
    if tc.nvdisasm_for(arch):
        argv += ["--nvdisasm", tc.nvdisasm_for(arch)]
    run(argv + cubins)
    return load_json(out)


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def check_paths(a, tc, archs):
    """Every path argument, before anything is compiled, cached or written (bad input: exit 2)."""
    tc.check(archs)
    existing_dir(a.corpus, "--corpus")
    if a.compare:
        existing_dir(a.compare, "--compare")
        if same_file(a.compare, a.out):  # the files written would be compared with themselves: a false pass
            raise InputError(f"--out {a.out} is the --compare folder: write elsewhere to compare")
    creatable_dir(a.out, "--out")
    creatable_dir(a.cache, "--cache")


@tool_main("study")
def main(argv=None):
    ap = ArgumentParser(prog="study", description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", required=True, help="the divbench executable (its `sass` command analyses)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "static"))
    ap.add_argument("--cache", default=os.path.join(os.path.expanduser("~"), ".cache", "divbench", "study-cubins"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--arch", action="append", choices=ALL_ARCHS, help="architectures (default: all)")
    ap.add_argument("--cu12-prefix", default=os.environ.get("DIVBENCH_CU12_PREFIX",
                                                           os.path.join(os.path.expanduser("~"), ".cache", "divbench", "cu12-12.9")))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "kernels", "corpus"))
    ap.add_argument("--compare", metavar="DIR", help="compare the written files with DIR's; exit 1 on a difference")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        ap.error("--jobs must be >= 1")
    archs = a.arch or ALL_ARCHS
    tc = Toolchains(a)
    try:
        check_paths(a, tc, archs)
    except (InputError, OutputError) as e:
        return fail("study", e)
    try:
        corpus = Corpus.load(a.corpus)
        log(f"corpus: {len(corpus.kernels)} kernels in {len(corpus.files)} files; architectures: {' '.join(archs)}")

        t0 = time.monotonic()
        cubins, misses = compile_all(tc, corpus, archs, a.cache, a.jobs)
        t_compile = time.monotonic() - t0

        os.makedirs(a.out, exist_ok=True)
        t1 = time.monotonic()
        per_arch = {}
        with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {x: ex.submit(analyze_arch, tc, x, cubins[x], a.out, a.cache) for x in archs}
            for x in archs:
                doc = futs[x].result()
                toolkit = {"compiler": tc.compiler_version(x), "ptxas": ptxas_versions(doc),
                           "nvdisasm": tc.nvdisasm_version(x, doc)}
                per_arch[x] = arch_record(x, doc, corpus, toolkit)
                os.remove(os.path.join(a.out, f"sass.{x}.json"))
                log(f"analysed {x}")
        t_analysis = time.monotonic() - t1

        run_info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "git_commit": git_commit(), "generator": "scripts/divbench/study (python3 -m divbench.study)",
                    "compile_seconds": round(t_compile, 1), "analysis_seconds": round(t_analysis, 1),
                    "compiled": misses, "jobs": a.jobs}
        written = write_results(a.out, per_arch, corpus, run_info)
        log(f"wrote {len(written)} files to {a.out}; compile {t_compile:.1f} s ({misses} compiles), "
            f"analysis {t_analysis:.1f} s")
        if a.compare:
            problems = compare_dirs(a.compare, a.out, [os.path.basename(w) for w in written])
            if problems:
                print("\n".join(problems))
                print(f"study: {len(problems)} difference(s) between {a.compare} and {a.out}; "
                      f"if intended, regenerate with scripts/study/run.sh and commit results/static/")
                return 1
            log(f"identical to {a.compare} (ignoring run provenance)")
        return 0
    except (InputError, OutputError) as e:  # bad input (a corpus file that is not UTF-8, ...): exit 2
        return fail("study", e)
    except StudyError as e:
        print(f"study: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
