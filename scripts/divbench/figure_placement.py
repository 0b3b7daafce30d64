"""Figure 4: reconvergence placement per architecture, from results/static/figure4.json, in two panels:
  guarded     the shares before / at / after (deferred) the IPDom among the divergent branches a barrier
              guards (BSSY/BSYNC; SSY/SYNC before Volta), stacked to 100%, with their number and the
              deferred count on each bar: what the placement question is about
  unguarded   the branches no barrier guards (counted, not placed: most of the corpus's branches, which
              would flatten the guarded bars if stacked with them)
The paper's deferred counts (§V-B) are named in the title of the first panel."""
from __future__ import annotations

from divbench import series
from divbench.figure_draw import save
from divbench.figure_inputs import static_input

PLACEMENT_COLORS = {"before": "#9ecae1", "at": "#3182bd", "after": "#e6550d", "unguarded": "#bdbdbd"}
LABELS = {"before": "before IPDom (early)", "at": "at IPDom", "after": "after IPDom (deferred)"}


def draw_guarded(ax, names, counts):
    bottom = [0.0] * len(names)
    shares = {a: series.guarded_shares(counts[a]) for a in names}
    for cls in series.GUARDED_CLASSES:
        vals = [100 * shares[a][1].get(cls, 0.0) for a in names]
        ax.bar(names, vals, bottom=bottom, color=PLACEMENT_COLORS[cls], label=LABELS[cls], edgecolor="white", lw=0.5)
        bottom = [b + v for b, v in zip(bottom, vals)]
    for i, a in enumerate(names):
        guarded, sh = shares[a]
        if not sh:
            ax.annotate("no guarded branch", (i, 2), ha="center", va="bottom", rotation=90, fontsize=7)
            continue
        deferred = counts[a].get("after", 0.0)
        top = f"n={guarded:g}" + (f"\n{deferred:g} after" if deferred else "")
        ax.annotate(top, (i, 100), ha="center", va="bottom", fontsize=6.5, xytext=(0, 2), textcoords="offset points",
                    color=PLACEMENT_COLORS["after"] if deferred else "black")
        ax.annotate(f"{100 * sh['at']:.0f}%", (i, 100 * sh["before"] + 50 * sh["at"]), ha="center", va="center",
                    fontsize=7, color="white")
    ax.set_ylim(0, 118)
    ax.set_ylabel("share of barrier-guarded divergent branches [%]")


def draw_unguarded(ax, names, counts):
    vals = [counts[a].get("unguarded", 0.0) for a in names]
    ax.bar(names, vals, color=PLACEMENT_COLORS["unguarded"], edgecolor="white", lw=0.5)
    for i, v in enumerate(vals):
        ax.annotate(f"{v:g}", (i, v), ha="center", va="bottom", fontsize=6.5, xytext=(0, 2), textcoords="offset points")
    ax.set_ylim(0, max(vals + [1.0]) * 1.12)
    ax.set_ylabel("divergent branches without a barrier")
    ax.set_title("unguarded (no barrier): counted, not placed", fontsize=9)


def fig4(ctx):
    path, _, arches = static_input(ctx, "figure4.json")
    counts = {a: series.placement_counts(e, a, path) for a, e in arches.items()}
    names = list(arches)
    width = max(8.0, 0.55 * len(names) + 3.0)
    fig, (left, right) = ctx.plt.subplots(1, 2, figsize=(width + 0.4 * width, 5.0), layout="constrained",
                                          gridspec_kw={"width_ratios": [1.6, 1]})
    for ax in (left, right):
        ax.set_axisbelow(True)
    draw_guarded(left, names, counts)
    title = "barrier-guarded branches: before / at / after the IPDom"
    if ctx.reference is not None:
        f4 = ctx.reference["static"]["figure4"]
        title += "\npaper (§V-B, Fig. 4), deferred: " + ", ".join(f"{k} {v}" for k, v in f4["deferred_after_ipdom"].items())
    left.set_title(title, fontsize=9)
    draw_unguarded(right, names, counts)
    fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=8)
    for ax in (left, right):
        ctx.plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.suptitle("Figure 4: reconvergence placement vs the IPDom, per architecture", fontsize=11)
    return save(ctx, fig, "figure4_placement"), [path]
