"""`divbench attribute` against ground truth, from the folder scripts/gpu/50-attribute.sh fills:

  python3 -m divbench.attribute_validation results/<gpu>/attribute [--out validation.json]

kway      estimated cycles lost per warp of divbench's own k-way kernel against the measured T(k) - T(1)
          (kway_n<N>.json, the same kernel at the same n, one placement): rel_err = est / measured - 1;
          at k = 1 the per-path branch must not diverge (the control that could show divergence where
          there is none)
lanes     kernels whose branches split lanes as the host says (lanes.target.json): executions, divergent
          executions, active lanes before the branch and inside its region, by kernel and source line
predication  the predicated K=2 kernel's work has no divergent branch; its branchy twin has
thrust    per-kernel totals over every launch against ncu (thrust_ncu.csv): thread instructions per
          instruction (smsp__thread_inst_executed_per_inst_executed.ratio, from the summed counts) and
          smsp__sass_branch_targets_threads_divergent.sum; relative differences. Instruction totals are
          compared too, beside ncu's own run-to-run change (thrust_ncu2.csv): kernels whose blocks wait on
          each other (decoupled look-back) execute a different number of instructions every run
shapes    ground truth by compaction, out of sample (tests/attribute/shapes.cu: shapes_time.json, and the
          attribute results shapes_random.json, shapes_sorted.json): per shape, truth = warp cycles random -
          warp cycles sorted (medians per launch) + estimate sorted; rel_err = estimate random / truth - 1;
          goal |rel_err| <= 10% on every shape (the rule fixed before the run)
overhead  the attribute call's wall time over the plain program's median (timing.txt), for every kernel
          and for one kernel (--kernel); the same for the generated program of many kernels (many_*)
Goals (issue): |rel_err| <= 10%, ncu within 1%, overhead <= 3x. Prints one line per check; --out writes
the document ("divbench.attribute_validation/1", summary first). Exit 0 when every correctness check
holds (cycles, lanes, predication, ncu); the overhead goal is reported, not enforced."""
from __future__ import annotations

import csv
import re
import statistics
import sys
from pathlib import Path

from divbench.cli import folder_report, tool_main
from divbench.jsonio import InputError, load_json, read_text, write_atomic

SCHEMA = "divbench.attribute_validation/1"
GOALS = {"cycles_lost_rel_err": 0.10, "ncu_rel_diff": 0.01, "overhead_ratio": 3.0}
# In sample or out of sample, for the rules in use (issue 47 item 5). A shape is out of sample only if its
# first run came after the last change of every rule of the warp-cycles model that prices it; a shape that
# existed when a rule changed is in sample, whether or not the change was made for it.
#
# RULES: the rules in use and the commit that last changed each, with its commit time (the git log of
# src/attribute/attribution.cpp, run.cpp, model/issue_cost.cpp and model/memory_cost.cpp; a CPU test,
# tests/attribute/sample_ledger_test.py, checks each commit and time against git where the checkout has
# history, and re-analyses the committed recording of the shapes with the current binary: the estimates
# must be the committed ones, so no later commit changed a rule for them unseen).
RULES = (
    ("783a64b", "2026-12-02T19:54:48Z", "a divergent loop is priced against the lanes that entered it"),
    ("d04f0c2", "2026-12-04T10:21:23Z", "the memory rule: a measured wait on a gather scales with its sectors"),
    ("a3ee7cb", "2026-12-04T10:37:16Z", "the memory rule's measured shape (a gather's ideal passes at f(sectors))"),
    ("9462a63", "2026-12-04T10:39:48Z", "a wait on a load of another block is a memory wait; its producer is the reaching load"),
    ("cfbe5ad", "2026-12-04T11:32:52Z", "the memory curves at the warps per SM nearest the kernel's"),
    ("8154c7e", "2026-12-04T15:39:48Z", "the indirect calls of a function are counted once"),
    ("fe7ab78", "2026-12-04T15:43:56Z", "an indirect call's extra path priced at the measured D_call"),
    ("eef4363", "2026-12-04T15:57:36Z", "a region holds the code of the functions its instructions call"),
    ("0674c21", "2026-12-04T16:10:45Z", "a call's round trip priced at what the calibration measures"),
)
# The sets of shapes and when their first run was made: the time of the first committed result holding
# them (the stage's own provenance where it says), or, where the docs record an earlier, uncommitted first
# run, the commit of that run's binary (its time bounds the run from below; every such run is before a
# rule that followed it).
#   0  the first twelve, written with the shapes program (d0d614f) and run before the memory rule
#   1  written at d38300d, first run at 388943a's stage           2  written at d04f0c2, first run at 4ccaa88
#   3  written at 303c0d6, first run by the empty-side probe (de53456)
#   4  written at fe7ab78, first run at its stage (indirect_in_loop -45.8%: eef4363 followed)
#   5  written at eef4363, first run at its stage (call_in_if -13.2%: 0674c21 followed)
#   6  written at 0674c21, first run at its stage (results/h200/attribute/shapes_random.json, created 16:16:09)
SHAPE_SETS = {
    "if_then": 0, "if_else_unequal": 0, "switch_8": 0, "for_trips": 0, "while_compound": 0, "loop_break": 0,
    "nested_outer": 0, "region_in_uniform_loop": 0, "pointer_chase": 0, "shared_atomics": 0,
    "shuffle_in_divergent": 0, "indirect_call": 0,
    "for_unroll1": 1, "indirect_two_sites": 1, "gather_loop": 1,
    "gather_l2": 2, "coalesced_if": 2, "chase_if": 2, "gather_compute": 2,
    "if_then_chain": 3, "if_else_chain": 3,
    "virtual_call": 4, "indirect_in_loop": 4, "indirect_call_8": 4,
    "call_in_if": 5, "direct_call_in_loop": 5, "indirect_in_if": 5,
    "nested_call_in_if": 6, "calls_in_if_else": 6, "call_in_break_loop": 6}
SET_FIRST_RUN = {0: "2026-12-03T07:43:58Z", 1: "2026-12-04T08:23:40Z", 2: "2026-12-04T10:50:39Z",
                 3: "2026-12-04T14:22:44Z", 4: "2026-12-04T15:43:56Z", 5: "2026-12-04T15:57:36Z",
                 6: "2026-12-04T16:16:09Z"}
# The commit each set was written in (tests/attribute/shapes.cu) and the commit of its first run (the
# binary's, or the results commit where the run's binary is not recorded).
SET_WRITTEN = {0: "d0d614f", 1: "d38300d", 2: "d04f0c2", 3: "303c0d6", 4: "fe7ab78", 5: "eef4363", 6: "0674c21"}
SET_FIRST_RUN_COMMIT = {0: "f16c285", 1: "388943a", 2: "4ccaa88", 3: "de53456", 4: "fe7ab78", 5: "eef4363", 6: "0674c21"}
# Sets written before any run of them (the earlier name for sets 1-6: "held out").
HELD_OUT_SETS = {name: k for name, k in SHAPE_SETS.items() if k > 0}
HELD_OUT_SHAPES = tuple(HELD_OUT_SETS)
LATEST_HELD_OUT_SET = max(HELD_OUT_SETS.values())


def sample_of(shape: str) -> tuple[str, list[str]]:
    """("out_of_sample" | "in_sample" | "unknown", the rule commits changed after the shape's first run)."""
    k = SHAPE_SETS.get(shape)
    if k is None:
        return "unknown", []
    after = [c for c, t, _ in RULES if t > SET_FIRST_RUN[k]]  # a rule of that time ran in it
    return ("in_sample" if after else "out_of_sample"), after


def _kernel(doc: dict, needle: str) -> dict:
    ks = [k for k in doc.get("kernels", []) if needle in k.get("name", "")]
    if not ks:
        raise InputError(f"no kernel matching {needle!r} in the attribute result")
    return ks[0]


def _medians(result: dict) -> dict[int, float]:
    """T(k): median cycles per k at the first placement of a --sweep k result."""
    out = {}
    for p in result.get("points", []):
        axes = p.get("axes", {})
        if axes.get("placement", 0) == 0:
            out[int(axes.get("k", p.get("k")))] = float(p["median_cycles"])
    return out


def kway_checks(folder: Path) -> list[dict]:
    rows = []
    for sweep in sorted(folder.glob("kway_n*.json")):
        n = int(re.match(r"kway_n(\d+)\.json", sweep.name).group(1))
        t = _medians(load_json(sweep))
        if 1 not in t:
            raise InputError(f"{sweep}: no k = 1 point")
        for att in sorted(folder.glob(f"kway_k*_n{n}.json"), key=lambda p: int(re.search(r"_k(\d+)_", p.name).group(1))):
            k = int(re.search(r"_k(\d+)_", att.name).group(1))
            doc = load_json(att)
            target = load_json(att.with_suffix(".target.json"))
            kern = _kernel(doc, "kway_kernel")
            warps = int(kern["warps"])
            est = float(kern["cycles_lost"]) / warps
            measured = t[k] - t[1] if k in t else None
            row = {"n": n, "k": k, "warps": warps, "warps_launched": target.get("warps"),
                   "divergent_executions": int(kern["branch_targets_threads_divergent"]),
                   "estimated_cycles_lost_per_warp": est, "measured_t_k_minus_t_1": measured,
                   "lower_bound": any(b.get("cycles_lost_is_lower_bound") for b in kern["branches"] if b["divergent_executions"])}
            if k == 1:
                row["ok"] = row["divergent_executions"] == 0 and est == 0
            else:
                row["rel_err"] = est / measured - 1 if measured else None
                row["ok"] = row["rel_err"] is not None and abs(row["rel_err"]) <= GOALS["cycles_lost_rel_err"]
            row["ok"] = row["ok"] and warps == target.get("warps")
            rows.append(row)
    return rows


def lanes_checks(folder: Path) -> list[dict]:
    doc = load_json(folder / "lanes.json")
    expect = load_json(folder / "lanes.target.json")["expect"]
    rows = []
    for e in expect:
        kern = _kernel(doc, e["kernel"])
        at_line = [b for b in kern["branches"] if b.get("source") and b["source"].endswith(f":{e['line']}")]
        row = {"kernel": e["kernel"], "line": e["line"], "expected": e, "found": len(at_line)}
        if at_line:
            b = at_line[0]
            row.update({"executions": b["executions"], "divergent": b["divergent_executions"],
                        "active_before": b["active_lanes"]["before"], "active_inside": b["active_lanes"]["inside"]})
            row["ok"] = (b["executions"] == e["executions"] and b["divergent_executions"] == e["divergent"]
                         and abs(b["active_lanes"]["before"] - e["active_before"]) < 1e-9
                         and abs(b["active_lanes"]["inside"] - e["active_taken_side"]) < 1e-9)
        else:
            row["ok"] = False
        rows.append(row)
    return rows


def predication_checks(folder: Path) -> dict:
    doc = load_json(folder / "predication.json")
    out = {}
    for variant, needle in (("predicated", "pred_select_kernel"), ("branchy", "pred_branchy_kernel")):
        ks = [k for k in doc["kernels"] if needle in k["name"]]
        out[variant] = {"kernels": len(ks), "divergent_executions": sum(int(k["branch_targets_threads_divergent"]) for k in ks),
                        "divergent_branches": [{"pc": b["pc"], "source": b["source"], "divergent": b["divergent_executions"]}
                                               for k in ks for b in k["branches"] if b["divergent_executions"]]}
    out["ok"] = (out["predicated"]["kernels"] > 0 and out["predicated"]["divergent_executions"] == 0
                 and out["branchy"]["divergent_executions"] > 0)
    return out


def _ncu_totals(path: Path) -> dict[str, dict[str, float]]:
    totals: dict[str, dict[str, float]] = {}
    text = read_text(path)
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    for row in csv.DictReader(lines):
        name, metric, value = row.get("Kernel Name"), row.get("Metric Name"), row.get("Metric Value")
        if not name or not metric or value in (None, ""):
            continue
        t = totals.setdefault(name, {"launches": 0})
        v = float(value.replace(",", ""))
        if metric.endswith(".sum"):
            t[metric] = t.get(metric, 0.0) + v
        if metric == "smsp__inst_executed.sum":
            t["launches"] += 1
    return totals


def ncu_checks(folder: Path) -> list[dict]:
    doc = load_json(folder / "thrust.json")
    ncu = _ncu_totals(folder / "thrust_ncu.csv")
    second = folder / "thrust_ncu2.csv"
    ncu2 = _ncu_totals(second) if second.is_file() else {}
    rows = []
    for k in doc["kernels"]:
        n = ncu.get(k["name"])
        row = {"kernel": k["name"], "in_ncu": n is not None}
        if n:
            ratio_ncu = n["smsp__thread_inst_executed.sum"] / n["smsp__inst_executed.sum"]
            ratio = float(k["thread_inst_per_inst"])
            div_ncu = n.get("smsp__sass_branch_targets_threads_divergent.sum", 0.0)
            div = float(k["branch_targets_threads_divergent"])
            row.update({"launches_ncu": n["launches"], "thread_inst_per_inst": ratio, "thread_inst_per_inst_ncu": ratio_ncu,
                        "ratio_rel_diff": abs(ratio / ratio_ncu - 1), "divergent": div, "divergent_ncu": div_ncu,
                        "divergent_rel_diff": abs(div / div_ncu - 1) if div_ncu else (0.0 if div == 0 else float("inf")),
                        "inst_rel_diff": abs(float(k["inst_executed"]) / n["smsp__inst_executed.sum"] - 1)})
            m = ncu2.get(k["name"])
            if m:  # the control: ncu against itself, one run later
                row["ncu_run_to_run_inst_rel_diff"] = abs(m["smsp__inst_executed.sum"] / n["smsp__inst_executed.sum"] - 1)
        rows.append(row)
    return rows


def _kernel_of_type(doc: dict, type_name: str) -> dict | None:
    """The shapes program's kernel shape_kernel<TYPE>: TYPE appears length-prefixed in the mangled name."""
    token = f"{len(type_name)}{type_name}E"
    ks = [k for k in doc.get("kernels", []) if token in k.get("name", "")]
    return ks[0] if ks else None


def probe_shape(folder: Path, shape: str) -> tuple[dict, list[dict], int] | None:
    """A probe's one shape by compaction (scripts/gpu/probes/lib.sh `compaction`, in folder/SHAPE): its
    shapes_checks row, the branches of its kernel in the random order and that order's launches; None
    when the shape has no truth."""
    row = next((r for r in shapes_checks(folder / shape) if r["shape"] == shape), None)
    if row is None or row.get("truth_cycles") is None:
        return None
    doc = load_json(folder / shape / "shapes_random.json")
    k = _kernel_of_type(doc, row["kernel"])
    return row, k["branches"], int(doc.get("launches", {}).get(k["name"], 1)) or 1


def shapes_checks(folder: Path) -> list[dict]:
    tpath = folder / "shapes_time.json"
    if not tpath.is_file():
        return []
    timed = load_json(tpath)
    docs = {o: load_json(folder / f"shapes_{o}.json") for o in ("random", "sorted")}
    rows = []
    for s in timed.get("shapes", []):
        row = {"shape": s["shape"], "kernel": s["kernel"], "shared_sm": s.get("shared_sm"),
               "held_out": s["shape"] in HELD_OUT_SHAPES,
               "held_out_set": HELD_OUT_SETS.get(s["shape"]),
               "sample": sample_of(s["shape"])[0],
               "written_in": SET_WRITTEN.get(SHAPE_SETS.get(s["shape"], -1)),
               "first_run": SET_FIRST_RUN_COMMIT.get(SHAPE_SETS.get(s["shape"], -1)),
               "rules_changed_after_first_run": sample_of(s["shape"])[1],
               "warp_cycles_random": s.get("random_median"), "warp_cycles_sorted": s.get("sorted_median")}
        est = {}
        for o, doc in docs.items():
            k = _kernel_of_type(doc, s["kernel"])
            if k is None:
                continue
            launches = int(doc.get("launches", {}).get(k["name"], 1)) or 1
            est[o] = float(k["cycles_lost"]) / launches
            row[f"estimated_cycles_{o}"] = est[o]
            row[f"lower_bound_{o}"] = any(b.get("cycles_lost_is_lower_bound") for b in k["branches"]
                                          if b.get("divergent_executions"))
            row[f"loops_{o}"] = len(k.get("loops", []))
        def per_launch(suffix: str) -> dict:
            out = {}
            for o in ("random", "sorted"):
                mp = folder / f"shapes_{o}_{suffix}.json"
                doc = load_json(mp) if mp.is_file() else None
                k = _kernel_of_type(doc, s["kernel"]) if doc else None
                if k is not None:
                    out[o] = float(k["cycles_lost"]) / (int(doc.get("launches", {}).get(k["name"], 1)) or 1)
            return out
        model = per_launch("model")
        no_call = per_launch("no_call_path")
        if len(est) == 2 and row["warp_cycles_random"] is not None and row["warp_cycles_sorted"] is not None:
            truth = row["warp_cycles_random"] - row["warp_cycles_sorted"] + est["sorted"]
            row["truth_cycles"] = truth
            row["estimated_cycles"] = est["random"]
            row["rel_err"] = est["random"] / truth - 1 if truth > 0 else None
            row["random_over_sorted"] = row["warp_cycles_random"] / row["warp_cycles_sorted"]
            for key, alt in (("model", model), ("no_call_path", no_call)):
                if len(alt) == 2:
                    atruth = row["warp_cycles_random"] - row["warp_cycles_sorted"] + alt["sorted"]
                    row[f"{key}_estimated_cycles"] = alt["random"]
                    row[f"{key}_rel_err"] = alt["random"] / atruth - 1 if atruth > 0 else None
        else:
            row["rel_err"] = None
        row["ok"] = (row["rel_err"] is not None and abs(row["rel_err"]) <= GOALS["cycles_lost_rel_err"]
                     and not row["shared_sm"])
        rows.append(row)
    return rows


def sampling_beside_checks(folder: Path) -> list[dict]:
    """The PC-sampling run beside the counting run (default) against alone after it (--jobs 1, the
    control), on the random order of the shapes: per shape the estimate from each, their relative
    difference. Samples are random, so the two differ by the sampling noise even when nothing else does."""
    paths = [folder / "shapes_random.json", folder / "shapes_random_jobs1.json"]
    if not all(p.is_file() for p in paths):
        return []
    beside, alone = (load_json(p) for p in paths)
    rows = []
    for k in beside.get("kernels", []):
        other = next((x for x in alone.get("kernels", []) if x["name"] == k["name"]), None)
        if other is None:
            continue
        a, b = float(k["cycles_lost"]), float(other["cycles_lost"])
        rows.append({"kernel": k["name"], "cycles_lost_beside": a, "cycles_lost_alone": b,
                     "rel_diff": (a - b) / b if b else None})
    return rows


def launch_mode_checks(folder: Path) -> list[dict]:
    """The generated program's 128 kernels counted in one run when launched plainly, as one CUDA graph and
    from four host threads: every kernel present in each, with the same instruction and divergence counts."""
    base_path = folder / "many_no_sampling.json"
    if not base_path.is_file():
        return []
    base = {k["name"]: k for k in load_json(base_path)["kernels"]}
    rows = []
    for mode in ("graph", "threads"):
        p = folder / f"many_{mode}.json"
        if not p.is_file():
            continue
        got = {k["name"]: k for k in load_json(p)["kernels"]}
        keys = ("inst_executed", "thread_inst_executed", "branch_targets_threads_divergent")
        differ = [n for n in base if n in got and any(base[n][x] != got[n][x] for x in keys)]
        rows.append({"mode": mode, "kernels": len(got), "kernels_plain": len(base),
                     "missing": sorted(set(base) - set(got)), "counts_differ": differ,
                     "ok": not (set(base) - set(got)) and not differ})
    return rows


def hostile_checks(folder: Path) -> list[dict]:
    """hostile.log (tests/attribute/hostile_test.sh): one row per check, {case, check, ok}; [] without the log."""
    log = folder / "hostile.log"
    if not log.is_file():
        return []
    rows = []
    for line in read_text(log).splitlines():
        m = re.fullmatch(r"(ok  |FAIL) (\w+): (.*)", line)
        if m:
            rows.append({"case": m.group(2), "check": m.group(3), "ok": m.group(1) == "ok  "})
    return rows


def timing(folder: Path) -> dict:
    ms = {}
    for line in read_text(folder / "timing.txt").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[2] == "ms":
            ms[parts[0]] = int(parts[1])
    plain = [v for k, v in ms.items() if k.startswith("thrust_plain_")]
    if not plain or "thrust_attribute" not in ms:
        raise InputError(f"{folder / 'timing.txt'}: no plain or attribute timing of the Thrust program")
    med = statistics.median(plain)

    def calls(name: str) -> list[int]:  # an attribute call timed once (NAME) or more (NAME, NAME_2, ...)
        return [v for k, v in ms.items() if k == name or re.fullmatch(re.escape(name) + r"_\d+", k)]

    thrust = calls("thrust_attribute")
    out = {"plain_ms": plain, "plain_median_ms": med, "attribute_ms": statistics.median(thrust),
           "attribute_calls_ms": thrust,
           "one_kernel_ms": ms.get("thrust_one_kernel"), "overhead_ratio": statistics.median(thrust) / med,
           "overhead_ratio_range": [min(thrust) / med, max(thrust) / med],
           "overhead_ratio_one_kernel": ms["thrust_one_kernel"] / med if "thrust_one_kernel" in ms else None}
    many = [v for k, v in ms.items() if k.startswith("many_plain_")]
    many_calls = calls("many_attribute")
    if many and many_calls:
        mmed = statistics.median(many)
        out["many_kernels"] = {"plain_ms": many, "plain_median_ms": mmed,
                               "attribute_ms": statistics.median(many_calls), "attribute_calls_ms": many_calls,
                               "overhead_ratio": statistics.median(many_calls) / mmed,
                               "overhead_ratio_range": [min(many_calls) / mmed, max(many_calls) / mmed]}
    for key in ("thrust_attribute_no_sampling", "many_attribute_no_sampling"):
        if key in ms:
            base = med if key.startswith("thrust") else (statistics.median(many) if many else None)
            out[key + "_overhead_ratio"] = ms[key] / base if base else None
    # The control of the early disassembly: the same calls with DIVBENCH_EARLY_FROM_EXECUTABLE=0.
    for key in ("thrust_late_disassembly", "many_late_disassembly"):
        late = calls(key)
        base = med if key.startswith("thrust") else (statistics.median(many) if many else None)
        if late and base:
            out[key + "_overhead_ratio"] = statistics.median(late) / base
            out[key + "_calls_ms"] = late
    return out


SHAPES_BEGIN = "<!-- shapes table: python3 -m divbench.attribute_validation --shapes-table results/h200/attribute/validation.json -->"
SHAPES_END = "<!-- end of shapes table -->"


def shapes_table(validation: dict) -> str:
    """docs/attribute.md's table of the shapes, rendered from validation.json (tests/python checks the doc)."""
    calls = any(r.get("no_call_path_rel_err") is not None for r in validation.get("shapes", []))
    lines = ["| shape | set | warp cycles random / sorted | truth (cycles lost) | estimate | error | estimate, issue model alone | "
             + ("error, a call's path at D_path | " if calls else "") + "within 10% |",
             "|---|---|---|---|---|---|---|" + ("---|" if calls else "") + "---|"]
    for r in validation.get("shapes", []):
        def num(v):
            return "-" if v is None else f"{v:,.0f}"
        err = "-" if r.get("rel_err") is None else f"{100 * r['rel_err']:+.1f}%"
        model = "-" if r.get("model_rel_err") is None else f"{100 * r['model_rel_err']:+.1f}%"
        no_call = "-" if r.get("no_call_path_rel_err") is None else f"{100 * r['no_call_path_rel_err']:+.1f}%"
        ratio = "-" if r.get("random_over_sorted") is None else f"{r['random_over_sorted']:.2f}x"
        kind = f"set {r['held_out_set']}" if r.get("held_out") and r.get("held_out_set") else (
            "held out" if r.get("held_out") else "seen")
        if r.get("sample") in ("in_sample", "out_of_sample"):
            kind += ", " + ("**out of sample**" if r["sample"] == "out_of_sample" else "in sample")
        lines.append(f"| {r['shape']} | {kind} | {ratio} | {num(r.get('truth_cycles'))} | {num(r.get('estimated_cycles'))} | {err} | "
                     f"{model} | " + (f"{no_call} | " if calls else "") + f"{'yes' if r.get('ok') else '**no**'} |")
    return "\n".join(lines) + "\n"


SUMMARY_BEGIN = ("<!-- validation table: python3 -m divbench.attribute_validation --summary-table "
                 "results/h200/attribute/validation.json -->")
SUMMARY_END = "<!-- end of validation table -->"


def summary_table(validation: dict) -> str:
    """docs/attribute.md's validation table, rendered from validation.json (tests/python checks the doc)."""
    s, t = validation["summary"], validation["timing"]
    goal = s["goals"]

    def pct(v, digits=1):
        return "-" if v is None else f"{100 * v:.{digits}f}%"

    def yes(ok):
        return "met" if ok else "**not met**"

    kway = validation.get("kway", [])
    ns = sorted({r["n"] for r in kway})
    ks = sorted({r["k"] for r in kway if r["k"] > 1})
    pred = validation["predication"]
    lanes = validation.get("lanes", [])
    rows = [
        ("divbench's own k-way kernel (fma_chain, k = " + ", ".join(map(str, ks)) + "; n = " + ", ".join(map(str, ns))
         + "), **in-sample**: B and W were fitted on this kernel family",
         "T(k) − T(1) measured by `--sweep k` on the same kernel and build",
         f"max error {pct(s['max_cycles_lost_rel_err'], 2)} (goal {pct(goal['cycles_lost_rel_err'], 0)}: {yes(s['kway_ok'])})"),
        ("lane kernels (tests/attribute/targets.cu `lanes`)", "host-computed per branch line",
         f"{sum(1 for r in lanes if r['ok'])} of {len(lanes)} branches exact (executions, divergent executions, "
         "active lanes before and inside)"),
        ("predicated kernel / its branchy twin", "the predicated form has no divergent branch",
         f"{pred['predicated']['divergent_executions']} / {pred['branchy']['divergent_executions']} divergent executions"),
        (f"Thrust/CUB ({s['ncu_kernels_compared']} kernels)",
         "ncu's thread instructions per instruction and divergent branch targets",
         f"max relative difference {pct(s['max_ncu_rel_diff'], 3)} (goal {pct(goal['ncu_rel_diff'], 0)}: {yes(s['ncu_ok'])})"),
        ("the same, instruction totals", "ncu's `smsp__inst_executed.sum`; ncu against itself one run later",
         f"identical in {s.get('ncu_inst_identical')} of {s['ncu_kernels_compared']} kernels; the others (blocks that "
         f"wait on each other) up to {pct(s.get('max_ncu_inst_rel_diff'))} (ncu against itself: up to "
         f"{pct(s.get('max_ncu_run_to_run_inst_rel_diff'), 2)})"),
        (f"{s['shapes']} shapes written for the test (tests/attribute/shapes.cu): "
         + (f"**{s['shapes_out_of_sample']} out of sample** (first run after the last change of every rule in use, "
            f"{s['rules_last_changed']}), {s['shapes'] - s['shapes_out_of_sample']} in sample (a rule changed after "
            "their first run)" if s.get("shapes_out_of_sample") is not None else "in and out of sample not recorded")
         + (f"; {s['shapes_held_out']} of them written before their first run"
            if s.get("shapes_held_out") else ""),
         "compaction: Σ warp cycles random − sorted + the estimate for sorted",
         f"{s['shapes_within_goal']} of {s['shapes']} within {pct(goal['cycles_lost_rel_err'], 0)}; largest error "
         f"{pct(s['max_shape_rel_err'])}"
         + (f"; out of sample: {s['shapes_out_of_sample_within_goal']} of {s['shapes_out_of_sample']} within "
            f"{pct(goal['cycles_lost_rel_err'], 0)}, largest error {pct(s['max_shape_rel_err_out_of_sample'])}"
            if s.get("shapes_out_of_sample") else "") + " (table below)"),
    ]
    if s.get("repeat_kernels") is not None:
        rows.append(("Thrust/CUB instrumented twice (`--repeat 2`)", "the counts of the first run",
                     f"{s['repeat_kernels'] - s['repeat_nondeterministic']} of {s['repeat_kernels']} kernels identical; "
                     f"{s['repeat_nondeterministic']} marked nondeterministic, spread up to {pct(s['repeat_max_spread'], 2)}"))
    modes = validation.get("launch_modes", [])
    if modes:
        rows.append(("128 kernels as one CUDA graph and from four host threads", "the same kernels launched plainly",
                     "; ".join(f"{m['mode']}: {m['kernels']} of {m['kernels_plain']} kernels, "
                               f"{'identical counts' if not m['counts_differ'] else str(len(m['counts_differ'])) + ' differ'}"
                               for m in modes)))
    if s.get("max_sampling_beside_rel_diff") is not None:
        rows.append(("the PC-sampling run beside the counting run (default)",
                     "the same with `--jobs 1` (the sampling run alone on the GPU), the shapes' random order",
                     f"estimates differ by at most {pct(s['max_sampling_beside_rel_diff'])} per kernel"))
    lo, hi = t["overhead_ratio_range"] if "overhead_ratio_range" in t else (t["overhead_ratio"],) * 2
    rows.append(("overhead, Thrust/CUB (every kernel in one run)",
                 f"the program alone: {t['plain_median_ms']} ms, median of {len(t['plain_ms'])}",
                 f"**{t['overhead_ratio']:.2f}×** (median of {len(t.get('attribute_calls_ms', [1]))} calls, "
                 f"{lo:.2f}–{hi:.2f}; goal {goal['overhead_ratio']:.0f}×: {yes(s['overhead_goal_met'])}); "
                 f"without PC sampling {t.get('thrust_attribute_no_sampling_overhead_ratio', float('nan')):.2f}×; "
                 f"one kernel (`--kernel`) {t['overhead_ratio_one_kernel']:.2f}×"))
    m = t.get("many_kernels")
    if m:
        mlo, mhi = m.get("overhead_ratio_range", (m["overhead_ratio"],) * 2)
        met = m["overhead_ratio"] <= goal["overhead_ratio"]
        rows.append(("overhead, 128 distinct kernels (tests/attribute/many_kernels.cu)",
                     f"the program alone: {m['plain_median_ms']} ms, median of {len(m['plain_ms'])}",
                     f"**{m['overhead_ratio']:.2f}×** (median of {len(m.get('attribute_calls_ms', [1]))} calls, "
                     f"{mlo:.2f}–{mhi:.2f}; goal {goal['overhead_ratio']:.0f}×: {yes(met)}); without PC sampling "
                     f"{t.get('many_attribute_no_sampling_overhead_ratio', float('nan')):.2f}×"))
    lines = ["| check | ground truth | result |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def report(folder: Path) -> tuple[dict, bool]:
    if not folder.is_dir():
        raise InputError(f"{folder}: not a directory")
    kway = kway_checks(folder)
    lanes = lanes_checks(folder)
    pred = predication_checks(folder)
    ncu = ncu_checks(folder)
    tm = timing(folder)
    shapes = shapes_checks(folder)
    modes = launch_mode_checks(folder)
    beside = sampling_beside_checks(folder)
    hostile = hostile_checks(folder)
    thrust = load_json(folder / "thrust.json")
    errs = [abs(r["rel_err"]) for r in kway if r.get("rel_err") is not None]
    diffs = [max(r["ratio_rel_diff"], r["divergent_rel_diff"]) for r in ncu if r["in_ncu"]]
    summary = {
        "max_cycles_lost_rel_err": max(errs) if errs else None,
        "max_ncu_rel_diff": max(diffs) if diffs else None,
        "overhead_ratio": tm["overhead_ratio"],
        "overhead_ratio_one_kernel": tm["overhead_ratio_one_kernel"],
        "kway_ok": bool(kway) and all(r["ok"] for r in kway),
        "lanes_ok": bool(lanes) and all(r["ok"] for r in lanes),
        "predication_ok": pred["ok"],
        "ncu_kernels_compared": len(diffs),
        "shapes": len(shapes),
        "max_shape_rel_err": max((abs(r["rel_err"]) for r in shapes if r["rel_err"] is not None), default=None),
        "shapes_ok": bool(shapes) and all(r["ok"] for r in shapes),
        "shapes_within_goal": sum(1 for r in shapes if r["ok"]),
        "shapes_held_out": sum(1 for r in shapes if r.get("held_out")),
        "shapes_held_out_within_goal": sum(1 for r in shapes if r.get("held_out") and r["ok"]),
        "max_shape_rel_err_held_out": max((abs(r["rel_err"]) for r in shapes if r.get("held_out") and r["rel_err"] is not None),
                                          default=None),
        "shapes_out_of_sample": sum(1 for r in shapes if r.get("sample") == "out_of_sample"),
        "shapes_out_of_sample_within_goal": sum(1 for r in shapes if r.get("sample") == "out_of_sample" and r["ok"]),
        "max_shape_rel_err_out_of_sample": max((abs(r["rel_err"]) for r in shapes
                                                if r.get("sample") == "out_of_sample" and r["rel_err"] is not None), default=None),
        "rules_last_changed": max(RULES, key=lambda r: r[1])[0],
        "shapes_held_out_latest": sum(1 for r in shapes if r.get("held_out_set") == LATEST_HELD_OUT_SET),
        "shapes_held_out_latest_within_goal": sum(1 for r in shapes if r.get("held_out_set") == LATEST_HELD_OUT_SET and r["ok"]),
        "overhead_ratio_many_kernels": tm.get("many_kernels", {}).get("overhead_ratio"),
        "launch_modes_ok": bool(modes) and all(r["ok"] for r in modes),
        "max_sampling_beside_rel_diff": max((abs(r["rel_diff"]) for r in beside if r["rel_diff"] is not None),
                                            default=None),
        "shapes_recording": (load_json(folder / "shapes_random.json").get("provenance", {}).get("created")
                             if (folder / "shapes_random.json").is_file() else None),
        "ncu_kernels_missing": [r["kernel"] for r in ncu if not r["in_ncu"]],
        "goals": GOALS,
        "hostile_checks": len(hostile),
        "hostile_ok": bool(hostile) and all(r["ok"] for r in hostile),
        "overhead_ratio_many_kernels_late_disassembly": tm.get("many_late_disassembly_overhead_ratio"),
        "overhead_ratio_late_disassembly": tm.get("thrust_late_disassembly_overhead_ratio"),
    }
    compared = [r for r in ncu if r["in_ncu"]]
    summary["ncu_inst_identical"] = sum(1 for r in compared if r["inst_rel_diff"] == 0)
    summary["max_ncu_inst_rel_diff"] = max((r["inst_rel_diff"] for r in compared), default=None)
    summary["max_ncu_run_to_run_inst_rel_diff"] = max((r["ncu_run_to_run_inst_rel_diff"] for r in compared
                                                       if "ncu_run_to_run_inst_rel_diff" in r), default=None)
    repeat = folder / "thrust_repeat.json"
    if repeat.is_file():
        marked = [k["nondeterministic"]["spread"] for k in load_json(repeat)["kernels"]
                  if isinstance(k.get("nondeterministic"), dict)]
        summary["repeat_kernels"] = len(load_json(repeat)["kernels"])
        summary["repeat_nondeterministic"] = len(marked)
        summary["repeat_max_spread"] = max(marked, default=0.0)
    summary["ncu_ok"] = summary["max_ncu_rel_diff"] is not None and summary["max_ncu_rel_diff"] <= GOALS["ncu_rel_diff"]
    summary["overhead_goal_met"] = tm["overhead_ratio"] <= GOALS["overhead_ratio"]
    summary["overhead_goal_met_one_kernel"] = (tm["overhead_ratio_one_kernel"] is not None
                                               and tm["overhead_ratio_one_kernel"] <= GOALS["overhead_ratio"])
    doc = {"schema": SCHEMA, "summary": summary, "provenance": thrust.get("provenance", {}),
           "device": thrust.get("device", {}), "kway": kway, "lanes": lanes, "predication": pred, "ncu": ncu,
           "timing": tm, "shapes": shapes, "launch_modes": modes, "sampling_beside": beside,
           "hostile": hostile}
    for r in kway:
        print(f"kway n={r['n']} k={r['k']}: est {r['estimated_cycles_lost_per_warp']:.1f} cycles/warp, "
              f"measured {r['measured_t_k_minus_t_1']}, rel_err {r.get('rel_err')}, ok {r['ok']}")
    for r in lanes:
        print(f"lanes {r['kernel']}:{r['line']}: ok {r['ok']}")
    print(f"predication: ok {pred['ok']}; ncu: {len(diffs)} kernels, max rel diff {summary['max_ncu_rel_diff']}; "
          f"overhead {tm['overhead_ratio']:.1f}x (one kernel {tm['overhead_ratio_one_kernel']})")
    for r in shapes:
        print(f"shape {r['shape']}: est {r.get('estimated_cycles')}, truth {r.get('truth_cycles')}, "
              f"rel_err {r['rel_err']}, ok {r['ok']}")
    ok = summary["kway_ok"] and summary["lanes_ok"] and summary["predication_ok"] and summary["ncu_ok"]
    return doc, ok


_folder_main = folder_report("attribute_validation", __doc__.splitlines()[0], report)


README_BEGIN = "<!-- attribute summary: python3 -m divbench.attribute_validation --update-doc README.md results/h200/attribute/validation.json -->"
README_END = "<!-- end of attribute summary -->"


def readme_summary(validation: dict) -> str:
    """README's paragraph on how far `divbench attribute` is checked, rendered from validation.json."""
    s, t = validation["summary"], validation["timing"]
    goal = s["goals"]
    shapes = validation.get("shapes", [])
    missed = [f"{r['shape']} {100 * r['rel_err']:+.0f}%" for r in shapes if not r["ok"] and r.get("rel_err") is not None]
    m = t.get("many_kernels", {})
    met = s["overhead_goal_met"] and m.get("overhead_ratio", 0) <= goal["overhead_ratio"]
    return (f"Checked on the H200 (results/h200/attribute/validation.json): on divbench's own k-way kernel, which the "
            f"cost model was fitted on, the estimate is within {100 * s['max_cycles_lost_rel_err']:.2f}% of the measured "
            f"T(k) − T(1); lane counts of hand-written kernels are {'exact' if s['lanes_ok'] else '**not exact**'}; "
            f"a predicated kernel {'shows no' if s['predication_ok'] else '**shows a**'} divergent branch; "
            f"on Thrust/CUB the thread-instructions-per-instruction and divergent-branch counts agree with Nsight "
            f"Compute's within {100 * s['max_ncu_rel_diff']:.2f}%. Warp-cycles lost against ground truth by compaction "
            f"(the same work sorted so that warps do not diverge), at one warp per SM, on {s['shapes']} hand-written "
            f"shapes: {s['shapes_within_goal']} within {100 * goal['cycles_lost_rel_err']:.0f}%"
            + (f"; missed: {', '.join(missed)}" if missed else "")
            + (f"; only {s['shapes_out_of_sample']} of them are out of sample for the rules in use "
               f"({s['shapes_out_of_sample_within_goal']} within {100 * goal['cycles_lost_rel_err']:.0f}%), the others "
               "were run before a rule changed" if s.get("shapes_out_of_sample") is not None else "")
            + " (docs/attribute.md says why). "
            f"Every kernel is counted in one run (CUPTI 13.4): attributing all of Thrust/CUB costs "
            f"{t['overhead_ratio']:.2f}× the program's own time, a program of 128 distinct kernels "
            f"{m.get('overhead_ratio', float('nan')):.2f}× (goal {goal['overhead_ratio']:.0f}×: "
            f"{'met' if met else 'not met'}).\n")


TABLES = {"--shapes-table": shapes_table, "--summary-table": summary_table}
BLOCKS = ((SUMMARY_BEGIN, SUMMARY_END, summary_table), (SHAPES_BEGIN, SHAPES_END, shapes_table),
          (README_BEGIN, README_END, readme_summary))


def render_doc(text: str, validation: dict) -> str:
    """`text` with every marked table (validation, shapes) rendered from `validation`."""
    for begin, end, render in BLOCKS:
        if begin in text and end in text:
            head, rest = text.split(begin, 1)
            tail = rest.split(end, 1)[1]
            text = head + begin + "\n" + render(validation) + end + tail
    return text


@tool_main("attribute_validation")
def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    usage = ("usage: python3 -m divbench.attribute_validation --shapes-table|--summary-table VALIDATION.json\n"
             "       python3 -m divbench.attribute_validation --update-doc DOC.md VALIDATION.json")
    if args and (args[0] in TABLES or args[0] == "--update-doc"):
        if len(args) != (3 if args[0] == "--update-doc" else 2):
            print(usage, file=sys.stderr)
            return 2
        try:
            validation = load_json(Path(args[-1]))
            if args[0] == "--update-doc":
                doc = Path(args[1])
                write_atomic(doc, render_doc(read_text(doc), validation))
            else:
                sys.stdout.write(TABLES[args[0]](validation))
        except (InputError, KeyError, TypeError, AttributeError, ValueError, IndexError) as e:
            print(f"attribute_validation: {args[-1]}: not a validation document ({e!r})", file=sys.stderr)
            return 2
        return 0
    return _folder_main(argv)


if __name__ == "__main__":
    sys.exit(main())
