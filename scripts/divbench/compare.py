"""Compare divbench results across GPUs, beside the paper's numbers.

  python3 scripts/compare.py [RESULTS ...] [--baseline GPU] [--markdown | --csv] [--out FILE]
  python3 scripts/compare.py gate A.json B.json [...]       (the statistical gate: divbench/gate.py;
  python3 scripts/compare.py --gate A.json B.json [...]      the same, the older spelling; gate --help)

RESULTS are results/<gpu>/ folders, a results/ folder holding them, or result files (default: results/).
One row per GPU: name, compute capability, the k-way fit T(k) = s*k + c (s with its spread over code
placements, c, c/s, R²), the 32-way ratio T(32)/T(1), active threads per instruction at k=32 (whole
kernel, and region-only where measured), the predication ratios (branchy/single, predicated/single), and
the occupancy penalty range; then the paper's rows and, beside them by architecture, the slopes predicted
from SASS (results/predicted/sm_XX.json, labelled "predicted"). "s norm" is s divided by the baseline's s
within each set: measured rows by the measured baseline GPU, paper rows by the paper's GPU of the same
family, predicted rows by the prediction for the baseline's architecture, since the paper's work body is
not ours (raw cycles are not comparable across the sets, ratios are). A prediction for an architecture
that was also measured is checked against the run: "predicted vs measured" is predicted s / measured s - 1
(--max-prediction-error F makes a larger error exit 1).

Measured k-way results must share one configuration (work body, iterations per path, lane map): a mismatch
is refused, unless --normalize-iters is given, which divides s and c by each result's iteration count
(cycles per iteration and path) — body and map must still match.

Bad input or arguments: one line `compare: error: ...` and exit 2; the table is written atomically.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

from divbench import quality
from divbench import results as dr
from divbench import series
from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import InputError, OutputError, check_output, write_atomic
from divbench.paths import rel, repo_root
from divbench.predicted import load_predictions, model_uncertainty, ratio_interval

COLUMNS = [
    ("source", "source"), ("gpu", "GPU"), ("cc", "CC"), ("s", "s [cyc/path]"), ("s_spread", "s over placements"),
    ("c", "c [cyc]"), ("c_over_s", "c/s"), ("r2", "R²"), ("s_norm", "s norm"), ("pred_err", "predicted vs measured"),
    ("ratio32", "T(32)/T(1)"), ("a", "a [cyc/iter] over placements"), ("b", "b [cyc/path] over placements"),
    ("c_cost", "c (cost sweep) over placements"),
    ("eff32", "thr/inst k=32"), ("eff32_region", "region k=32"), ("pred_branchy", "branchy/single"),
    ("pred_predicated", "predicated/single"), ("occ_penalty", "occupancy penalty"),
]
CONFIG_KEYS = ("body", "iters", "map")


class CompareError(Exception):
    """Inputs that are valid each but cannot be compared together."""


def fmt(v, kind="g") -> str:
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if kind == "cycles":
        return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
    if kind == "r2":
        return series.fmt_r2(v)
    if kind == "ratio":
        return f"{v:.3f}"
    return f"{v:.4g}"


def fmt_range(lo, hi) -> str | None:
    if lo is None or hi is None:
        return None
    return f"{lo:.3g}–{hi:.3g}"


SPREAD_KEYS = ("s_layout_min", "s_layout_max", "s_layout_spread_rel")


def placement_spread(kway: dr.Result, scale: float) -> str | None:
    """s over code placements from the k-way summary (min–max, relative spread, placements), where the
    result carries them (results from before code placements do not)."""
    sm = kway.summary
    if not all(k in sm for k in SPREAD_KEYS):
        return None
    lo, hi = (dr.number(sm[k], f"summary.{k}", kway.path) / scale for k in SPREAD_KEYS[:2])
    rel = dr.number(sm["s_layout_spread_rel"], "summary.s_layout_spread_rel", kway.path, nonnegative=True)
    n = sm.get("layout_placements")
    count = f", {n} placements" if isinstance(n, int) and not isinstance(n, bool) else ""
    return f"{fmt(lo, 'cycles')}–{fmt(hi, 'cycles')} ({100 * rel:.2f}%{count})"


def cost_cells(cost: dr.Result, body: str) -> dict:
    """a, b and c of `--sweep cost` (T(k, n) = k(a·n + b) + c) for `body`: the median over code placements
    with its min–max, where the folder has a cost result for that body."""
    for entry in cost.summary.get("bodies", []):
        if isinstance(entry, dict) and entry.get("body") == body:
            cells = {}
            for key, col, kind in (("a", "a", "g"), ("b", "b", "g"), ("c", "c_cost", "cycles")):
                if all(k in entry for k in (key, f"{key}_min", f"{key}_max")):
                    v, lo, hi = (dr.number(entry[k], f"summary.bodies[{body}].{k}", cost.path)
                                 for k in (key, f"{key}_min", f"{key}_max"))
                    cells[col] = f"{fmt(v, kind)} ({fmt(lo, kind)}–{fmt(hi, kind)})"
            return cells
    return {}


def arch_of_cc(cc: str) -> str:
    return f"sm_{cc.replace('.', '')}"


def measured_row(g: dr.Gpu, kway: dr.Result | None, per_iter: bool) -> dict:
    row = {"source": "measured", "gpu": f"{g.name} ({g.key})", "cc": g.cc, "family": g.family,
           "arch": arch_of_cc(g.cc), "key": g.key,
           "match": {g.key.lower(), g.name.lower(), g.cc, g.family.lower(), arch_of_cc(g.cc)}}
    if kway is not None:
        fit = kway.fit
        if "s" not in fit or "c" not in fit:
            raise InputError(f"{kway.path}: k-way result has no fit (s, c)")
        s = dr.number(fit["s"], "fit.s", kway.path)
        c = dr.number(fit["c"], "fit.c", kway.path)
        scale = dr.number(kway.config.get("iters"), "config.iters", kway.path, positive=True) if per_iter else 1.0
        s, c = s / scale, c / scale
        row.update(s=s, c=c, c_over_s=c / s if s else None, s_spread=placement_spread(kway, scale),
                   r2=dr.number(fit["r2"], "fit.r2", kway.path) if "r2" in fit else None)
        ks, ts = series.kway_series(kway)
        if 1.0 in ks and 32.0 in ks:
            row["ratio32"] = ts[ks.index(32.0)] / ts[ks.index(1.0)]
    # Counters may come from a separate --metrics sweep of the same body and map.
    metrics_run = g.find("kway", kway.config.get("body", dr.DEFAULT_BODY), kway.config.get("map", dr.DEFAULT_MAP),
                         with_metrics=True) if kway is not None else None
    if metrics_run is not None:
        for p in metrics_run.points:
            if dr.point_coords(p, metrics_run.experiment).get("k") == 32:
                row["eff32"] = dr.point_metric(p, metrics_run.path)
                row["eff32_region"] = dr.point_region_ratio(p, metrics_run.path)
    cost = g.find("cost")
    if cost is not None:
        row.update(cost_cells(cost, kway.config.get("body", dr.DEFAULT_BODY) if kway is not None else dr.DEFAULT_BODY))
    pred = g.find("predication")
    if pred is not None:
        sm = pred.summary
        for key, col in (("ratio_branchy_over_single", "pred_branchy"), ("ratio_predicated_over_single", "pred_predicated")):
            if key in sm:
                row[col] = dr.number(sm[key], f"summary.{key}", pred.path)
    occ = g.find("occupancy")
    if occ is not None:
        sm = occ.summary
        if isinstance(sm.get("series"), list) and "kernel_penalty_raw_min" in sm and "kernel_penalty_raw_max" in sm:
            # The raw event-time ratio (a lower bound: the launch overhead is in both times), and the bounded
            # correction only where it is informative: the empty-kernel correction can exceed K, which no
            # penalty can (docs/dynamic.md "A correction that cannot exceed the ceiling").
            row["occ_penalty"] = fmt_range(dr.number(sm["kernel_penalty_raw_min"], "summary.kernel_penalty_raw_min", occ.path),
                                           dr.number(sm["kernel_penalty_raw_max"], "summary.kernel_penalty_raw_max", occ.path))
            row["occ_penalty"] += " (raw kernel event times, a lower bound"
            bounded = [x.get("penalty_bounded") for x in sm["series"] if isinstance(x, dict)]
            informative = [v for v in bounded if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if informative:
                row["occ_penalty"] += (f"; corrected {fmt_range(min(informative), max(informative))} at "
                                       f"{len(informative)} of {len(bounded)} shapes")
            row["occ_penalty"] += ")"
        elif "penalty_min" in sm and "penalty_max" in sm:
            row["occ_penalty"] = fmt_range(dr.number(sm["penalty_min"], "summary.penalty_min", occ.path),
                                           dr.number(sm["penalty_max"], "summary.penalty_max", occ.path))
            if isinstance(sm.get("series"), list):  # warps-per-SM sweep (summary.series): the penalty is of corrected kernel times
                row["occ_penalty"] += " (kernel time, launch overhead subtracted)"
            elif "kernel_penalty_min" in sm and "kernel_penalty_max" in sm:
                row["occ_penalty"] += " (kernel time " + fmt_range(
                    dr.number(sm["kernel_penalty_min"], "summary.kernel_penalty_min", occ.path),
                    dr.number(sm["kernel_penalty_max"], "summary.kernel_penalty_max", occ.path)) + ")"
    return row


def paper_rows(ref: dict) -> list[dict]:
    dyn = ref["dynamic"]
    slopes = dyn["slope_cycles_per_path"]["values"]
    consts = dyn["constant_cycles"]["values"]
    r32 = dyn["ratio_32_over_1"]
    eff = dyn["efficiency"]
    eff32 = dict(zip(eff["k"], eff["values"])).get(32)
    rows = []
    for key, info in ref["gpus"].items():
        s = slopes.get(key)
        c = consts.get(key)
        row = {"source": "paper", "gpu": f"paper: {info['family']} {info['arch']}", "cc": info.get("cc"),
               "family": info["family"], "arch": info["arch"], "s": s, "c": c, "c_approx": bool(dyn["constant_cycles"].get("approximate")),
               "c_over_s": (c / s) if (s and c is not None) else None,
               "match": {key, info["family"].lower(), info.get("cc", ""), info["arch"]}}
        if key in r32.get("applies_to", []) and len(r32["range"]) == 2:
            row["ratio32"] = fmt_range(*r32["range"])
        if key in eff.get("applies_to", []):
            row["eff32"] = eff32
        pred = dyn["predication"]["values"].get(key) or {}
        row["pred_branchy"] = pred.get("ratio_branchy_over_single")
        row["pred_predicated"] = pred.get("ratio_predicated_over_single")
        occ = dyn["occupancy_penalty"]["values"].get(key)
        if isinstance(occ, list) and len(occ) == 2:
            row["occ_penalty"] = fmt_range(*occ)
        rows.append(row)
    return rows


def predicted_rows(preds: dict, body: str, per_iter: bool) -> list[dict]:
    """One row per predicted architecture: s of `body` at the file's n (per iteration with
    --normalize-iters); None where the model did not predict it (row["why"] says why)."""
    rows = []
    for arch, p in preds.items():
        bp = p.for_body(body)
        s = None if bp.s is None else (bp.s / p.n if per_iter else bp.s)
        rows.append({"source": "predicted", "gpu": f"predicted: {p.family} {arch}", "cc": p.cc, "family": p.family,
                     "arch": arch, "s": s, "why": bp.why, "path": p.path, "n": p.n, "constants": p.constants,
                     "match": {f"predicted:{arch}"}})
    return rows


def check_prediction_configs(runs: list[tuple[dr.Gpu, dr.Result]], rows: list[dict], normalize_iters: bool):
    """A predicted s is for n iterations per path; it sits beside measured sweeps of that many only."""
    if normalize_iters or not runs:
        return
    _, first = runs[0]
    for r in rows:
        if r["s"] is not None and first.config.get("iters") != r["n"]:
            raise CompareError(f"mismatched configurations: {first.path} has iters={first.config.get('iters')!r}, "
                               f"{r['path']} predicts n={r['n']} (pass --normalize-iters to compare cycles per iteration)")


def check_predictions(rows: list[dict]) -> list[tuple[dict, dict, float]]:
    """(predicted row, measured row, predicted s / measured s - 1) for every architecture both have; the
    predicted row's pred_err column names each."""
    measured = [r for r in rows if r["source"] == "measured" and r.get("s")]
    checks = []
    for p in (r for r in rows if r["source"] == "predicted" and r.get("s")):
        hits = [(m, p["s"] / m["s"] - 1.0) for m in measured if m["arch"] == p["arch"]]
        if hits:
            p["pred_err"] = "; ".join(f"{100 * e:+.2f}% ({m['key']})" for m, e in hits)
            for m, e in hits:
                m["pred_err"] = f"{100 * e:+.2f}% (predicted)"
                checks.append((p, m, e))
    return checks


def check_configs(runs: list[tuple[dr.Gpu, dr.Result]], normalize_iters: bool):
    if len(runs) < 2:
        return
    first_g, first = runs[0]
    for g, r in runs[1:]:
        for key in CONFIG_KEYS:
            a, b = first.config.get(key), r.config.get(key)
            if a == b or (key == "iters" and normalize_iters):
                continue
            hint = " (pass --normalize-iters to compare cycles per iteration)" if key == "iters" else ""
            raise CompareError(f"mismatched configurations: {first.path} has {key}={a!r}, {r.path} has {key}={b!r}{hint}")


def normalize(rows: list[dict], baseline: str):
    """s norm: measured rows over the measured baseline, paper rows over the paper row of the same family
    (or the one named), predicted rows over the prediction for the baseline's architecture (else over the
    measured baseline: the same body and iterations). Returns the three baselines (None where absent)."""
    b = baseline.lower()
    measured = [r for r in rows if r["source"] == "measured"]
    paper = [r for r in rows if r["source"] == "paper"]
    predicted = [r for r in rows if r["source"] == "predicted"]
    mbase = next((r for r in measured if b in r["match"] and r.get("s")), None)
    pbase = next((r for r in paper if b in r["match"] and r.get("s")), None)
    if mbase is not None and pbase is None:
        pbase = next((r for r in paper if r["family"] == mbase["family"] and r.get("s")), None)
    if pbase is not None and mbase is None:
        mbase = next((r for r in measured if r["family"] == pbase["family"] and r.get("s")), None)
    if mbase is None and pbase is None:
        choices = sorted({m for r in rows if r["source"] != "predicted" for m in r["match"] if m})
        raise CompareError(f"--baseline {baseline!r} matches no GPU with a slope; choose from: {', '.join(choices)}")
    arch = (mbase or pbase)["arch"]
    xbase = next((r for r in predicted if r["arch"] == arch and r.get("s")), None) or mbase
    for group, base in ((measured, mbase), (paper, pbase), (predicted, xbase)):
        for r in group:
            r["s_norm"] = r["s"] / base["s"] if (base is not None and r.get("s")) else None
    return mbase, pbase, xbase


def render(rows: list[dict], style: str) -> str:
    kinds = {"s": "cycles", "c": "cycles", "r2": "r2", "s_norm": "ratio", "ratio32": "ratio", "c_over_s": "ratio",
             "pred_branchy": "ratio", "pred_predicated": "ratio", "eff32": "g", "eff32_region": "g"}
    header = [h for _, h in COLUMNS]
    body = [[("≈" if k == "c" and r.get("c_approx") and r.get("c") is not None else "") + fmt(r.get(k), kinds.get(k, "g"))
             for k, _ in COLUMNS] for r in rows]
    if style == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow([k for k, _ in COLUMNS])
        for r in rows:
            w.writerow(["" if r.get(k) is None else r.get(k) for k, _ in COLUMNS])
        return buf.getvalue()
    if style == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(x) for x in col) for col in zip(header, *body)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [line(header), line(["-" * w for w in widths])] + [line(b) for b in body]
    return "\n".join(out) + "\n"


def parser(root: Path) -> ArgumentParser:
    ap = ArgumentParser(prog="compare", description=__doc__.splitlines()[0],
                        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("inputs", nargs="*", type=Path, help="results folders or files (default: results/)")
    ap.add_argument("--reference", default=str(root / "results" / "reference" / "paper-2607.23402.json"),
                    help="the paper's numbers ('none' to leave the paper's rows out)")
    ap.add_argument("--baseline", default="hopper",
                    help="GPU that s is normalized to: a folder name, device name, family, CC or paper key (default hopper)")
    fmt_group = ap.add_mutually_exclusive_group()
    fmt_group.add_argument("--markdown", action="store_true", help="markdown table")
    fmt_group.add_argument("--csv", action="store_true", help="CSV")
    ap.add_argument("--out", type=Path, help="write the table to this file instead of stdout")
    ap.add_argument("--normalize-iters", action="store_true",
                    help="allow k-way results with different iteration counts: s and c per iteration")
    ap.add_argument("--body", default=dr.DEFAULT_BODY, help="k-way work body to compare (default fma_chain)")
    ap.add_argument("--map", default=dr.DEFAULT_MAP, help="k-way lane map to compare (default modulo)")
    ap.add_argument("--predicted", default=None,
                    help="folder of predicted slopes (default: the predicted/ folder beside the GPU folders, "
                         "e.g. results/predicted; 'none' to leave them out)")
    ap.add_argument("--max-prediction-error", type=float, default=None, metavar="F",
                    help="exit 1 when a prediction is off a measured s of its architecture by more than F (0.1 = 10%%)")
    ap.add_argument("--allow-disturbed", action="store_true",
                    help="use results that divbench.quality judges disturbed (else exit 3 naming the file)")
    ap.add_argument("--gate", nargs=argparse.REMAINDER,
                    help="statistical gate of result B against result A, the same as `compare gate A B ...`: "
                         "every argument after --gate is the gate's, none may come before it "
                         "(docs/compare.md; --gate --help)")
    return ap


def gate_command(argv: list[str]) -> int:
    """`compare gate ARGS` and `compare --gate ARGS`: divbench.gate.main(ARGS)."""
    from divbench import gate  # numpy and scipy are needed only there
    return gate.main(argv)


def predicted_folders(args, root: Path) -> list[Path]:
    """--predicted, else the predicted/ folder beside the GPU folders of the inputs."""
    if args.predicted is not None:
        return [] if args.predicted.lower() == "none" else [Path(args.predicted)]
    out = []
    for item in (args.inputs or [root / "results"]):
        p = Path(item)
        folder = p if p.is_dir() else p.parent
        for cand in (folder / "predicted", folder.parent / "predicted"):
            if cand.is_dir() and cand not in out:
                out.append(cand)
                break
    return out


def paper_confrontation(rows: list[dict], xbase: dict | None, gpus, per_iter: bool) -> list[str]:
    """The predicted ratio to the baseline's architecture beside the paper's measured ratio, per architecture
    both have, with the prediction's interval: each s in [s(1 - e), (s + band*n)(1 + e)] (the placement band
    and the model's out-of-sample error beyond it, from loop_cost.json), the ratio's ends from the ends."""
    unc = model_uncertainty([r.path for g in gpus for r in g.results])
    if xbase is None or xbase.get("source") != "predicted" or unc is None:
        return []
    band, e, where = unc
    paper = {r["arch"]: r for r in rows if r["source"] == "paper" and r.get("s_norm")}
    if xbase["arch"] not in paper:
        return []
    parts = []
    for r in rows:
        if r["source"] != "predicted" or not r.get("s") or r is xbase or r["arch"] not in paper:
            continue
        ratio, p = r["s"] / xbase["s"], paper[r["arch"]]["s_norm"]
        rlo, rhi = ratio_interval(r["s"], xbase["s"], 1 if per_iter else (r.get("n") or 0), band, e)
        verdict = ("inside the interval" if rlo <= p <= rhi else
                   f"DISAGREE: the paper {100 * (rlo - p) / p:.1f}% below the interval" if p < rlo else
                   f"DISAGREE: the paper {100 * (p - rhi) / p:.1f}% above the interval")
        parts.append(f"{r['family']} {r['arch']} {ratio:.3f} [{rlo:.3f}, {rhi:.3f}] vs {p:.3f}: "
                     f"{100 * (ratio / p - 1):+.1f}%, {verdict}")
    if not parts:
        return []
    return [f"predictions confronted with the paper (ratio to {xbase['arch']}: predicted [interval: placement band "
            f"+{band:g} cycles per iteration and the model's out-of-sample error beyond it, {100 * e:.1f}%, from "
            f"{rel(where)}] vs the paper's measured, its own body): " + "; ".join(parts)]


def order_notes(gpus) -> list[str]:
    """Per GPU with the probes' results: the path-order rule (--probe order) and the producer/consumer
    conclusion it explains (stated from the order probe's lane-count rule, not from the roles)."""
    notes = []
    for g in gpus:
        order, pc = g.find("order"), g.find("producer_consumer")
        rule = (order.summary.get("rule") if order else None)
        sentence = ((pc.summary.get("conclusion") or {}).get("sentence") if pc else None)
        if rule:
            ties = (order.summary.get("ties") or {}).get("sentence")
            notes.append(f"path order on {g.name} ({g.key}, --probe order): {rule}" + (f"; {ties}" if ties else ""))
        if sentence:
            notes.append(f"producer/consumer on {g.name} ({g.key}): {sentence}")
    return notes


def table(args, root: Path) -> tuple[str, list]:
    """The rendered table and the prediction checks (predicted row, measured row, relative error)."""
    gpus = dr.load_gpus(args.inputs or [root / "results"])
    runs = [(g, g.find("kway", args.body, args.map)) for g in gpus]
    check_configs([(g, r) for g, r in runs if r is not None], args.normalize_iters)
    rows = [measured_row(g, r, args.normalize_iters) for g, r in runs]  # a k-way result without its fit: bad input
    disturbed = [v for v in quality.refuse_untrustworthy([r for g in gpus for r in g.results], args.allow_disturbed)
                 if not v.trustworthy]
    others = paper_rows(dr.load_reference(args.reference)) if args.reference.lower() != "none" else []
    preds = predicted_rows(load_predictions(predicted_folders(args, root)), args.body, args.normalize_iters)
    check_prediction_configs([(g, r) for g, r in runs if r is not None], preds, args.normalize_iters)
    # the paper's rows and the predictions side by side, by architecture
    rank = {"paper": 0, "predicted": 1}
    rows += sorted(others + preds, key=lambda r: (int(r["arch"].split("_")[1]), rank[r["source"]]))
    if not rows:
        raise CompareError("no results found: give results/<gpu>/ folders or result files")
    notes = []
    if any(r.get("s") for r in rows if r["source"] != "predicted"):
        mbase, pbase, xbase = normalize(rows, args.baseline)
        line = ("s norm: measured rows / " + (mbase["gpu"] if mbase else "(no measured baseline)") +
                ", paper rows / " + (pbase["gpu"] if pbase else "(no paper baseline)"))
        if preds:
            line += ", predicted rows / " + (xbase["gpu"] if xbase else "(no baseline)")
        notes.append(line)
    checks = check_predictions(rows)
    if any(r.get("s") for r in rows if r["source"] != "predicted"):
        notes += paper_confrontation(rows, xbase, [g for g, _ in runs], args.normalize_iters)
    if preds:
        notes.append("predicted: s of the " + args.body + " body from each architecture's SASS by the loop-cost model "
                     "(divbench kernels predict; " + ", ".join(sorted({rel(r['path'].parent) for r in preds})) +
                     "), not measured" + "".join(f"; {r['arch']}: {r['why']}" for r in preds if r["s"] is None))
    for p, m, e in checks:
        how = f" (model constants: {p['constants']})" if p["constants"] else ""
        notes.append(f"prediction check {p['arch']}: predicted s {fmt(p['s'], 'cycles')} vs measured "
                     f"{fmt(m['s'], 'cycles')} on {m['gpu']}: {100 * e:+.2f}%{how}")
    notes += order_notes([g for g, _ in runs])
    notes += [f"--allow-disturbed: {quality.describe(v)}" for v in disturbed]
    style = "csv" if args.csv else "markdown" if args.markdown else "console"
    text = render(rows, style)
    if args.normalize_iters:
        notes.append("measured s and c are cycles per iteration and path (--normalize-iters)")
    if style == "markdown" and notes:
        text += "\n" + "\n\n".join(notes) + "\n"
    elif style == "console":
        text += "".join(f"{n}\n" for n in notes)
    return text, checks


def input_files(args) -> list:
    """Every file this comparison may read (for the output rule): the named files and the JSON files
    under the named folders, the reference and the predictions."""
    named = list(args.inputs or [repo_root() / "results"]) + [args.reference, args.predicted]
    files = []
    for p in (Path(x) for x in named if x):
        files.append(p)
        if p.is_dir():
            files.extend(p.rglob("*.json"))
    return files


@tool_main("compare")
def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    if argv[:1] == ["gate"]:  # the subcommand is the first word (a results folder named gate: ./gate)
        return gate_command(argv[1:])
    root = repo_root()
    ap = parser(root)
    args = ap.parse_args(argv)
    if args.gate is not None:  # the older spelling, --gate A B ...: argparse hands it every word after it
        defaults = vars(ap.parse_args([]))
        before = [" ".join(map(str, v)) if k == "inputs" else "--" + k.replace("_", "-")
                  for k, v in vars(args).items() if k != "gate" and v != defaults[k]]
        if before:
            ap.error(f"--gate takes every argument after it and none before it (here: {', '.join(before)}): "
                     "compare --gate A.json B.json [options], or compare gate A.json B.json [options]")
        return gate_command(args.gate)
    try:
        if args.max_prediction_error is not None and not args.max_prediction_error >= 0:
            raise CompareError(f"--max-prediction-error {args.max_prediction_error:g}: expected a fraction >= 0")
        if args.out:
            check_output(args.out, input_files(args), "--out")
        text, checks = table(args, root)
        if args.out:
            write_atomic(args.out, text)
        else:
            sys.stdout.write(text)
    except quality.NotComparable as e:
        print(f"compare: {e}", file=sys.stderr)
        return quality.EXIT_NOT_COMPARABLE
    except (InputError, OutputError, CompareError) as e:
        return fail("compare", e)
    if args.max_prediction_error is not None:
        off = [(p, m, e) for p, m, e in checks if abs(e) > args.max_prediction_error]
        for p, m, e in off:
            print(f"compare: prediction {p['arch']} is off the measured s of {m['gpu']} by {100 * e:+.2f}% "
                  f"(more than {100 * args.max_prediction_error:g}%)", file=sys.stderr)
        if off:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
