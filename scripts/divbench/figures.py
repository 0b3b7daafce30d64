"""Regenerate the paper's figures from divbench's committed JSON.

  python3 scripts/figures.py [--results results] [--out results/figures] [--only fig1,fig2,...]

Figure 1  T(k) per GPU on log-log axes with the ideal k-times line      results/<gpu>/kway.json
Figure 2  active threads per instruction vs k with 32/k                  metrics in results/<gpu>/kway.json
Figure 3  32-way penalty vs resident warps                               results/<gpu>/occupancy.json
Figure 4  reconvergence placement per architecture (stacked bars)        results/static/figure4.json
Table II  control-flow ISA features per architecture (markdown)          results/static/table2.json
Each figure is written as PNG and SVG into --out, plus index.md naming the inputs of each. The paper's
numbers (results/reference/paper-2607.23402.json) appear only as series labelled "paper". A figure whose
inputs are missing is skipped with a message (exit 0); a malformed input (wrong types, a value that is not
a finite number, zero or negative where the axis is logarithmic) is an error: one line, exit 2, and no
figure is drawn from it. Every file is written atomically. Output is byte-for-byte deterministic for the
same inputs and matplotlib version.
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

from divbench import results as dr
from divbench import series
from divbench.cli import ArgumentParser, fail
from divbench.jsonio import InputError, OutputError, load_json, write_atomic
from divbench.paths import rel, repo_root
from divbench.provenance import read_provenance
from divbench.figure_inputs import Skip, static_input
from divbench.table2 import table2

FIGURES = ("fig1", "fig2", "fig3", "fig4", "table2")
FAMILY_COLORS = {"Pascal": "#8c564b", "Volta": "#7f7f7f", "Turing": "#bcbd22", "Ampere": "#2ca02c",
                 "Ada": "#17becf", "Hopper": "#1f77b4", "Blackwell": "#d62728", "unknown": "#9467bd"}
MEASURED_COLORS = ("#ff7f0e", "#1f77b4", "#9467bd", "#e377c2", "#17becf", "#bcbd22", "#2ca02c", "#d62728")
PLACEMENT_COLORS = {"before": "#9ecae1", "at": "#3182bd", "after": "#e6550d", "unguarded": "#bdbdbd"}
PAPER_GPU_LABEL = {"pascal": "Pascal sm_61", "ampere": "Ampere", "hopper": "Hopper",
                   "blackwell_sm110": "Blackwell sm_110", "blackwell_sm120": "Blackwell sm_120"}


def setup_matplotlib():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "svg.hashsalt": "divbench",      # stable ids in the SVG
        "svg.fonttype": "path",
        "font.family": "DejaVu Sans",
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "legend.fontsize": 7,
    })
    import matplotlib.pyplot as plt
    return plt


def save(ctx, fig, stem: str) -> list[Path]:
    """PNG and SVG of `fig`, kept in memory until every figure is drawn (main writes them)."""
    paths = [ctx.out / f"{stem}.png", ctx.out / f"{stem}.svg"]
    for path, fmt, meta in ((paths[0], "png", {"Software": None}), (paths[1], "svg", {"Date": None, "Creator": None})):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata=meta)
        ctx.pending[path] = buf.getvalue()
    ctx.plt.close(fig)
    return paths


def finish(ctx, fig, ax, stem: str, xlabel: str | None, ylabel: str, title: str, **title_kw) -> list[Path]:
    """Labels, title, the legend outside on the right, then PNG + SVG."""
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, **title_kw)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    return save(ctx, fig, stem)


def log2_axis(ax, values):
    ticks = [v for v in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
             if min(values) <= v <= max(values)]
    ax.set_xscale("log", base=2)
    if ticks:
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])


def gpu_label(g: dr.Gpu) -> str:
    return f"{g.name} (sm_{g.cc.replace('.', '')}, {g.key})"


def fig1(ctx) -> tuple[list[Path], list[Path]]:
    runs = [(g, g.find("kway", ctx.body, ctx.map)) for g in ctx.gpus]
    runs = [(g, r) for g, r in runs if r is not None]
    if not runs:
        raise Skip(f"no k-way result (experiment 'kway', body {ctx.body}, map {ctx.map}) under {rel(ctx.results)}")
    plt = ctx.plt
    fig, ax = plt.subplots(figsize=(10.5, 5))
    allk = []
    for i, (g, r) in enumerate(runs):
        ks, ts = series.kway_series(r)
        if len(ks) < 2:
            raise InputError(f"{r.path}: a k-way sweep needs at least two points")
        allk += ks
        color = MEASURED_COLORS[i % len(MEASURED_COLORS)]
        fit = r.fit
        extra = ""
        if "s" in fit and "r2" in fit:
            s = dr.number(fit["s"], "fit.s", r.path)
            c = dr.number(fit.get("c", 0), "fit.c", r.path)
            extra = f": s={s / 1e3:.1f}k c={c:.0f} R²={series.fmt_r2(dr.number(fit['r2'], 'fit.r2', r.path))}"
        ax.plot(ks, ts, "o-", color=color, ms=3.5, lw=1.5, label=f"{gpu_label(g)}{extra}")
        t1 = ts[0] / ks[0]
        ax.plot([ks[0], ks[-1]], [t1 * ks[0], t1 * ks[-1]], "--", color=color, lw=0.8, alpha=0.7,
                label=f"ideal k× from T({ks[0]:g}) of {g.key}")
    ref = ctx.reference
    if ref is not None:
        slopes = ref["dynamic"]["slope_cycles_per_path"]["values"]
        consts = ref["dynamic"]["constant_cycles"]["values"]
        kk = [1, 2, 4, 8, 16, 32]
        for key, s in slopes.items():
            c = consts.get(key) or 0.0
            fam = ref["gpus"].get(key, {}).get("family", "unknown")
            ax.plot(kk, [s * k + c for k in kk], ":", color=FAMILY_COLORS.get(fam, "#333333"), lw=1.2,
                    label=f"paper (s·k+c, §IV-A): {PAPER_GPU_LABEL.get(key, key)} s={s / 1e3:.1f}k")
        allk += kk
    log2_axis(ax, allk)
    ax.set_yscale("log")
    return finish(ctx, fig, ax, "figure1_kway", "paths k", "region cycles (median over launches)",
                  "Figure 1: divergence cost T(k) is linear in the number of paths"), [r.path for _, r in runs]


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
        color = MEASURED_COLORS[i % len(MEASURED_COLORS)]
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


def fig3(ctx):
    runs = [(g, g.find("occupancy")) for g in ctx.gpus]
    runs = [(g, r) for g, r in runs if r is not None]
    if not runs:
        raise Skip(f"no occupancy result (experiment 'occupancy') under {rel(ctx.results)}")
    plt = ctx.plt
    fig, ax = plt.subplots(figsize=(10.5, 4.5))
    allx, ally, xkeys = [], [], set()
    styles = ("o-", "s--", "^-.", "d:")
    for i, (g, r) in enumerate(runs):
        xkey, lines = series.occupancy_series(r)
        xkeys.add(xkey)
        color = MEASURED_COLORS[i % len(MEASURED_COLORS)]
        for j, (name, pts) in enumerate(sorted(lines.items())):
            xs, ys = zip(*pts)
            allx += xs
            ally += ys
            ax.plot(xs, ys, styles[j % len(styles)], color=color, ms=3.5, lw=1.2, label=f"{gpu_label(g)}: {name}")
    if ctx.reference is not None:
        occ = ctx.reference["dynamic"]["occupancy_penalty"]["values"]
        if "hopper" in occ:
            lo, hi = occ["hopper"]
            ax.axhspan(lo, hi, color="#1f77b4", alpha=0.10, label=f"paper (§IV-D, Fig. 3): {lo:g}–{hi:g}× post-ITS")
        if "pascal" in occ:
            plo, phi = occ["pascal"]
            ax.axhspan(plo, phi, fill=False, hatch="///", edgecolor="#8c564b", lw=0,
                       label=f"paper: {plo:g}–{phi:g}× Pascal")
    ax.axhline(32, color="black", lw=0.8, alpha=0.6, label="ideal 32×")
    log2_axis(ax, allx)
    ax.set_ylim(0, max([36.0] + [1.08 * y for y in ally]))
    return finish(ctx, fig, ax, "figure3_occupancy", " / ".join(sorted(xkeys)).replace("_", " "),
                  "32-way penalty T(32)/T(1)", "Figure 3: the divergence penalty is occupancy-invariant"), \
        [r.path for _, r in runs]


def fig4(ctx):
    path, data, arches = static_input(ctx, "figure4.json")
    counts = {a: series.placement_counts(e, a, path) for a, e in arches.items()}
    classes = [c for c in series.PLACEMENT_CLASSES if any(c in v for v in counts.values())]
    plt = ctx.plt
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(arches) + 4.5), 4.5))
    ax.set_axisbelow(True)
    names = list(arches)
    bottom = [0.0] * len(names)
    labels = {"before": "before IPDom", "at": "at IPDom", "after": "after IPDom (deferred)",
              "unguarded": "unguarded (no barrier)"}
    for cls in classes:
        vals = [counts[a].get(cls, 0.0) for a in names]
        ax.bar(names, vals, bottom=bottom, color=PLACEMENT_COLORS[cls], label=labels[cls], edgecolor="white", lw=0.5)
        bottom = [b + v for b, v in zip(bottom, vals)]
    for i, a in enumerate(names):
        if "after" in counts[a]:
            ax.annotate(f"{counts[a]['after']:g}", (i, bottom[i]), ha="center", va="bottom", fontsize=7,
                        color=PLACEMENT_COLORS["after"], xytext=(0, 2), textcoords="offset points")
    if ctx.reference is not None:
        f4 = ctx.reference["static"]["figure4"]
        text = "paper (§V-B, Fig. 4), deferred: " + ", ".join(f"{k} {v}" for k, v in f4["deferred_after_ipdom"].items())
        ax.text(0.01, 0.99, text, transform=ax.transAxes, ha="left", va="top", fontsize=7,
                bbox={"boxstyle": "round", "fc": "white", "ec": "#999999", "alpha": 0.9})
    ax.set_ylim(0, max(bottom) * 1.18 if max(bottom) > 0 else 1)
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    return finish(ctx, fig, ax, "figure4_placement", None, "divergent branches",
                  "Figure 4: reconvergence placement vs the IPDom (deferred count on top)", fontsize=10), [path]


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
    ap.add_argument("--only", default=",".join(FIGURES), help=f"comma list of {','.join(FIGURES)}")
    ap.add_argument("--body", default=dr.DEFAULT_BODY, help="k-way work body for figures 1-2 (default fma_chain)")
    ap.add_argument("--map", default=dr.DEFAULT_MAP, help="k-way lane map for figures 1-2 (default modulo)")
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
    made, skipped, created = [], [], []
    try:
        if args.reference is not None and str(args.reference).lower() == "none":
            ctx.reference = None
        else:
            ctx.reference = dr.load_reference(args.reference or args.results / "reference" / "paper-2607.23402.json")
        ctx.gpus = dr.load_gpus([args.results]) if args.results.is_dir() else []
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
    except (InputError, OutputError) as e:
        remove_created(created)
        return fail("figures", e)
    print("\n".join(messages), file=sys.stderr)
    return 0


def write_index(ctx, made, skipped):
    lines = ["# Figures", "", "Generated by `python3 scripts/figures.py` from the committed JSON; series labelled",
             "\"paper\" come from results/reference/paper-2607.23402.json (the paper's printed numbers).", ""]
    for name, outs, inputs in made:
        lines.append(f"## {name}")
        lines += [f"- output: `{o.name}`" for o in outs]
        lines += [f"- input: {provenance_line(i)}" for i in inputs]
        lines.append("")
    if skipped:
        lines.append("## Not generated")
        lines += [f"- {name}: {why}" for name, why in skipped]
        lines.append("")
    ctx.pending[ctx.out / "index.md"] = "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
