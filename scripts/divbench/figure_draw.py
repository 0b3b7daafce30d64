"""What the figures share about drawing: the deterministic matplotlib setup, the colours, the log2 axis, the
GPU label, and keeping each figure's PNG and SVG in memory until every figure is drawn (figures.main
writes them then, atomically). Needs matplotlib (scripts/deps/pip.txt)."""
from __future__ import annotations

import io
from pathlib import Path

from divbench import results as dr

FAMILY_COLORS = {"Pascal": "#8c564b", "Volta": "#7f7f7f", "Turing": "#bcbd22", "Ampere": "#2ca02c",
                 "Ada": "#17becf", "Hopper": "#1f77b4", "Blackwell": "#d62728", "unknown": "#9467bd"}
MEASURED_COLORS = ("#ff7f0e", "#1f77b4", "#9467bd", "#e377c2", "#17becf", "#bcbd22", "#2ca02c", "#d62728")
PAPER_GPU_LABEL = {"pascal": "Pascal sm_61", "ampere": "Ampere", "hopper": "Hopper",
                   "blackwell_sm110": "Blackwell sm_110", "blackwell_sm120": "Blackwell sm_120"}
LOG2_TICKS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)


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


def measured_color(i: int) -> str:
    return MEASURED_COLORS[i % len(MEASURED_COLORS)]


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
    ticks = [v for v in LOG2_TICKS if min(values) <= v <= max(values)]
    ax.set_xscale("log", base=2)
    if ticks:
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])


def gpu_label(g: dr.Gpu) -> str:
    return f"{g.name} (sm_{g.cc.replace('.', '')}, {g.key})"
