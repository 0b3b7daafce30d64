#!/usr/bin/env python3
"""The loop rule and the estimate against ground truth by compaction, on counts recorded on the H200 (no
GPU): tests/data/attribute/shapes holds what scripts/gpu/50-attribute.sh kept of one run of
tests/attribute/shapes.cu: the counts and module of the program in the random and in the sorted order
(random/, sorted/: `divbench attribute --save-counts`, with the PC samples of its timing run where the
run had them) and the warp cycles of both orders (shapes_time.json, the program's `time` mode).

`divbench attribute --from-counts` on each order, then divbench.attribute_validation.shapes_checks:
  - the loop shapes (a Mandelbrot while loop, a data-dependent break, a divergent outer trip count)
    are priced within 10% of their measured compaction loss: a rule that took the lanes at a loop's
    exit instead of those that entered it prices the while loop at zero (the bug this rule fixed);
  - every shape's error equals the one results/h200/attribute/validation.json publishes, when that file
    was made from the same recording (its "recording" names the run; a validation.json of another run fails);
  - the shapes whose time is load waits are within 10% under the memory rule, and the rule is what puts
    the gathers there (without it, `--memory none`, gather_loop and gather_compute are beyond 10%);
  - the modules disassembled in three nvdisasm runs (DIVBENCH_NVDISASM_PARTS=3) give the same document.
usage: shapes_recorded_test.py DIVBENCH SOURCE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LOOP_SHAPES = ("while_compound", "loop_break", "nested_outer")
# Shapes whose time is mostly load waits (the memory rule, model/memory_cost.hpp): within 10% with the
# probe's levels (results/h200/memory.json, found beside the committed constants), the gathers scaled by
# it; and the control, `--memory none` (a load's whole pass lost per extra pass), beyond 10% on these.
MEMORY_SHAPES = ("pointer_chase", "gather_loop", "gather_l2", "chase_if", "gather_compute", "coalesced_if")
MEMORY_CONTROL_MISSES = ("gather_loop", "gather_compute")
# Shapes that call (indirect calls through a register, virtual dispatch, direct calls of __noinline__
# functions): within 10% with the calibration's call costs (results/h200/call_path.json, found beside the
# committed constants), and the control, `--call-path none` (a call's round trip at its issue cost, an
# indirect call's extra path at D_path), beyond 10% on every one of them.
CALL_SHAPES = ("indirect_call", "indirect_two_sites", "virtual_call", "indirect_call_8", "indirect_in_loop",
               "call_in_if", "direct_call_in_loop", "indirect_in_if", "nested_call_in_if", "calls_in_if_else",
               "call_in_break_loop")


def control_failures(divbench: str, data: Path, shapes: tuple, label: str, **options) -> list[str]:
    """The recording analysed again without a rule (`label`, options of shapes_reanalyse.reanalyse): each
    of `shapes` must then miss 10%, or the control shows nothing the rule does."""
    from divbench import attribute_validation, shapes_reanalyse  # noqa: E402 - the package lives in scripts/
    try:
        rows = {r["shape"]: r for r in shapes_reanalyse.reanalyse(divbench, data, prefix="", **options)}
    except RuntimeError as e:
        return [f"{label}: {e}"]
    out = []
    for shape in shapes:
        e = rows[shape]["rel_err"]
        print(f"{shape} with {label}: rel_err {e}")
        if e is None or abs(e) <= attribute_validation.GOALS["cycles_lost_rel_err"]:
            out.append(f"{shape}: within 10% with {label} too ({e}): the control shows nothing")
    return out


def shared_callee_failures(doc: dict) -> list[str]:
    """indirect_two_sites calls through two tables at two sites; an indirect call's region is every
    subroutine of the function, so both sites hold all four callees: the kernel counts them once (the
    second call names the first in counted_in), and the first carries both calls' extra paths. Before
    this rule the kernel total was each site's whole loss twice over."""
    from divbench import attribute_validation  # noqa: E402 - the package lives in scripts/
    k = attribute_validation._kernel_of_type(doc, "IndirectTwoSites")
    if k is None:
        return ["indirect_two_sites: no kernel in the recording's analysis"]
    calls = [b for b in k["branches"] if b.get("call")]
    if len(calls) != 2:
        return [f"indirect_two_sites: {len(calls)} indirect calls found, expected 2"]
    reps = [b for b in calls if b["counted_in"] is None]
    if len(reps) != 1 or [b["counted_in"] for b in calls if b is not reps[0]] != [reps[0]["pc"]]:
        return [f"indirect_two_sites: the calls are not counted at one of them ({[b['counted_in'] for b in calls]})"]
    cm = doc["cost_model"]
    d = cm["divergent_call_path_cycles"] if cm.get("divergent_call_path_cycles") is not None else cm["divergent_path_cycles"]
    paths = sum(b["extra_paths"] for b in calls)
    out = []
    if abs(reps[0]["path_overhead_cycles"] - d * paths) > 1e-6 * max(1.0, d * paths):
        out.append(f"indirect_two_sites: the first call's path overhead {reps[0]['path_overhead_cycles']} is not "
                   f"{d} x both calls' {paths} extra paths")
    if abs(k["cycles_lost"] - reps[0]["cycles_lost"]) > 1e-6 * max(1.0, k["cycles_lost"]):
        out.append(f"indirect_two_sites: the kernel's {k['cycles_lost']} cycles lost are not its calls' "
                   f"{reps[0]['cycles_lost']} counted once")
    return out


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    sys.path.insert(0, str(root / "scripts"))
    from divbench import attribute_validation, schemas  # noqa: E402 - the package lives in scripts/

    data = root / "tests" / "data" / "attribute" / "shapes"
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        shutil.copy(data / "shapes_time.json", t / "shapes_time.json")
        for order in ("random", "sorted"):
            out = t / f"shapes_{order}.json"
            r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(data / order), "--out", str(out)],
                               capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                print(f"FAIL: divbench attribute --from-counts {order}: exit {r.returncode}: {r.stderr.strip()}")
                return 1
            problems = schemas.validate_file(schemas.load_catalog(), out)
            if problems:
                failures.append(f"schema of {order}: {problems}")
        # The modules' functions disassembled in three nvdisasm runs (as on a machine of 12 cores or more)
        # give the same document as one run.
        split = t / "split.json"
        r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(data / "random"), "--out", str(split)],
                           capture_output=True, text=True, timeout=300, env={**os.environ, "DIVBENCH_NVDISASM_PARTS": "3"})
        if r.returncode != 0:
            failures.append(f"three nvdisasm runs: exit {r.returncode}: {r.stderr.strip()}")
        else:
            docs = [json.loads(p.read_text()) for p in (t / "shapes_random.json", split)]
            for d in docs:
                d.pop("provenance", None)
                d.get("collection", {}).pop("phases_s", None)
                d.get("collection", {}).pop("module_disassembly", None)
            if docs[0] != docs[1]:
                failures.append("three nvdisasm runs give another document than one: "
                                + ", ".join(k for k in docs[0] if docs[0][k] != docs[1].get(k)))
        rows = {r["shape"]: r for r in attribute_validation.shapes_checks(t)}
        for shape, r in rows.items():
            print(f"{shape}: estimate {r.get('estimated_cycles')}, truth {r.get('truth_cycles')}, rel_err {r['rel_err']}")
        for shape in LOOP_SHAPES:
            r = rows.get(shape)
            if r is None or r["rel_err"] is None:
                failures.append(f"{shape}: no estimate or no truth")
            elif abs(r["rel_err"]) > attribute_validation.GOALS["cycles_lost_rel_err"]:
                failures.append(f"{shape}: estimate {r['estimated_cycles']:.0f} against truth {r['truth_cycles']:.0f} "
                                f"(rel_err {r['rel_err']:+.3f}, beyond 10%)")
            elif r["loops_random"] < 1:
                failures.append(f"{shape}: no divergent loop found")
        docs = {o: json.loads((t / f"shapes_{o}.json").read_text()) for o in ("random",)}
        failures += shared_callee_failures(docs["random"])
        for shape in MEMORY_SHAPES:
            r = rows.get(shape)
            if r is None or r["rel_err"] is None or abs(r["rel_err"]) > attribute_validation.GOALS["cycles_lost_rel_err"]:
                failures.append(f"{shape}: not within 10% under the memory rule ({r and r['rel_err']})")
                continue
            k = attribute_validation._kernel_of_type(docs["random"], r["kernel"])
            rule = ((k or {}).get("time_sampling") or {}).get("memory_rule") or {}
            if shape != "coalesced_if" and not rule.get("gathers"):
                failures.append(f"{shape}: the memory rule scaled no gather ({rule})")
            if shape == "coalesced_if" and rule.get("gathers"):
                failures.append(f"coalesced_if: a coalesced load taken for a gather ({rule})")
        # The control runs whatever came before it (a failure above must not hide whether the rule matters).
        failures += control_failures(divbench, data, MEMORY_CONTROL_MISSES, "--memory none", memory="none")
        for shape in CALL_SHAPES:
            r = rows.get(shape)
            if r is None or r["rel_err"] is None or abs(r["rel_err"]) > attribute_validation.GOALS["cycles_lost_rel_err"]:
                failures.append(f"{shape}: not within 10% with the calibration's call costs ({r and r['rel_err']})")
        failures += control_failures(divbench, data, CALL_SHAPES, "--call-path none", memory=None, call_path="none")
        published = root / "results" / "h200" / "attribute" / "validation.json"
        meta = json.loads((data / "recording.json").read_text())
        if published.is_file():
            doc = json.loads(published.read_text())
            if doc.get("summary", {}).get("shapes_recording") != meta.get("run"):
                # Not a skip: the recording here and the published validation must be the same run, or the
                # published errors are checked by nothing (record both from one stage run).
                failures.append(f"validation.json is of the run {doc.get('summary', {}).get('shapes_recording')}, the "
                                f"recording here of {meta.get('run')}: commit them from one run")
            else:
                for p in doc.get("shapes", []):
                    mine = rows.get(p["shape"], {}).get("rel_err")
                    if p.get("rel_err") is None or mine is None or abs(mine - p["rel_err"]) > 1e-9:
                        failures.append(f"{p['shape']}: validation.json says rel_err {p.get('rel_err')}, the recording "
                                        f"gives {mine}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(LOOP_SHAPES) + 1 - min(len(failures), len(LOOP_SHAPES) + 1)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
