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
Nothing is followed or written outside the stage and DIVBENCH_RESULTS: a symlink among the files to be
copied (or their folders in the stage), or at a file's destination, is bad input, refused before anything
is written; every file is written through a temporary file of its own (a unique name created O_EXCL |
O_NOFOLLOW) renamed over the destination; status files and logs are read only as regular files (never a
FIFO or a device, never through a symlink), and only a bounded amount of each.

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
import secrets
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from divbench.cli import tool_main  # gather.sh puts scripts/ on PYTHONPATH (the package's rule: no sys.path edits)
from divbench.jsonio import MAX_INPUT_BYTES, InputError, read_text

STAGE_FOLDERS = {"logs", "status", "study"}   # submit.sh's own folders, never a GPU's results
# A task name is one folder name under RESULTS and STAGE: no '/', no '..', nothing a shell or a path
# would read as something else. Job and task ids are Slurm's numbers.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
JOB = re.compile(r"[0-9A-Za-z_]{1,64}")
STATUS_BYTES = 64 << 10   # a status file is one line (task_status.sh)
LOG_TAIL_BYTES = 64 << 10  # how much of the end of a log is read for its last line
STAGE_LINK = "a symlink in the stage, refused (the gather never follows one out of the stage)"
DEST_LINK = "a symlink in DIVBENCH_RESULTS, refused (it would be replaced or written through); remove it"


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


def refuse_links(paths, why):
    for p in paths:
        if os.path.islink(p):
            raise GatherError(f"{p}: {why}")


def open_staged(path):
    """A file descriptor for reading `path`, which must be a regular file: opened O_NOFOLLOW (a symlink is
    never followed) and O_NONBLOCK (a FIFO is refused, never waited on), then checked by fstat."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        why = STAGE_LINK if os.path.islink(path) else f"cannot read ({e.strerror})"
        raise GatherError(f"{path}: {why}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise GatherError(f"{path}: not a regular file (a FIFO, device, socket or folder)")
    return fd


def read_staged(path, cap):
    """The bytes of the regular file `path` (open_staged), refused when it holds more than `cap`."""
    with os.fdopen(open_staged(path), "rb") as f:
        data = f.read(cap + 1)
    if len(data) > cap:
        raise GatherError(f"{path}: more than the {cap} bytes this file may have")
    return data


def write_new(dest, name, data):
    """DEST/name <- data, through a temporary file of its own in DEST (a unique name created O_EXCL |
    O_NOFOLLOW: nothing planted there, a symlink or a file, is followed or reused) renamed over DEST/name.
    On any failure the temporary file is removed and DEST/name left as it was."""
    final = os.path.join(dest, name)
    tmp = os.path.join(dest, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    done = False
    try:
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        refuse_links([final], DEST_LINK)  # checked before anything was written too; this catches one planted since
        os.replace(tmp, final)
        done = True
    except OSError as e:
        raise GatherError(f"cannot write {final} ({e.strerror or e})") from None
    finally:
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass


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
        try:  # its end only: a log may be large, or (planted) a FIFO, a device or a symlink
            with os.fdopen(open_staged(log), "rb") as f:
                f.seek(max(0, os.fstat(f.fileno()).st_size - LOG_TAIL_BYTES))
                text = f.read(LOG_TAIL_BYTES).decode("utf-8", errors="replace")
        except GatherError as e:
            return f"(log not read: {e})"
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return (lines[-1] if lines else "(empty log)") + f" [log: {os.path.relpath(log, stage)}]"
    return "(no log)"


def read_status(stage, t):
    """Fills t.ok / t.detail / t.seconds from the task's status file."""
    path = os.path.join(stage, "status", f"{t.job}_{t.task}")
    if not os.path.lexists(path):
        t.detail = f"no status recorded (never ran, cancelled, or killed): {last_log_line(stage, t)}"
        return
    # a regular file of one line: a FIFO, a device or a symlink (to /dev/zero, say) is bad input
    text = read_staged(path, STATUS_BYTES).decode("utf-8", errors="replace")
    st = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
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


def staged_json(stage, name, results):
    """STAGE/<name>/*.json, the files copy_gpu copies, checked before anything is written: neither they nor
    their folder a symlink, and none of their destinations RESULTS/<name>/<file> a symlink (GatherError)."""
    folder = os.path.join(stage, name)
    refuse_links([folder], STAGE_LINK)
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    refuse_links(files, STAGE_LINK)
    files = [f for f in files if stat.S_ISREG(os.lstat(f).st_mode)]
    if files:
        dest = confined(results, name)
        refuse_links([os.path.join(dest, os.path.basename(f)) for f in files], DEST_LINK)
    return files


def copy_gpu(stage, name, files, results, force):
    """`files` (staged_json) -> RESULTS/<name>/; returns None or the reason it was not gathered."""
    if not files:
        return f"{name} produced no JSON (see its log in {os.path.join(stage, 'logs')})"
    dest = confined(results, name)
    data = {}
    for f in files:  # validated before anything is copied: UTF-8 JSON objects; the bytes checked are the ones written
        data[os.path.basename(f)] = read_staged(f, MAX_INPUT_BYTES)
        try:
            doc = json.loads(data[os.path.basename(f)].decode("utf-8"))
        except (ValueError, RecursionError) as e:
            return f"{name} not gathered: {f}: not a JSON result ({str(e).splitlines()[0][:200]})"
        if not isinstance(doc, dict):
            return f"{name} not gathered: {f}: not a JSON object"
    if holds_files(dest) and not force:
        return f"{dest} already holds results; FORCE=1 to replace"
    why = untrustworthy(files)
    if why:
        return f"{name} not gathered: {why}; ALLOW_DISTURBED=1 to gather it anyway"
    os.makedirs(dest, exist_ok=True)
    for base, blob in data.items():
        write_new(dest, base, blob)
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


def staged_study(stage, tasks, results):
    """The study's shards STAGE/study/<arch>/<arch>.json and the files merge_study writes into RESULTS/static/,
    checked before anything is written: no symlink among them or their folders in the stage (GatherError)."""
    study = os.path.join(stage, "study")
    shards = [os.path.join(study, t.name) for t in tasks]
    refuse_links([study, *shards, *(os.path.join(d, f"{t.name}.json") for d, t in zip(shards, tasks))], STAGE_LINK)
    dest = confined(results, "static")
    refuse_links([os.path.join(dest, f) for f in [f"{t.name}.json" for t in tasks] + ["figure4.json", "table2.json"]],
                 DEST_LINK)


def merge_study(stage, tasks, results, force):
    """The study's shards -> RESULTS/static/; returns None or the reason it was not gathered."""
    failed = [t.name for t in tasks if not t.ok]
    if failed:
        return f"static study not gathered: {len(failed)} of {len(tasks)} architectures failed ({', '.join(failed)})"
    dest = confined(results, "static")
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
        names = [n for n in names if valid_name(n)]
        files = {n: staged_json(stage, n, results) for n in names}  # every symlink refused before anything is written
        for name in names:
            why = copy_gpu(stage, name, files[name], results, force)
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
    copied = [t.name for t in tasks if t.kind == "gpu" and t.ok]
    study = [t for t in tasks if t.kind == "study"]
    files = {n: staged_json(stage, n, results) for n in copied}  # every symlink refused before anything is written
    if study:
        staged_study(stage, study, results)
    for name in copied:
        why = copy_gpu(stage, name, files[name], results, force)
        if why:
            problems.append(why)
        else:
            gpus += 1
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
