#!/usr/bin/env python3
"""The bad-input suite: every row of cases.tsv runs one command on bad input and must end with

  * the expected exit code (2 for bad input, 3 for "needs a GPU"),
  * exactly one line on stderr, "<program>: error: ...", matching the row's pattern (no progress
    lines, no help text, no traceback before it),
  * nothing left behind: no file in the case's scratch folder (its working directory, where every
    output of a row points), nothing in its TMPDIR, and the shared inputs unchanged;
  * inputs untouched: every path the row's command names (a word, or the value of --opt=PATH) that
    exists before it runs has the same type, size and SHA-256 (a symlink: the same target) after it.

usage: run.py --divbench PATH --craft PATH --cubin PATH [--group G]... [--only ID]... [--jobs N] [--list]

cases.tsv: one case per line, tab-separated: id, exit, pattern, command, flags ('#' starts a comment;
docs/bad-input.md explains the columns and how to add a row). The group of a case is its id up to the
first '.', and CTest runs one test per group (badinput_<group>).
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import copy
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ERROR_LINE = re.compile(r"^[\w./-]+: error: ")
XFAIL_PREFIX = "xfail-"  # xfail-<owner>: expected to fail until <owner>'s fix lands (strict: a pass fails)
KNOWN_FLAGS = {"nogpu", "nvdisasm", "no_system_nvdisasm"}
TIMEOUT_S = 30  # a refusal comes before any real work: seconds, not minutes


@dataclass
class Case:
    id: str
    exit: int
    pattern: str
    command: str
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def group(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def xfail(self) -> str | None:
        return next((f for f in sorted(self.flags) if f.startswith(XFAIL_PREFIX)), None)


def read_cases(path: Path) -> list[Case]:
    cases, seen = [], set()
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        cols = raw.split("\t")
        if len(cols) not in (4, 5):
            sys.exit(f"{path}:{n}: expected 4 or 5 tab-separated columns (id, exit, pattern, command[, flags]), got {len(cols)}")
        cid, code, pattern, command = (c.strip() for c in cols[:4])
        flags = {f.strip() for f in cols[4].split(",") if f.strip()} if len(cols) == 5 else set()
        if cid in seen:
            sys.exit(f"{path}:{n}: duplicate id {cid}")
        bad = [f for f in flags if f not in KNOWN_FLAGS and not f.startswith(XFAIL_PREFIX)]
        if bad or not re.fullmatch(r"[a-z0-9_]+\.[\w.-]+", cid) or not code.isdigit():
            sys.exit(f"{path}:{n}: bad row (id 'group.name', exit a number, flags {sorted(KNOWN_FLAGS)} or xfail-OWNER)")
        try:
            re.compile(pattern)
        except re.error as e:
            sys.exit(f"{path}:{n}: pattern {pattern!r}: {e}")
        seen.add(cid)
        cases.append(Case(cid, int(code), pattern, command, flags, n))
    return cases


# ---- shared inputs, made once per run --------------------------------------------------------------

def result_doc() -> dict:
    """A valid divbench.result/1 k-way result: the committed H200 sweep."""
    with open(ROOT / "results" / "h200" / "kway.json", encoding="utf-8") as f:
        return json.load(f)


def bad_results() -> dict[str, object]:
    """results/<gpu>/kway.json variants for compare.py and figures.py: name -> document (or raw text)."""
    ok = result_doc()
    out: dict[str, object] = {"ok": ok}

    def variant(name, edit):
        d = copy.deepcopy(ok)
        edit(d)
        out[name] = d

    variant("median0", lambda d: d["points"][0].update(median_cycles=0))
    variant("median_negative", lambda d: d["points"][0].update(median_cycles=-5))
    variant("median_nan", lambda d: d["points"][0].update(median_cycles=math.nan))
    variant("median_inf", lambda d: d["points"][1].update(median_cycles=math.inf))
    variant("median_string", lambda d: d["points"][0].update(median_cycles="fast"))
    # k broken where the readers take it (the point's axes) and in the point's own key
    variant("k_string", lambda d: (d["points"][0].update(k="one"), d["points"][0]["axes"].update(k="one")))
    variant("k_nan", lambda d: d["points"][2].update(k=math.nan))
    variant("point_not_object", lambda d: d["points"].__setitem__(0, 17))
    variant("point_missing_k", lambda d: (d["points"][0].pop("k"), d["points"][0]["axes"].pop("k")))
    variant("points_not_list", lambda d: d.update(points={"k": 1}))
    variant("points_empty", lambda d: d.update(points=[]))
    variant("config_list", lambda d: d.update(config=[1, 2]))
    variant("config_string", lambda d: d.update(config="fma_chain"))
    variant("iters_string", lambda d: d["config"].update(iters="many"))
    variant("device_name_number", lambda d: d["device"].update(name=7))
    variant("device_cc_number", lambda d: d["device"].update(cc=9.0))
    variant("device_not_object", lambda d: d.update(device="H200"))
    variant("device_missing_cc", lambda d: d["device"].pop("cc"))
    variant("experiment_missing", lambda d: d.pop("experiment"))
    variant("experiment_number", lambda d: d.update(experiment=5))
    variant("fit_missing", lambda d: d.pop("fit"))
    variant("fit_not_object", lambda d: d.update(fit=[1, 2]))
    variant("fit_s_string", lambda d: d["fit"].update(s="280178"))
    variant("fit_s_nan", lambda d: d["fit"].update(s=math.nan))
    variant("fit_r2_inf", lambda d: d["fit"].update(r2=math.inf))
    variant("summary_list", lambda d: d.update(summary=[1]))
    variant("median_huge_int", lambda d: d["points"][0].update(median_cycles=10 ** 400))
    variant("device_cc_word", lambda d: d["device"].update(cc="nine"))
    variant("fit_s_list", lambda d: d["fit"].update(s=[1, 2]))
    out["top_level_array"] = "[1, 2, 3]\n"
    out["not_json"] = "{ this is not json\n"
    out["empty_file"] = ""
    out["truncated"] = json.dumps(ok)[:500]
    out["binary"] = "\x00\x01\x02ELF"
    return out


def make_inputs(data: Path, craft_tool: str, cubin: str) -> None:
    data.mkdir(parents=True, exist_ok=True)
    craft = data / "craft"
    craft.mkdir()
    subprocess.run([craft_tool, str(craft)], check=True)
    shutil.copyfile(cubin, data / "in.cubin")
    raw = (data / "in.cubin").read_bytes()
    (data / "truncated.cubin").write_bytes(raw[:300])
    flipped = bytearray(raw)  # one bit of the kernel's code-section name: its symbol no longer names the code
    at = raw.find(b".text.flip_test\x00")
    flipped[at + 7] ^= 0x01
    (data / "symbol_flipped.cubin").write_bytes(bytes(flipped))
    (data / "empty.cubin").write_bytes(b"")
    (data / "text.txt").write_text("not a cubin, just text\n" * 8)
    (data / "huge_line.txt").write_text("/*0000*/ " + "A" * 200_000 + "\n")
    os.mkfifo(data / "fifo")
    (data / "a_directory").mkdir()
    # The output rule (docs/bad-input.md): links to an input, special files, an input spelled another way.
    os.symlink("in.cubin", data / "link.cubin")
    os.link(data / "in.cubin", data / "hard.cubin")
    os.symlink("/dev/null", data / "devnull_link")
    os.symlink("fifo", data / "fifo_link")
    os.symlink("loop_link", data / "loop_link")
    os.symlink("/proc/self/fd/1", data / "stdout_link")
    shutil.copyfile(cubin, data / "-json")  # a valid cubin whose name looks like an option
    with open(data / "sparse.bin", "wb") as f:  # 64 GiB of nothing, no blocks on disk: never read whole
        f.truncate(64 << 30)
    # Helper programs that misbehave: one that never ends (with a child in its group), one that prints
    # its last argument (shows how a file name reached it).
    for name, body in (("hang_tool", "sleep 1000 &\nexec sleep 1000\n"),
                       ("argtool", "for a; do last=$a; done\necho \"got: $last\" >&2\nexit 1\n")):
        (data / name).write_text("#!/bin/sh\n" + body)
        os.chmod(data / name, 0o755)
    # JSON inputs of kernels fit/predict with a value of the wrong type or range.
    h200 = ROOT / "results" / "h200"
    facts = json.loads((h200 / "kernel_facts.json").read_text(encoding="utf-8"))
    consts = json.loads((h200 / "loop_cost.json").read_text(encoding="utf-8"))
    jdocs = {"facts_array": "[1, 2, 3]\n",
             "facts_huge": '{"schema": "divbench.kernels/1", "cubins": 1e400}\n',
             "facts_cubins_string": {**facts, "cubins": "many"},
             "constants_array": "[]\n",
             "cost_no_bodies": {"schema": "divbench.result/1", "experiment": "cost", "device": {"name": "H200", "cc": "9.0"},
                                "summary": {"bodies": []}, "points": []},
             "constants_negative": {**consts, "taken_branch_cycles": -1e300},
             "deep": "[" * 100_000 + "]" * 100_000}
    # A wrong type or a missing key deep inside: the refusal names its key path (JSON_DIAGNOSTICS).
    cost = json.loads((h200 / "cost.json").read_text(encoding="utf-8"))
    kway = result_doc()
    loops = json.loads((h200 / "loops.json").read_text(encoding="utf-8"))

    def edited(doc, edit):
        d = copy.deepcopy(doc)
        edit(d)
        return d

    jdocs.update({
        "cost_body_number": edited(cost, lambda d: d["summary"]["bodies"][0].update(body=7)),
        "cost_a_string": edited(cost, lambda d: d["summary"]["bodies"][1].update(a="fast")),
        "cost_cc_number": edited(cost, lambda d: d["device"].update(cc=9.0)),
        "kway_body_missing": edited(kway, lambda d: d["config"].pop("body")),
        "constants_sm_string": {**consts, "sm": "ninety"},
        "constants_band_string": {**consts, "placement_band_cycles": {"below": "wide", "above": 1.0}},
        "constants_excess_offset": {**consts, "placement_band_cycles": {"below": 0, "above": 2.0,
                                                                        "excess_from_offset": 500}},
        "facts_sm_string": edited(facts, lambda d: [c.update(sm="ninety") for c in d["cubins"]]),
        "loops_placement_string": edited(loops, lambda d: d["summary"]["loops"][2].update(placement="third")),
    })
    (data / "json").mkdir()
    for name, doc in jdocs.items():
        (data / "json" / f"{name}.json").write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    # Valid loop-cost constants (the dynamic runs' --loop-cost input) and a hard link to them.
    shutil.copyfile(h200 / "loop_cost.json", data / "loop_cost.json")
    os.link(data / "loop_cost.json", data / "loop_cost_hard.json")
    os.symlink("loop_cost.json", data / "loop_cost_link.json")
    (data / "loop_cost_dir").mkdir()  # constants named like the cost sweep's result (--out DIR/ writes DIR/cost.json)
    shutil.copyfile(h200 / "loop_cost.json", data / "loop_cost_dir" / "cost.json")
    stage = data / "stage_escape"  # a Slurm stage whose task list names a folder outside DIVBENCH_RESULTS
    (stage / "status").mkdir(parents=True)
    (stage / "tasks.tsv").write_text("1\t0\tgpu\t../escape\n")
    (stage / "status" / "1_0").write_text("rc=0 start=1 end=2 host=h\n")
    (data / "escape").mkdir()
    (data / "escape" / "x.json").write_text("{}\n")
    stage = data / "stage_not_utf8"
    stage.mkdir()
    (stage / "tasks.tsv").write_bytes(b"1\t0\tgpu\t\xff\xfe\n")
    stage = data / "stage_fifo"
    stage.mkdir()
    os.mkfifo(stage / "tasks.tsv")
    corpus = data / "corpus_bad"  # a study corpus with a file that is not UTF-8
    corpus.mkdir()
    (corpus / "a.cu").write_bytes(b"// corpus: x -- \xff\xfe\n")
    corpus = data / "corpus_dir"  # a folder named like a corpus file
    (corpus / "a.cu").mkdir(parents=True)
    for name, doc in bad_results().items():
        d = data / "results" / name / "gpu"
        d.mkdir(parents=True)
        text = doc if isinstance(doc, str) else json.dumps(doc, indent=1)
        (d / "kway.json").write_text(text, encoding="utf-8")
    ref = json.loads((ROOT / "results" / "reference" / "paper-2607.23402.json").read_text(encoding="utf-8"))
    refs = {"ref_not_json": "{", "ref_wrong_schema": {**ref, "schema": "other/1"},
            "ref_missing_gpus": {k: v for k, v in ref.items() if k != "gpus"}, "ref_array": [ref],
            "ref_arch_word": {**ref, "gpus": {k: {**g, "arch": "nine"} for k, g in ref["gpus"].items()}}}
    for name, doc in refs.items():
        (data / f"{name}.json").write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    make_counts_inputs(data)
    static = data / "static_bad"
    static.mkdir()
    (static / "figure4.json").write_text("{\"schema\": \"wrong\"}\n")
    (static / "table2.json").write_text("[]\n")


def make_counts_inputs(data: Path) -> None:
    """Recorded counts (attribute --from-counts) and constants that are wrong as data: data/counts/<name>/ is
    tests/data/attribute/lanes/k0 (one counts file and its cubin) with one edit; data/json/<name>.json are the
    committed constants with one edit."""
    lanes = ROOT / "tests" / "data" / "attribute" / "lanes" / "k0"
    counts_name = next(p.name for p in lanes.glob("counts-*.json"))
    base = json.loads((lanes / counts_name).read_text(encoding="utf-8"))
    big = 2 ** 63

    def row(d, pc):
        return next(r for r in d["functions"][0]["pcs"] if r[0] == pc)

    def set_row(pc, values):
        return lambda d: row(d, pc).__setitem__(slice(1, 6), values)

    edits = {
        "count_negative": lambda d: d["functions"][0]["pcs"][0].__setitem__(1, -1),
        "count_fraction": lambda d: d["functions"][0]["pcs"][0].__setitem__(2, 1.5),
        "count_overflow": lambda d: d["functions"][0]["pcs"][0].__setitem__(1, 2 ** 64),
        "crc_negative": lambda d: d["functions"][0].update(crc=-1),
        "name_number": lambda d: d["functions"][0].update(name=7),
        "launches_negative": lambda d: d["launches"].update({d["functions"][0]["name"]: -1}),
        "dropped_negative": lambda d: d.update(dropped_records=-1),
        "thread_over_warp": set_row(0, [528, 32 * 528 + 1, 0, 0, 0]),
        "pred_on_over_thread": set_row(0, [528, 16896, 16897, 0, 0]),
        "executed_no_thread": set_row(160, [528, 0, 0, 0, 0]),
        "two_way_exceeds": set_row(160, [528, 16896, 8448, 528, 1]),
        "two_way_wraps": set_row(160, [big, big, big, big, big]),  # divergent + uniform = 2^64 wraps to 0
        "sum_overflows": lambda d: (set_row(0, [big, big, big, 0, 0])(d), set_row(16, [big, big, big, 0, 0])(d)),
        "duplicate_function": lambda d: d["functions"].append(copy.deepcopy(d["functions"][0])),
        "duplicate_pc": lambda d: d["functions"][0]["pcs"].append(list(d["functions"][0]["pcs"][0])),
        "pc_outside": lambda d: d["functions"][0]["pcs"].append([1 << 20, 1, 32, 32, 0, 0]),
        "pc_between": lambda d: d["functions"][0]["pcs"].append([8, 1, 32, 32, 0, 0]),
    }
    for name, edit in edits.items():
        folder = data / "counts" / name
        shutil.copytree(lanes, folder)
        d = copy.deepcopy(base)
        edit(d)
        (folder / counts_name).write_text(json.dumps(d), encoding="utf-8")
    # A whole recording with its PC samples (the output rule: nothing in it may be an output), and a
    # symlink to its counts file.
    shutil.copytree(ROOT / "tests" / "data" / "attribute" / "shapes" / "random", data / "counts" / "recording")
    # The recording's files under fixed names (the recorded ones carry the pid of the run that made them).
    rec = data / "counts" / "recording"
    for folder, stem in ((rec / "k0", "counts"), (rec / "pcsamples", "pcsamples")):
        found = sorted(folder.glob(stem + "-*.json"))
        assert len(found) == 1, f"{folder}: expected one {stem}-*.json, found {len(found)}"
        found[0].rename(folder / (stem + "-1.json"))
    os.symlink("recording/k0/counts-1.json", data / "counts" / "recording_counts_link.json")
    consts = json.loads((ROOT / "results" / "h200" / "loop_cost.json").read_text(encoding="utf-8"))

    def band(**kw):
        return {**consts, "placement_band_cycles": {**consts["placement_band_cycles"], **kw}}

    cdocs = {
        "constants_sm_negative": {**consts, "sm": -2147483648},
        "constants_sm_float": {**consts, "sm": 1e300},
        "constants_band_inverted": band(below=-1e308),
        "constants_band_huge": band(above=1e308),
        "constants_offset_negative": band(excess_from_offset=-16),
        "constants_offset_fraction": band(excess_from_offset=96.5),
        "constants_taken_null": {**consts, "taken_branch_cycles": None},
        "constants_divergent_path_negative": {**consts, "divergent_path_cycles": -17.0},
        # call-path calibration results (attribute --call-path): a negative cost, and neither cost given
        "call_path_negative": {"schema": "divbench.call_path/1", "summary": {"divergent_call_path_cycles": -100.0}},
        "call_path_empty": {"schema": "divbench.call_path/1",
                            "summary": {"divergent_call_path_cycles": None, "call_round_trip_cycles": None}},
    }
    for name, doc in cdocs.items():
        (data / "json" / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")


HASH_LIMIT = 64 << 20  # a larger (sparse) input is compared by size and mtime, not read


def one_fingerprint(p: Path) -> tuple:
    st = p.lstat()
    if stat.S_ISREG(st.st_mode) and st.st_size <= HASH_LIMIT:
        return (st.st_size, hashlib.sha256(p.read_bytes()).hexdigest())
    if stat.S_ISREG(st.st_mode):
        return (st.st_size, st.st_mtime_ns)
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", os.readlink(p))
    return (stat.S_IFMT(st.st_mode), st.st_rdev)


def fingerprint(root: Path) -> dict[str, tuple]:
    return {str(p): one_fingerprint(p) for p in sorted(root.rglob("*"))}


def named_paths(argv: list[str], work: Path) -> dict[str, tuple]:
    """The fingerprints of every existing path the command names (outside the case's own scratch
    folder), before or after the run: the inputs of the row, which it must leave untouched."""
    out = {}
    for w in argv[1:]:
        for cand in {w, w.split("=", 1)[-1]}:
            if "/" not in cand or cand.startswith(str(work)):
                continue
            p = Path(cand)
            try:
                out[cand] = one_fingerprint(p)
                if p.is_dir() and not p.is_symlink() and not str(p).startswith(str(ROOT)):
                    for q in sorted(p.iterdir()):
                        out[str(q)] = one_fingerprint(q)
            except OSError:
                continue
    return out


# ---- running one case ------------------------------------------------------------------------------

def expand(case: Case, ctx: dict[str, str]) -> list[str]:
    words = shlex.split(case.command)
    out = []
    for w in words:
        for k, v in ctx.items():
            w = w.replace("{" + k + "}", v)
        if re.search(r"\{[a-z0-9_]+\}", w):
            raise ValueError(f"unknown placeholder in {w!r}")
        out.append(w)
    return out


def leftovers(work: Path) -> list[str]:
    left = []
    for p in sorted(work.rglob("*")):
        rel = p.relative_to(work)
        if str(rel) in ("tmp",):
            continue
        left.append(str(rel))
    return left


def run_case(case: Case, base_ctx: dict[str, str], scratch: Path) -> tuple[str, str]:
    """(verdict, detail): verdict in ok, FAIL."""
    work = scratch / case.id
    (work / "tmp").mkdir(parents=True)
    ctx = dict(base_ctx, work=str(work))
    try:
        argv = expand(case, ctx)
    except ValueError as e:
        return "FAIL", str(e)
    env = dict(os.environ, TMPDIR=str(work / "tmp"), PYTHONDONTWRITEBYTECODE="1", COLUMNS="100")
    inputs_before = named_paths(argv, work)
    try:  # its own session: a case that hangs is killed with everything it started (compilers, tools)
        proc = subprocess.Popen(argv, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        return "FAIL", f"cannot run {argv[0]}: {e}"
    try:
        _, err_bytes = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "FAIL", f"no exit within {TIMEOUT_S} s (a hang)"
    p = subprocess.CompletedProcess(argv, proc.returncode, b"", err_bytes)
    err = p.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if p.returncode != case.exit:
        problems.append(f"exit {p.returncode}, expected {case.exit}")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, expected 1 error line")
    elif not ERROR_LINE.match(lines[0]):
        problems.append("stderr is not one '<program>: error: ...' line")
    elif not re.search(case.pattern, lines[0]):
        problems.append(f"error line does not match /{case.pattern}/")
    inputs_after = named_paths(argv, work)
    touched = sorted(k for k in set(inputs_before) | set(inputs_after) if inputs_before.get(k) != inputs_after.get(k))
    if touched:
        problems.append("inputs changed: " + ", ".join(touched[:5]))
    left = leftovers(work) + [f"tmp/{x}" for x in leftovers(work / "tmp")]
    if left:
        problems.append("left behind: " + ", ".join(left[:5]))
    if problems:
        shown = "\n      ".join(lines[:6]) if lines else "(empty)"
        return "FAIL", "; ".join(problems) + f"\n      stderr: {shown}"
    return "ok", lines[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--divbench", required=True)
    ap.add_argument("--craft", required=True, help="the divbench_craft tool (crafted cubins)")
    ap.add_argument("--cubin", required=True, help="a real sm_90 cubin (flip_test)")
    ap.add_argument("--cases", default=str(HERE / "cases.tsv"))
    ap.add_argument("--group", action="append", default=[], help="run only these groups")
    ap.add_argument("--only", action="append", default=[], help="run only these case ids")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--list", action="store_true", help="print the groups and counts and exit")
    a = ap.parse_args()
    a.divbench, a.craft, a.cubin = (os.path.abspath(x) for x in (a.divbench, a.craft, a.cubin))
    cases = read_cases(Path(a.cases))
    if a.list:
        groups: dict[str, int] = {}
        for c in cases:
            groups[c.group] = groups.get(c.group, 0) + 1
        for g, n in sorted(groups.items()):
            print(f"{g}\t{n}")
        print(f"total\t{len(cases)}")
        return 0
    if a.group:
        cases = [c for c in cases if c.group in a.group]
    if a.only:
        cases = [c for c in cases if c.id in a.only]
    if not cases:
        print("no case selected", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="divbench-badinput-") as top:
        data, scratch = Path(top) / "data", Path(top) / "cases"
        make_inputs(data, a.craft, a.cubin)
        scratch.mkdir()
        ctx = {"nl": "\n", "divbench": a.divbench, "python": sys.executable, "root": str(ROOT), "data": str(data),
               "craft": str(data / "craft"), "cubin": str(data / "in.cubin")}
        has_gpu = any(os.path.exists(p) for p in ("/dev/nvidia0", "/dev/nvidiactl"))
        probe = subprocess.run([a.divbench, "flip", "discover", "--quiet", str(data / "in.cubin")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        has_nvdisasm = probe.returncode == 0
        require_nvdisasm = os.environ.get("DIVBENCH_REQUIRE_NVDISASM") == "1"
        if not has_nvdisasm and require_nvdisasm:
            print(f"badinput: DIVBENCH_REQUIRE_NVDISASM=1 but nvdisasm is unusable: {probe.stderr.strip()}", file=sys.stderr)
            return 1
        before = fingerprint(data)

        def one(c: Case):
            if "nogpu" in c.flags and has_gpu:
                return c, "skip", "a GPU is present (the row expects none)"
            if "nvdisasm" in c.flags and not has_nvdisasm:
                return c, "skip", "nvdisasm not found"
            if "no_system_nvdisasm" in c.flags and os.path.exists("/usr/local/cuda/bin/nvdisasm"):
                return c, "skip", "/usr/local/cuda/bin/nvdisasm exists (the row needs a machine without it)"
            verdict, detail = run_case(c, ctx, scratch)
            return c, verdict, detail

        counts = {"passed": 0, "failed": 0, "skipped": 0, "xfail": 0}
        xfails = []
        with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            for c, verdict, detail in pool.map(one, cases):
                if verdict == "skip":
                    counts["skipped"] += 1
                    print(f"skip  {c.id}: {detail}")
                elif c.xfail and verdict == "FAIL":
                    counts["xfail"] += 1
                    xfails.append(c.id)
                    print(f"xfail {c.id} ({c.xfail}): {detail.splitlines()[0]}")
                elif c.xfail:
                    counts["failed"] += 1
                    print(f"XPASS {c.id}: passes now; remove '{c.xfail}' from its row (cases.tsv:{c.line})")
                elif verdict == "ok":
                    counts["passed"] += 1
                    print(f"ok    {c.id}: {detail}")
                else:
                    counts["failed"] += 1
                    print(f"FAIL  {c.id} (cases.tsv:{c.line}): {detail}")
        after = fingerprint(data)
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        if changed:
            counts["failed"] += 1
            print("FAIL  shared inputs changed: " + ", ".join(changed[:8]))
    if xfails:
        print(f"expected failures ({len(xfails)}, fixes pending): {' '.join(xfails)}")
    print(f"badinput: {counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped'] + counts['xfail']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
