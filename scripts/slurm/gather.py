#!/usr/bin/env python3
"""Gather what a Slurm submission (scripts/slurm/submit.sh) left in its stage folder into results/.

With the stage's task list (STAGE/tasks.tsv, written by submit.sh) every task is accounted for from
the status file it left (STAGE/status/<job>_<task>, scripts/slurm/task_status.sh): each failed task,
or one that left no status (never ran, cancelled, killed), is named with the last line of its log.
  gpu tasks:   STAGE/<name>/*.json -> RESULTS/<name>/, then the figures and the comparison table are
               redrawn (scripts/figures.py, scripts/compare.py -> RESULTS/figures/compare.md)
  study tasks: the per-architecture shards STAGE/study/<arch>/ merged into RESULTS/static/, the files
               a local scripts/study/run.sh writes (only when every architecture succeeded)
Without a task list (a stage filled by hand) every subfolder of STAGE is a GPU's results.
A GPU's results are judged first (python3 -m divbench.quality: the verdict recomputed from the samples,
the processes on the GPU and the fit); a GPU with an untrustworthy result is not gathered, named with
its reasons, unless ALLOW_DISTURBED=1. Never writes over a RESULTS/<name>/ that holds files unless FORCE=1. Exit 0 when every task succeeded
and everything was gathered, 1 otherwise, 2 on bad input.

usage: gather.sh [STAGE]       (default: results-slurm/ in the checkout; gather.sh runs this file with
                               scripts/ on PYTHONPATH, where the package divbench is)
  env: DIVBENCH_RESULTS (default: results/ in the checkout), FORCE=1, ALLOW_DISTURBED=1
"""
import csv
import glob
import io
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from divbench.cli import tool_main  # gather.sh puts scripts/ on PYTHONPATH (the package's rule: no sys.path edits)
from divbench.jsonio import InputError, read_text

STAGE_FOLDERS = {"logs", "status", "study"}   # submit.sh's own folders, never a GPU's results
# A task name is one folder name under RESULTS and STAGE: no '/', no '..', nothing a shell or a path
# would read as something else. Job and task ids are Slurm's numbers.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
JOB = re.compile(r"[0-9A-Za-z_]{1,64}")


class GatherError(Exception):
    """Bad input (the stage, its task list, DIVBENCH_RESULTS): one line, exit 2."""


def say(msg):
    print(f"gather: {msg}", file=sys.stderr, flush=True)


def valid_name(name):
    return bool(NAME.fullmatch(name)) and ".." not in name


def confined(results, name):
    """RESULTS/<name>, refused unless it lies inside RESULTS once symlinks are resolved."""
    dest = os.path.join(results, name)
    top = os.path.realpath(results)
    if not valid_name(name) or os.path.commonpath([top, os.path.realpath(dest)]) != top:
        raise GatherError(f"task name {name!r} would write outside {results}")
    return dest


class Task:
    def __init__(self, job, task, kind, name):
        self.job, self.task, self.kind, self.name = job, task, kind, name
        self.ok, self.detail, self.seconds = False, "", None

    @property
    def label(self):
        return f"{self.kind} {self.name} (job {self.job} task {self.task})"


def read_tasks(stage):
    path = os.path.join(stage, "tasks.tsv")
    if not os.path.lexists(path):
        return None
    try:  # a regular UTF-8 file of bounded size, checked before it is read (a FIFO would block forever)
        text = read_text(path, 16 << 20)
    except InputError as e:
        raise GatherError(str(e)) from None
    tasks = []
    for n, row in enumerate(csv.reader(io.StringIO(text, newline=""), delimiter="\t"), 1):
        if len(row) != 4 or row[2] not in ("gpu", "study"):
            raise GatherError(f"{path}:{n}: expected 'job<TAB>task<TAB>gpu|study<TAB>name', got {row!r}")
        if not (JOB.fullmatch(row[0]) and JOB.fullmatch(row[1]) and valid_name(row[3])):
            raise GatherError(f"{path}:{n}: bad job, task or name {row!r} (a name is a folder name: "
                              "letters, digits, '.', '_', '-', no '..')")
        tasks.append(Task(*row))
    return tasks


def last_log_line(stage, t):
    for log in sorted(glob.glob(os.path.join(stage, "logs", f"*-{t.job}_{t.task}.out"))):
        with open(log, errors="replace") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        return (lines[-1] if lines else "(empty log)") + f" [log: {os.path.relpath(log, stage)}]"
    return "(no log)"


def read_status(stage, t):
    """Fills t.ok / t.detail / t.seconds from the task's status file."""
    path = os.path.join(stage, "status", f"{t.job}_{t.task}")
    if not os.path.exists(path):
        t.detail = f"no status recorded (never ran, cancelled, or killed): {last_log_line(stage, t)}"
        return
    with open(path) as f:
        st = dict(kv.split("=", 1) for kv in f.read().split() if "=" in kv)
    try:
        t.seconds = int(st["end"]) - int(st["start"])
        rc = int(st["rc"])
    except (KeyError, ValueError):
        t.detail = f"unreadable status file {path}"
        return
    where = f"on {st.get('host', '?')} after {t.seconds} s"
    t.ok = rc == 0
    t.detail = where if t.ok else f"exit {rc} {where}: {last_log_line(stage, t)}"


def holds_files(path):
    return os.path.isdir(path) and bool(os.listdir(path))


def copy_gpu(stage, name, results, force):
    """STAGE/<name>/*.json -> RESULTS/<name>/; returns None or the reason it was not gathered."""
    files = sorted(f for f in glob.glob(os.path.join(stage, name, "*.json")) if os.path.isfile(f))
    if not files:
        return f"{name} produced no JSON (see its log in {os.path.join(stage, 'logs')})"
    dest = confined(results, name)
    for f in files:  # validated before anything is copied: UTF-8 JSON objects, regular files
        try:
            doc = json.loads(read_text(f))
        except (InputError, ValueError, RecursionError) as e:
            return f"{name} not gathered: {f}: not a JSON result ({str(e).splitlines()[0][:200]})"
        if not isinstance(doc, dict):
            return f"{name} not gathered: {f}: not a JSON object"
    if holds_files(dest) and not force:
        return f"{dest} already holds results; FORCE=1 to replace"
    why = untrustworthy(files)
    if why:
        return f"{name} not gathered: {why}; ALLOW_DISTURBED=1 to gather it anyway"
    os.makedirs(dest, exist_ok=True)
    for f in files:
        tmp = os.path.join(dest, "." + os.path.basename(f) + ".tmp")
        shutil.copyfile(f, tmp)
        os.replace(tmp, os.path.join(dest, os.path.basename(f)))
    say(f"{name} -> {dest}/ ({len(files)} files)")
    return None


def untrustworthy(files):
    """None, or divbench.quality's lines on the divbench results among `files` that it judges untrustworthy."""
    if os.environ.get("ALLOW_DISTURBED", "0") == "1":
        return None
    ours = []
    for f in files:
        try:
            with open(f, encoding="utf-8", errors="replace") as fh:
                if '"divbench.result/1"' in fh.read(4096):
                    ours.append(f)
        except OSError:
            continue
    if not ours:
        return None
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts"))
    p = subprocess.run([sys.executable, "-m", "divbench.quality", *ours], capture_output=True, text=True, env=env)
    if p.returncode == 0:
        return None
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.startswith(("untrustworthy", "quality: error"))]
    return "; ".join(lines) or f"divbench.quality exited {p.returncode}"


def merge_study(stage, tasks, results, force):
    """The study's shards -> RESULTS/static/; returns None or the reason it was not gathered."""
    failed = [t.name for t in tasks if not t.ok]
    if failed:
        return f"static study not gathered: {len(failed)} of {len(tasks)} architectures failed ({', '.join(failed)})"
    dest = os.path.join(results, "static")
    if holds_files(dest) and not force:
        return f"{dest} already holds results; FORCE=1 to replace"
    from divbench.study import shards as study_shards  # the package: gather.sh puts scripts/ on PYTHONPATH
    try:
        written = study_shards.merge({t.name: os.path.join(stage, "study", t.name) for t in tasks}, dest,
                                     jobs=sorted({t.job for t in tasks}))
    except study_shards.MergeError as e:
        return f"static study not gathered: {e}"
    say(f"static study ({len(tasks)} architectures) -> {dest}/ ({len(written)} files)")
    return None


def redraw(results):
    """Figures and the comparison table over every GPU in RESULTS (as after a local run)."""
    allow = ["--allow-disturbed"] if os.environ.get("ALLOW_DISTURBED", "0") == "1" else []
    figs = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "figures.py"), "--results", results, *allow])
    md = os.path.join(results, "figures", "compare.md")
    cmp_ = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "compare.py"), results, "--reference",
                           os.path.join(results, "reference", "paper-2607.23402.json"), "--markdown", "--out", md,
                           *allow])
    if cmp_.returncode == 0 and os.path.exists(md):
        with open(md) as f:
            print(f.read(), end="")
    return figs.returncode == 0 and cmp_.returncode == 0


@tool_main("gather")
def main(argv):
    try:
        return gather(argv)
    except GatherError as e:
        say(f"error: {e}")
        return 2


def gather(argv):
    if len(argv) > 1 or (argv and argv[0].startswith("-")):
        raise GatherError("usage: gather.py [STAGE]   (env: DIVBENCH_RESULTS, FORCE=1)")
    stage = argv[0] if argv else os.path.join(ROOT, "results-slurm")
    results = os.environ.get("DIVBENCH_RESULTS", os.path.join(ROOT, "results"))
    force = os.environ.get("FORCE", "0") == "1"
    if not os.path.isdir(stage):
        raise GatherError(f"no stage folder {stage}")
    if os.path.exists(results) and not os.path.isdir(results):
        raise GatherError(f"DIVBENCH_RESULTS {results}: not a folder")
    tasks = read_tasks(stage)

    problems, gpus = [], 0
    if tasks is None:   # a stage filled by hand: every folder is a GPU's results
        names = sorted(d for d in os.listdir(stage) if os.path.isdir(os.path.join(stage, d)) and d not in STAGE_FOLDERS)
        for bad in [n for n in names if not valid_name(n)]:
            say(f"skipped {bad!r}: not a result folder name (letters, digits, '.', '_', '-')")
        for name in [n for n in names if valid_name(n)]:
            why = copy_gpu(stage, name, results, force)
            if why:
                say(why)
            else:
                gpus += 1
        if gpus == 0:
            say("nothing gathered")
            return 1
        return 0 if redraw(results) else 1

    for t in tasks:
        read_status(stage, t)
        say(f"{t.label}: {'ok' if t.ok else 'FAILED'} {t.detail}")
    failed = [t for t in tasks if not t.ok]
    for t in tasks:
        if t.kind == "gpu" and t.ok:
            why = copy_gpu(stage, t.name, results, force)
            if why:
                problems.append(why)
            else:
                gpus += 1
    study = [t for t in tasks if t.kind == "study"]
    if study:
        why = merge_study(stage, study, results, force)
        if why:
            problems.append(why)
    drawn = redraw(results) if gpus else True
    for p in problems:
        say(p)
    if failed:
        say(f"{len(failed)} of {len(tasks)} tasks failed: {', '.join(t.name for t in failed)} "
            f"(logs in {os.path.join(stage, 'logs')})")
    if failed or problems or not drawn:
        return 1
    say(f"all {len(tasks)} tasks succeeded; everything gathered into {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
