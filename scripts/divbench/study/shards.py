"""The static study split into Slurm array tasks, one per architecture, and put back together.

Each task runs the study (python3 -m divbench.study --arch <one> --out <shard>); its <arch>.json is
exactly what a whole run writes for that architecture. merge() turns the shards back into the files of a
whole run (<arch>.json for each, figure4.json, table2.json) with the study's own writer, so a gathered
study and a local `bash scripts/study/run.sh` write the same files (the volatile "run" provenance aside).
Everything scripts/slurm/ needs from the study package goes through this module.

usage: PYTHONPATH=scripts python3 -m divbench.study.shards archs [--arch sm_XX]...   the task list (validated)
       PYTHONPATH=scripts python3 -m divbench.study.shards compare EXPECTED_DIR ACTUAL_DIR
                                                          exit 1 and list the differences
"""
import argparse
import datetime
import glob
import os
import sys

from divbench.cli import tool_main
from divbench.jsonio import InputError, OutputError, load_json
from divbench.paths import repo_root
from divbench.study import StudyError
from divbench.study.corpus import Corpus
from divbench.study.diff import VOLATILE, compare_dirs
from divbench.study.records import SCHEMA, write_results
from divbench.study.toolchains import ALL_ARCHS

# What merge() raises: one line naming the shard or file.
MergeError = (StudyError, InputError, OutputError)


def archs(wanted=None):
    """The architectures to run, in the study's order; an unknown one is an error."""
    for a in wanted or []:
        if a not in ALL_ARCHS:
            raise StudyError(f"unknown architecture {a!r} (known: {' '.join(ALL_ARCHS)})")
    return [a for a in ALL_ARCHS if not wanted or a in wanted]


def read_shard(shard_dir, arch):
    path = os.path.join(shard_dir, f"{arch}.json")
    doc = load_json(path, f"a {SCHEMA} record")
    if doc.get("schema") != SCHEMA or doc.get("arch") != arch:
        raise StudyError(f"{path}: not a {SCHEMA} record for {arch}")
    return doc


def merge(shards, out_dir, corpus_dir=None, jobs=None):
    """shards: {arch: folder holding that task's <arch>.json}. Checks every record before writing
    anything (schema, architecture, same corpus as this checkout's), then writes the whole set into
    out_dir with the study's write_results. Returns the paths written; raises one of MergeError."""
    corpus = Corpus.load(corpus_dir or os.path.join(repo_root(), "kernels", "corpus"))
    want = corpus.sha256()
    per_arch, runs = {}, []
    for arch in archs(list(shards)):
        doc = read_shard(shards[arch], arch)
        got = doc.get("corpus", {}).get("sha256")
        if got != want:
            raise StudyError(f"{arch}: shard made from another corpus (sha256 {got}, this checkout {want})")
        runs.append(doc.pop(VOLATILE, {}))
        per_arch[arch] = doc
    commits = sorted({r.get("git_commit", "unknown") for r in runs})
    run_info = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "git_commit": commits[0] if len(commits) == 1 else commits,
                "generator": f"scripts/slurm/gather.py ({len(runs)} Slurm array tasks of python3 -m divbench.study)",
                "compile_seconds": round(sum(r.get("compile_seconds", 0) for r in runs), 1),
                "analysis_seconds": round(sum(r.get("analysis_seconds", 0) for r in runs), 1),
                "compiled": sum(r.get("compiled", 0) for r in runs),
                "jobs": max((r.get("jobs", 1) for r in runs), default=1)}
    if jobs:
        run_info["slurm_jobs"] = jobs
    os.makedirs(out_dir, exist_ok=True)
    return write_results(out_dir, per_arch, corpus, run_info)


def compare(expected_dir, actual_dir):
    """The study's own comparison over every JSON file of actual_dir (a file only on one side is a
    difference too)."""
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(actual_dir, "*.json")))
    if not names:
        return [f"no JSON files in {actual_dir}"]
    return compare_dirs(expected_dir, actual_dir, names)


@tool_main("study_shards")
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("archs", help="print the task list")
    a.add_argument("--arch", action="append")
    c = sub.add_parser("compare", help="compare two result folders as the study's --compare does")
    c.add_argument("expected")
    c.add_argument("actual")
    args = ap.parse_args()
    try:
        if args.cmd == "archs":
            print("\n".join(archs(args.arch)))
            return 0
        problems = compare(args.expected, args.actual)
        if problems:
            print("\n".join(problems))
            print(f"study_shards: {len(problems)} difference(s) between {args.expected} and {args.actual}")
            return 1
        n = len(glob.glob(os.path.join(args.actual, "*.json")))
        print(f"study_shards: {n} files identical to {args.expected} (ignoring run provenance)")
        return 0
    except MergeError as e:
        print(f"study_shards: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
