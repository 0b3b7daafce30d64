"""Figure 1: the divergence cost T(k), from results/<gpu>/kway.json, in up to three panels:
  T(k)           the medians per k, log-log, one line per GPU, the ideal k-times line from T(1), and the
                 paper's s*k + c (dotted)
  s per arch     the slope relative to sm_90 (Hopper) per architecture, in three sets that are each
                 normalized within themselves (their work bodies differ): the paper's measured s, the slopes
                 predicted from SASS (results/predicted/sm_XX.json, labelled "predicted"), and the GPUs
                 measured here
  samples        where the results carry raw samples (points[].samples), their spread around the median per k
                 (min-max and 5th-95th percentile), which a median hides; left out, with a note in
                 index.md, when no result has samples
"""
from __future__ import annotations

from divbench import results as dr
from divbench import series
from divbench.figure_draw import (FAMILY_COLORS, PAPER_GPU_LABEL, gpu_label, log2_axis, measured_color, save)
from divbench.figure_inputs import Skip
from divbench.jsonio import InputError
from divbench.paths import rel
from divbench.predicted import model_uncertainty, ratio_interval

BASE_ARCH = "sm_90"


def _arch(cc: str) -> str:
    return f"sm_{cc.replace('.', '')}"


def prediction_intervals(ctx, runs) -> dict[str, tuple[float, float]]:
    """{arch: (lo, hi)} of each predicted ratio to sm_90: the placement band and the model's out-of-sample
    error beyond it, from the loop_cost.json beside the results (predicted.ratio_interval); {} without one."""
    preds = {a: p for a, p in ctx.predictions.items() if p.for_body(ctx.body).s is not None}
    unc = model_uncertainty([r.path for _, r in runs])
    if unc is None or BASE_ARCH not in preds:
        return {}
    band, err, where = unc
    base = preds[BASE_ARCH].for_body(ctx.body).s
    ctx.notes.append(("fig1", f"predicted ratios drawn with their interval: placement band +{band:g} cycles per "
                              f"iteration and the model's out-of-sample error beyond it, {100 * err:.1f}% ({rel(where)})"))
    return {a: ratio_interval(p.for_body(ctx.body).s, base, p.n, band, err) for a, p in preds.items() if a != BASE_ARCH}


def slope_sets(ctx, runs) -> dict[str, dict[str, float]]:
    """{set label: {arch: s / s of sm_90 in that set}} for the paper, the predictions and the GPUs measured
    here. A set without an sm_90 value of its own: predictions fall back to the measured sm_90 GPU (the same
    body; compared per iteration), measured GPUs to nothing (that set is left out, with a note)."""
    out: dict[str, dict[str, float]] = {}
    ref = ctx.reference
    if ref is not None:
        slopes = ref["dynamic"]["slope_cycles_per_path"]["values"]
        paper = {ref["gpus"][k]["arch"]: v for k, v in slopes.items() if v and k in ref["gpus"]}
        if paper.get(BASE_ARCH):
            out["paper (measured; its own body)"] = {a: v / paper[BASE_ARCH] for a, v in paper.items()}
    measured = {}
    per_iter = {}
    for g, r in runs:
        if "s" in r.fit:
            s = dr.number(r.fit["s"], "fit.s", r.path, positive=True)
            measured.setdefault(_arch(g.cc), s)
            iters = r.config.get("iters")
            if isinstance(iters, int) and not isinstance(iters, bool) and iters > 0:
                per_iter.setdefault(_arch(g.cc), s / iters)
    if measured.get(BASE_ARCH):
        out["measured here"] = {a: v / measured[BASE_ARCH] for a, v in measured.items()}
    elif measured:
        ctx.notes.append(("fig1", f"no GPU of {BASE_ARCH} measured: the measured slopes are not in the per-architecture panel"))
    preds = {a: p for a, p in ctx.predictions.items() if p.for_body(ctx.body).s is not None}
    for a, p in ctx.predictions.items():
        if a not in preds:
            ctx.notes.append(("fig1", f"{a}: {p.for_body(ctx.body).why} ({rel(p.path)})"))
    if preds:
        label = f"predicted (SASS model, {ctx.body}; not measured)"
        if BASE_ARCH in preds:
            base = preds[BASE_ARCH].for_body(ctx.body).s
            out[label] = {a: p.for_body(ctx.body).s / base for a, p in preds.items()}
        elif per_iter.get(BASE_ARCH):
            out[label] = {a: p.for_body(ctx.body).s / p.n / per_iter[BASE_ARCH] for a, p in preds.items()}
            ctx.notes.append(("fig1", f"no prediction for {BASE_ARCH}: predictions are relative to the measured "
                                      f"{BASE_ARCH} s per iteration"))
        else:
            ctx.notes.append(("fig1", f"predictions not drawn: neither a prediction nor a measurement of {BASE_ARCH} to relate them to"))
    return out


SET_STYLE = {"paper": dict(marker="o", mfc="white", color="#333333"),
             "predicted": dict(marker="D", color="#d62728"),
             "measured": dict(marker="*", ms=10, color="#ff7f0e")}


def draw_slopes(ax, sets: dict[str, dict[str, float]], intervals: dict[str, tuple[float, float]] | None = None):
    arches = sorted({a for v in sets.values() for a in v}, key=lambda a: int(a.split("_")[1]))
    x = {a: i for i, a in enumerate(arches)}
    offsets = {label: (j - (len(sets) - 1) / 2) * 0.18 for j, label in enumerate(sets)}
    for label, vals in sets.items():
        style = dict(SET_STYLE[label.split(" ")[0]])
        ms = style.pop("ms", 6)
        pts = sorted((x[a] + offsets[label], v) for a, v in vals.items())
        ax.plot([p for p, _ in pts], [v for _, v in pts], ls="none", ms=ms, label=label, **style)
        if intervals and label.startswith("predicted"):
            shown = [(x[a] + offsets[label], v, intervals[a]) for a, v in vals.items() if a in intervals]
            ax.errorbar([p for p, _, _ in shown], [v for _, v, _ in shown],
                        yerr=[[v - iv[0] for _, v, iv in shown], [iv[1] - v for _, v, iv in shown]],
                        ls="none", color=style["color"], lw=0.8, capsize=2)
        for px, v in pts:
            if v != 1.0:  # the set's own sm_90 is 1 by definition
                ax.annotate(f"{v:.2f}", (px, v), xytext=(4, -3), textcoords="offset points", fontsize=6, color=style["color"])
    ax.axhline(1.0, color="black", lw=0.6, alpha=0.5)
    ax.set_xticks(range(len(arches)))
    ax.set_xticklabels(arches, rotation=30, ha="right")
    ax.set_xlim(-0.6, len(arches) - 0.4)
    ax.set_ylabel(f"s / s of {BASE_ARCH} (within each set)")
    ax.set_title("slope per architecture", fontsize=9)
    ax.legend(loc="upper right", fontsize=6)


def draw_samples(ax, spreads):
    """spreads: [(label, colour, [SampleSpread])]; one min-max line and one 5-95% bar per k and GPU."""
    allk, extreme = [], 0.0
    for j, (label, color, ss) in enumerate(spreads):
        shift = 2 ** ((j - (len(spreads) - 1) / 2) * 0.06)
        ks = [s.k * shift for s in ss]
        allk += [s.k for s in ss]
        ax.vlines(ks, [s.lo for s in ss], [s.hi for s in ss], color=color, lw=0.8)
        ax.vlines(ks, [s.p5 for s in ss], [s.p95 for s in ss], color=color, lw=3.5, alpha=0.7)
        ax.plot(ks, [0.0] * len(ks), "_", color=color, ms=6)
        constant = sum(s.constant for s in ss)
        n = sorted({s.n for s in ss})
        counts = f"{n[0]}" if len(n) == 1 else f"{n[0]}–{n[-1]}"
        ax.plot([], [], color=color, lw=3.5, alpha=0.7,
                label=f"{label}: {counts} samples per k; 5–95% (thick), min–max (thin); constant at {constant} of {len(ss)} k")
        extreme = max([extreme] + [abs(s.lo) for s in ss] + [abs(s.hi) for s in ss])
    log2_axis(ax, allk)
    ax.set_ylim(-max(extreme * 1.15, 0.05), max(extreme * 1.15, 0.05))
    ax.set_xlabel("paths k")
    ax.set_ylabel("sample / median − 1 [%]")
    ax.set_title("raw samples around the median, per k", fontsize=9)
    ax.legend(loc="upper left", fontsize=6)


def draw_tk(ctx, ax, runs):
    allk = []
    for i, (g, r) in enumerate(runs):
        ks, ts = series.kway_series(r)
        if len(ks) < 2:
            raise InputError(f"{r.path}: a k-way sweep needs at least two points")
        allk += ks
        color = measured_color(i)
        fit = r.fit
        extra = ""
        if "s" in fit and "r2" in fit:
            s = dr.number(fit["s"], "fit.s", r.path)
            c = dr.number(fit.get("c", 0), "fit.c", r.path)
            extra = f": s={s / 1e3:.1f}k c={c:.0f} R²={series.fmt_r2(dr.number(fit['r2'], 'fit.r2', r.path))}"
            if "s_layout_spread_rel" in r.summary:
                extra += f" (s ±{100 * dr.number(r.summary['s_layout_spread_rel'], 'summary.s_layout_spread_rel', r.path):.2f}% over placements)"
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
    ax.set_xlabel("paths k")
    ax.set_ylabel("region cycles (median at each k)")
    ax.set_title("T(k), median per k", fontsize=9)
    ax.legend(loc="upper left", fontsize=6)


def fig1(ctx):
    runs = [(g, g.find("kway", ctx.body, ctx.map)) for g in ctx.gpus]
    runs = [(g, r) for g, r in runs if r is not None]
    if not runs:
        raise Skip(f"no k-way result (experiment 'kway', body {ctx.body}, map {ctx.map}) under {rel(ctx.results)}")
    spreads = []
    for i, (g, r) in enumerate(runs):
        ss = series.kway_sample_spread(r)
        if ss:
            spreads.append((gpu_label(g), measured_color(i), ss))
        else:
            ctx.notes.append(("fig1", f"{rel(r.path)} has no raw samples (run with --no-samples, or written before "
                                      "samples existed): no per-k distribution drawn from it"))
    sets = slope_sets(ctx, runs)
    if sum(len(v) for v in sets.values()) <= 1:
        sets = {}  # one GPU and nothing to set beside it: a lone 1.0 says nothing
    fig = ctx.plt.figure(figsize=(13, 8.6 if spreads else 5.6), layout="constrained")
    grid = fig.add_gridspec(2 if spreads else 1, 2 if sets else 1, width_ratios=[2.4, 1] if sets else [1],
                            height_ratios=[1.5, 1] if spreads else [1])
    draw_tk(ctx, fig.add_subplot(grid[0, 0]), runs)
    if sets:
        draw_slopes(fig.add_subplot(grid[:, 1] if spreads else grid[0, 1]), sets, prediction_intervals(ctx, runs))
    if spreads:
        draw_samples(fig.add_subplot(grid[1, 0]), spreads)
    fig.suptitle("Figure 1: divergence cost T(k) is linear in the number of paths", fontsize=11)
    return save(ctx, fig, "figure1_kway"), [r.path for _, r in runs] + [p.path for p in ctx.predictions.values()]
