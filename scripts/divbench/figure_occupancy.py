"""Figure 3: the 32-way penalty T(32)/T(1) while residency grows, from results/<gpu>/occupancy.json, against
the paper's 28-31x band. Two shapes of the sweep (docs/figures.md):
  warps/SM sweep  summary.series: x = warps launched per SM = resident warps per SM (on every SM) x waves
                  (1 = all resident; 2 and 4 = oversubscribed launches, marked, right of a dotted line at
                  the resident maximum); the penalty from the raw kernel event times where the result
                  has it (solid: a lower bound, the launch overhead is in both times) with the bounded
                  correction where it is informative (filled diamonds), else from kernel times
                  corrected by an empty kernel's launch overhead (solid), and the per-warp region
                  penalty (small hollow markers; grey crosses where the run flags it as not steady
                  state)
  first sweep     summary.pairs (the committed results/h200/occupancy.json): x = total resident warps,
                  region and kernel penalty per residency series
A GPU of each shape gets its own panel when both are present."""
from __future__ import annotations

from divbench import series
from divbench.figure_draw import gpu_label, log2_axis, measured_color, save
from divbench.figure_inputs import Skip
from divbench.paths import rel

WAVE_MARKERS = {2.0: "s", 4.0: "^"}


def paper_band(ctx, ax):
    if ctx.reference is None:
        return
    occ = ctx.reference["dynamic"]["occupancy_penalty"]["values"]
    if "hopper" in occ:
        lo, hi = occ["hopper"]
        ax.axhspan(lo, hi, color="#1f77b4", alpha=0.10, label=f"paper (§IV-D, Fig. 3): {lo:g}–{hi:g}× post-ITS")
    if "pascal" in occ:
        plo, phi = occ["pascal"]
        ax.axhspan(plo, phi, fill=False, hatch="///", edgecolor="#8c564b", lw=0, label=f"paper: {plo:g}–{phi:g}× Pascal")


def draw_grid(ax, runs):
    """The warps-per-SM sweep (summary.series): [(i, gpu, [OccupancyPoint])], x = warps launched per SM (resident warps x waves).
    Returns the values drawn."""
    xs, ys = [], []
    for i, g, pts in runs:
        color = measured_color(i)
        pts = sorted(pts, key=lambda p: (p.warps_per_sm * p.waves, p.waves))
        x = [p.warps_per_sm * p.waves for p in pts]
        raw = all(p.raw_penalty is not None for p in pts)
        main = [p.raw_penalty if raw else p.penalty for p in pts]
        ax.plot(x, main, "o-", color=color, ms=4, lw=1.3,
                label=f"{gpu_label(g)}: " + ("raw kernel event times (a lower bound)" if raw
                                             else "kernel time (launch overhead subtracted)"))
        bounded = [p for p in pts if p.bounded_penalty is not None]
        if raw and bounded:
            ax.plot([p.warps_per_sm * p.waves for p in bounded], [p.bounded_penalty for p in bounded], "D", color=color,
                    ms=5, label=f"{gpu_label(g)}: launch overhead subtracted, where the correction is informative")
            ys += [p.bounded_penalty for p in bounded]
        for waves, marker in WAVE_MARKERS.items():
            over = [p for p in pts if p.waves == waves]
            if over:
                ax.plot([p.warps_per_sm * p.waves for p in over],
                        [(p.raw_penalty if raw else p.penalty) for p in over], marker, color=color, ms=7,
                        mfc="none", label=f"{gpu_label(g)}: {waves:g} waves (oversubscribed)")
        for steady, style, what in ((True, dict(marker="o", mfc="white", color=color), "region cycles per warp"),
                                    (False, dict(marker="x", color="#888888"), "region cycles, not steady state")):
            sel = [p for p in pts if p.region_penalty is not None and (p.steady_state is not False) == steady]
            if sel:
                ax.plot([p.warps_per_sm * p.waves for p in sel], [p.region_penalty for p in sel], ls="none", ms=3.5,
                        label=f"{gpu_label(g)}: {what}", **style)
        resident = [p.warps_per_sm for p in pts if p.waves == 1]
        if resident and any(p.waves > 1 for p in pts):
            ax.axvline(max(resident), color=color, lw=0.8, ls=":", alpha=0.8)
            ax.annotate("all resident ← → oversubscribed", (max(resident), 3), ha="center", fontsize=6.5, color=color)
        xs += x
        ys += main + [p.region_penalty for p in pts if p.region_penalty is not None]
    return xs, ys


def draw_pairs(ax, runs):
    """First shape: [(i, gpu, result)] with summary.pairs (or penalty keys on the points)."""
    xs, ys, xkeys = [], [], set()
    styles = ("o-", "s--", "^-.", "d:")
    for i, g, r in runs:
        xkey, lines = series.occupancy_series(r)
        xkeys.add(xkey)
        for j, (name, pts) in enumerate(sorted(lines.items())):
            px, py = zip(*pts)
            xs += px
            ys += py
            ax.plot(px, py, styles[j % len(styles)], color=measured_color(i), ms=3.5, lw=1.2, label=f"{gpu_label(g)}: {name}")
    return xs, ys, " / ".join(sorted(xkeys)).replace("_", " ")


def finish_axes(ctx, ax, xs, ys, xlabel, title):
    paper_band(ctx, ax)
    ax.axhline(32, color="black", lw=0.8, alpha=0.6, label="ideal 32×")
    log2_axis(ax, xs)
    ax.set_ylim(0, max([36.0] + [1.08 * y for y in ys]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("32-way penalty T(32)/T(1)")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="lower left", fontsize=6)


def fig3(ctx):
    found = [(i, g, g.find("occupancy")) for i, g in enumerate(ctx.gpus)]
    found = [(i, g, r) for i, g, r in found if r is not None]
    if not found:
        raise Skip(f"no occupancy result (experiment 'occupancy') under {rel(ctx.results)}")
    grid, pairs = [], []
    for i, g, r in found:
        pts = series.occupancy_grid(r)
        (grid.append((i, g, pts)) if pts is not None else pairs.append((i, g, r)))
    panels = [p for p in (grid, pairs) if p]
    fig, axes = ctx.plt.subplots(1, len(panels), figsize=(7.5 * len(panels) + 3, 5.2), layout="constrained", squeeze=False)
    axes = list(axes[0])
    if grid:
        xs, ys = draw_grid(axes[0], grid)
        finish_axes(ctx, axes[0], xs, ys, "warps launched per SM (resident warps per SM × waves)", "by warps per SM and waves")
    if pairs:
        ax = axes[-1]
        xs, ys, xlabel = draw_pairs(ax, pairs)
        finish_axes(ctx, ax, xs, ys, xlabel, "by resident warps (first occupancy sweep)")
    fig.suptitle("Figure 3: the divergence penalty is occupancy-invariant", fontsize=11)
    return save(ctx, fig, "figure3_occupancy"), [r.path for _, _, r in found]
