"""Rank statistics for the gate (numpy only): the Mann–Whitney U test and Holm's step-down correction.

mann_whitney_u: two-sided, normal approximation with the tie correction of the variance and a continuity
correction of 0.5 (the textbook large-sample form; scipy.stats.mannwhitneyu(method="asymptotic") gives the
same p). The approximation is trusted from MWU_MIN_SAMPLES per side; below that the gate warns."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MWU_MIN_SAMPLES = 8


def rankdata(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of `x`, ties given the mean of the ranks they span."""
    x = np.asarray(x)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    # boundaries of runs of equal values in sorted order
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], xs.size]
    mean_rank = (starts + ends + 1) / 2.0          # mean of ranks starts+1 .. ends
    ranks = np.empty(x.size, dtype=float)
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


@dataclass(frozen=True)
class MannWhitney:
    u: float            # U of the second sample (the number of pairs where b > a, ties counting 1/2)
    z: float            # standardized |U - mean| after the continuity correction (0 when no spread)
    p: float            # two-sided p-value
    p_b_greater: float  # U / (n_a n_b): the probability that a value of b exceeds one of a


def mann_whitney_u(a, b) -> MannWhitney:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    na, nb = a.size, b.size
    if na == 0 or nb == 0:
        raise ValueError("Mann-Whitney U needs at least one value on each side")
    ranks = rankdata(np.concatenate([a, b]))
    u_b = float(ranks[na:].sum() - nb * (nb + 1) / 2.0)
    n = na + nb
    _, counts = np.unique(np.concatenate([a, b]), return_counts=True)
    ties = float(((counts.astype(float) ** 3) - counts).sum())
    var = na * nb / 12.0 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    mean = na * nb / 2.0
    if var <= 0.0:
        return MannWhitney(u=u_b, z=0.0, p=1.0, p_b_greater=u_b / (na * nb))
    z = max(abs(u_b - mean) - 0.5, 0.0) / math.sqrt(var)
    return MannWhitney(u=u_b, z=z, p=min(1.0, math.erfc(z / math.sqrt(2.0))), p_b_greater=u_b / (na * nb))


def holm(pvalues: list[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values (same order as given): reject where adjusted p < alpha keeps the
    family-wise error rate at alpha over all the tests."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out
