"""Regenerate the paper's figures from divbench's committed JSON.

  python3 scripts/figures.py [--results results] [--out results/figures] [--only fig1,fig2,...]

Figure 1  T(k) per GPU (log-log, ideal k-times line); s per architecture     results/<gpu>/kway.json,
          (paper, predicted, measured); the raw samples per k                results/predicted/*.json
Figure 2  active threads per instruction vs k with 32/k                  metrics in results/<gpu>/kway.json
Figure 3  32-way penalty vs warps per SM and waves (or resident warps)   results/<gpu>/occupancy.json
Figure 4  placement shares among barrier-guarded branches; unguarded     results/static/figure4.json
Table II  control-flow ISA features per architecture (markdown)          results/static/table2.json
Each figure is written as PNG and SVG into --out, plus index.md naming the inputs of each and what was left
out. The paper's numbers (results/reference/paper-2607.23402.json) appear only as series labelled "paper",
the slopes predicted from SASS only as "predicted". A figure whose
inputs are missing is skipped with a message (exit 0); a --results that is not a folder, or a malformed
input (wrong types, a value that is not a finite number, zero or negative where the axis is logarithmic),
is an error: one line, exit 2, and no figure is drawn from it. Every file is written atomically. Output is byte-for-byte deterministic for the
same inputs and matplotlib version.
"""
from __future__ import annotations

import sys
from pathlib import Path

from divbench import quality
from divbench import results as dr
from divbench import series
from divbench.cli import ArgumentParser, fail, tool_main
from divbench.figure_draw import finish, gpu_label, log2_axis, measured_color, setup_matplotlib
from divbench.figure_inputs import Skip
from divbench.figure_kway import fig1
from divbench.figure_occupancy import fig3
from divbench.figure_placement import fig4
from divbench.jsonio import InputError, OutputError, load_json, write_atomic
from divbench.pathargs import existing_dir
from divbench.paths import rel, repo_root
from divbench.predicted import load_predictions
from divbench.provenance import read_provenance
from divbench.table2 import table2

FIGURES = ("fig1", "fig2", "fig3", "fig4", "table2")


def fig2(ctx):
    runs = []
    for g in ctx.gpus:
        r = g.find("kway", ctx.body, ctx.map, with_metrics=True)
        if r is None:
            continue
        ser = series.efficiency_series(r)
        if ser["kernel"] or ser["region"]:
            runs.append((g, r, ser))
    if not runs:
        raise Skip(f"no k-way result with counter metrics ({dr.RATIO_METRIC}) under {rel(ctx.results)}; "
                   "run divbench --sweep k --metrics")
    plt = ctx.plt
    fig, ax = plt.subplots(figsize=(10.5, 5))
    allk = []
    for i, (g, r, ser) in enumerate(runs):
        color = measured_color(i)
        if ser["kernel"]:
            ks, vs = zip(*ser["kernel"])
            allk += ks
            ax.plot(ks, vs, "o-", color=color, ms=3.5, label=f"{gpu_label(g)}: whole kernel")
        if ser["region"]:
            ks, vs = zip(*ser["region"])
            allk += ks
            ax.plot(ks, vs, "s--", color=color, ms=3, lw=1, label=f"{gpu_label(g)}: region (zero-work twin subtracted)")
    if ctx.reference is not None:
        eff = ctx.reference["dynamic"]["efficiency"]
        ax.plot(eff["k"], eff["values"], "^:", color="#555555", ms=5,
                label="paper (§IV-B, Fig. 2): Ampere/Hopper/Blackwell×2")
        allk += eff["k"]
    kk = sorted(set(allk))
    ax.plot(kk, [32.0 / k for k in kk], "-", color="black", lw=0.8, alpha=0.6, label="ideal 32/k")
    log2_axis(ax, kk)
    ax.set_yscale("log", base=2)
    ax.set_yticks([1, 2, 4, 8, 16, 32])
    ax.set_yticklabels(["1", "2", "4", "8", "16", "32"])
    return finish(ctx, fig, ax, "figure2_efficiency", "paths k", "active threads per issued warp instruction",
                  "Figure 2: warp execution efficiency falls as 32/k"), [r.path for _, r, _ in runs]


DRAW = {"fig1": fig1, "fig2": fig2, "fig3": fig3, "fig4": fig4, "table2": table2}


class Ctx:
    pass


def provenance_line(p: Path) -> str:
    try:
        prov = read_provenance(load_json(p))
    except InputError:
        return f"`{rel(p)}`"
    bits = [v for v in (prov.device, prov.created, prov.git, prov.toolkit) if v]
    return f"`{rel(p)}`" + (f" ({', '.join(bits)})" if bits else "")


def parser(root: Path) -> ArgumentParser:
    ap = ArgumentParser(prog="figures", description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=root / "results", help="results folder (default: results/)")
    ap.add_argument("--reference", type=Path, default=None,
                    help="paper reference JSON (default: <results>/reference/paper-2607.23402.json; 'none' to leave out)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: <results>/figures)")
    ap.add_argument("--allow-disturbed", action="store_true",
                    help="draw results that divbench.quality judges disturbed (else exit 3 naming the file)")
    ap.add_argument("--only", default=",".join(FIGURES), help=f"comma list of {','.join(FIGURES)}")
    ap.add_argument("--body", default=dr.DEFAULT_BODY, help="k-way work body for figures 1-2 (default fma_chain)")
    ap.add_argument("--map", default=dr.DEFAULT_MAP, help="k-way lane map for figures 1-2 (default modulo)")
    ap.add_argument("--predicted", type=Path, default=None,
                    help="predicted slopes for figure 1 (default: <results>/predicted; 'none' to leave out)")
    return ap


def prepare_out(out: Path) -> list[Path]:
    """Creates the output folder when missing (before any drawing: an unwritable place fails first);
    returns the folders it created, innermost first, for remove_created() to take back on an error."""
    created = []
    p = out
    while not p.exists() and p != p.parent:
        created.append(p)
        p = p.parent
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{out}: cannot create the output folder ({e.strerror or e})") from None
    return created


def remove_created(created: list[Path]) -> None:
    for d in created:
        try:
            d.rmdir()  # only when still empty
        except OSError:
            return


@tool_main("figures")
def main(argv=None) -> int:
    root = repo_root()
    ap = parser(root)
    args = ap.parse_args(None if argv is None else [str(a) for a in argv])
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    bad = [x for x in only if x not in FIGURES]
    if bad or not only:
        ap.error(f"--only: unknown figure {', '.join(bad) or '(none)'}; choose from {', '.join(FIGURES)}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return fail("figures", "matplotlib is not installed (pip install -r scripts/deps/pip.txt)")
    ctx = Ctx()
    ctx.results = args.results
    ctx.out = args.out or args.results / "figures"
    ctx.body, ctx.map = args.body, args.map
    ctx.pending = {}  # path -> content: written only once every figure has been drawn
    ctx.notes = []    # (figure, text): what a figure left out and why, for index.md
    made, skipped, created = [], [], []
    try:
        existing_dir(args.results, "--results")
        if args.reference is not None and str(args.reference).lower() == "none":
            ctx.reference = None
        else:
            ctx.reference = dr.load_reference(args.reference or args.results / "reference" / "paper-2607.23402.json")
        ctx.gpus = dr.load_gpus([args.results])
        for r in (r for g in ctx.gpus for r in g.results if r.experiment == "kway" and not r.points):
            series.kway_series(r)  # a k-way sweep without points is bad input (exit 2) before it is untrustworthy
        for v in quality.refuse_untrustworthy([r for g in ctx.gpus for r in g.results], args.allow_disturbed):
            if not v.trustworthy:
                ctx.notes.append(("all", f"drawn with --allow-disturbed: {quality.describe(v)}"))
        pred_dir = args.predicted or args.results / "predicted"
        ctx.predictions = {} if str(pred_dir).lower() == "none" else load_predictions([pred_dir])
        created = prepare_out(ctx.out)
        ctx.plt = setup_matplotlib()
        messages = []  # printed once everything is written: an error is then the only line
        for name in only:
            try:
                outs, inputs = DRAW[name](ctx)
                made.append((name, outs, inputs))
                messages.append(f"figures: {name}: " + ", ".join(rel(o) for o in outs))
            except Skip as s:
                skipped.append((name, str(s)))
                messages.append(f"figures: skip {name}: {s}")
        if made and set(only) == set(FIGURES):
            write_index(ctx, made, skipped)
        for path, content in ctx.pending.items():
            write_atomic(path, content)
    except quality.NotComparable as e:
        remove_created(created)
        print(f"figures: {e}", file=sys.stderr)
        return quality.EXIT_NOT_COMPARABLE
    except (InputError, OutputError) as e:
        remove_created(created)
        return fail("figures", e)
    except BaseException:  # any other failure on data: the guard (tool_main) reports it; no --out left behind
        remove_created(created)
        raise
    print("\n".join(messages), file=sys.stderr)
    return 0


def write_index(ctx, made, skipped):
    lines = ["# Figures", "", "Generated by `python3 scripts/figures.py` from the committed JSON; series labelled",
             "\"paper\" come from results/reference/paper-2607.23402.json (the paper's printed numbers), series",
             "labelled \"predicted\" from results/predicted/ (slopes predicted from SASS, not measured).", ""]
    for name, outs, inputs in made:
        lines.append(f"## {name}")
        lines += [f"- output: `{o.name}`" for o in outs]
        lines += [f"- input: {provenance_line(i)}" for i in inputs]
        lines.append("")
    notes = [(n, t) for n, t in ctx.notes if n in {m for m, _, _ in made}]
    if notes:
        lines.append("## Left out of a figure")
        lines += [f"- {name}: {text}" for name, text in notes]
        lines.append("")
    if skipped:
        lines.append("## Not generated")
        lines += [f"- {name}: {why}" for name, why in skipped]
        lines.append("")
    ctx.pending[ctx.out / "index.md"] = "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
