"""Compare divbench results across GPUs, beside the paper's numbers.

  python3 scripts/compare.py [RESULTS ...] [--baseline GPU] [--markdown | --csv] [--out FILE]
  python3 scripts/compare.py --gate A.json B.json [...]     (the statistical gate: divbench/gate.py)

RESULTS are results/<gpu>/ folders, a results/ folder holding them, or result files (default: results/).
One row per GPU: name, compute capability, the k-way fit T(k) = s*k + c (s, c, c/s, R²), the 32-way ratio
T(32)/T(1), active threads per instruction at k=32 (whole kernel, and region-only where measured), the
predication ratios (branchy/single, predicated/single), and the occupancy penalty range; then the paper's
rows. "s norm" is s divided by the baseline's s: measured rows by the measured baseline GPU, paper rows by
the paper's GPU of the same family, since the paper's work body is not ours (raw cycles are not comparable
across the two sets, ratios are).

Measured k-way results must share one configuration (work body, iterations per path, lane map): a mismatch
is refused, unless --normalize-iters is given, which divides s and c by each result's iteration count
(cycles per iteration and path) — body and map must still match.

Bad input or arguments: one line `compare: error: ...` and exit 2; the table is written atomically.
"""
from __future__ import annotations

import argparse
import csv
import io
import sys
from pathlib import Path

from divbench import results as dr
from divbench import series
from divbench.cli import ArgumentParser, fail
from divbench.jsonio import InputError, OutputError, check_writable, write_atomic
from divbench.paths import repo_root

COLUMNS = [
    ("source", "source"), ("gpu", "GPU"), ("cc", "CC"), ("s", "s [cyc/path]"), ("c", "c [cyc]"),
    ("c_over_s", "c/s"), ("r2", "R²"), ("s_norm", "s norm"), ("ratio32", "T(32)/T(1)"),
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


def measured_row(g: dr.Gpu, kway: dr.Result | None, per_iter: bool) -> dict:
    row = {"source": "measured", "gpu": f"{g.name} ({g.key})", "cc": g.cc, "family": g.family,
           "match": {g.key.lower(), g.name.lower(), g.cc, g.family.lower(), f"sm_{g.cc.replace('.', '')}"}}
    if kway is not None:
        fit = kway.fit
        if "s" not in fit or "c" not in fit:
            raise InputError(f"{kway.path}: k-way result has no fit (s, c)")
        s = dr.number(fit["s"], "fit.s", kway.path)
        c = dr.number(fit["c"], "fit.c", kway.path)
        if per_iter:
            it = dr.number(kway.config.get("iters"), "config.iters", kway.path, positive=True)
            s, c = s / it, c / it
        row.update(s=s, c=c, c_over_s=c / s if s else None,
                   r2=dr.number(fit["r2"], "fit.r2", kway.path) if "r2" in fit else None)
        ks, ts = series.kway_series(kway)
        if 1.0 in ks and 32.0 in ks:
            row["ratio32"] = ts[ks.index(32.0)] / ts[ks.index(1.0)]
    # Counters may come from a separate --metrics sweep of the same body and map.
    metrics_run = g.find("kway", kway.config.get("body", dr.DEFAULT_BODY), kway.config.get("map", dr.DEFAULT_MAP),
                         with_metrics=True) if kway is not None else None
    if metrics_run is not None:
        for p in metrics_run.points:
            if p.get("k") == 32:
                row["eff32"] = dr.point_metric(p, metrics_run.path)
                row["eff32_region"] = dr.point_region_ratio(p, metrics_run.path)
    pred = g.find("predication")
    if pred is not None:
        sm = pred.summary
        for key, col in (("ratio_branchy_over_single", "pred_branchy"), ("ratio_predicated_over_single", "pred_predicated")):
            if key in sm:
                row[col] = dr.number(sm[key], f"summary.{key}", pred.path)
    occ = g.find("occupancy")
    if occ is not None:
        sm = occ.summary
        if "penalty_min" in sm and "penalty_max" in sm:
            row["occ_penalty"] = fmt_range(dr.number(sm["penalty_min"], "summary.penalty_min", occ.path),
                                           dr.number(sm["penalty_max"], "summary.penalty_max", occ.path))
            if "kernel_penalty_min" in sm and "kernel_penalty_max" in sm:
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
               "family": info["family"], "s": s, "c": c, "c_approx": bool(dyn["constant_cycles"].get("approximate")),
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
    (or the one named)."""
    b = baseline.lower()
    measured = [r for r in rows if r["source"] == "measured"]
    paper = [r for r in rows if r["source"] == "paper"]
    mbase = next((r for r in measured if b in r["match"] and r.get("s")), None)
    pbase = next((r for r in paper if b in r["match"] and r.get("s")), None)
    if mbase is not None and pbase is None:
        pbase = next((r for r in paper if r["family"] == mbase["family"] and r.get("s")), None)
    if pbase is not None and mbase is None:
        mbase = next((r for r in measured if r["family"] == pbase["family"] and r.get("s")), None)
    if mbase is None and pbase is None:
        choices = sorted({m for r in rows for m in r["match"] if m})
        raise CompareError(f"--baseline {baseline!r} matches no GPU with a slope; choose from: {', '.join(choices)}")
    for group, base in ((measured, mbase), (paper, pbase)):
        for r in group:
            r["s_norm"] = r["s"] / base["s"] if (base is not None and r.get("s")) else None
    return mbase, pbase


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
    ap.add_argument("--gate", nargs=2, metavar=("A", "B"),
                    help="statistical gate of result B against result A (docs/compare.md; --gate --help)")
    return ap


def table(args, root: Path) -> str:
    gpus = dr.load_gpus(args.inputs or [root / "results"])
    runs = [(g, g.find("kway", args.body, args.map)) for g in gpus]
    check_configs([(g, r) for g, r in runs if r is not None], args.normalize_iters)
    rows = [measured_row(g, r, args.normalize_iters) for g, r in runs]
    if args.reference.lower() != "none":
        rows += paper_rows(dr.load_reference(args.reference))
    if not rows:
        raise CompareError("no results found: give results/<gpu>/ folders or result files")
    notes = []
    if any(r.get("s") for r in rows):
        mbase, pbase = normalize(rows, args.baseline)
        notes.append("s norm: measured rows / " + (mbase["gpu"] if mbase else "(no measured baseline)") +
                     ", paper rows / " + (pbase["gpu"] if pbase else "(no paper baseline)"))
    style = "csv" if args.csv else "markdown" if args.markdown else "console"
    text = render(rows, style)
    if style != "csv":
        text += "".join(f"\n{n}" if style == "markdown" else f"{n}\n" for n in notes)
        if style == "markdown" and notes:
            text += "\n"
    if args.normalize_iters and style != "csv":
        text += "measured s and c are cycles per iteration and path (--normalize-iters)\n"
    return text


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    if "--gate" in argv:
        from divbench import gate  # numpy is needed only there
        return gate.main([a for a in argv if a != "--gate"])
    root = repo_root()
    args = parser(root).parse_args(argv)
    try:
        if args.out:
            check_writable(args.out)
        text = table(args, root)
        if args.out:
            write_atomic(args.out, text)
        else:
            sys.stdout.write(text)
    except (InputError, OutputError, CompareError) as e:
        return fail("compare", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
