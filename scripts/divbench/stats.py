"""Rank statistics for the gate: the Mann–Whitney U test (scipy.stats) and Holm's step-down correction.

mann_whitney_u: scipy.stats.mannwhitneyu, two-sided, normal approximation (method="asymptotic") with the tie
correction of the variance and a continuity correction of 0.5 (use_continuity=True). The approximation is
trusted from MWU_MIN_SAMPLES per side; below that the gate warns.
holm: written here because scipy has no Holm (scipy.stats.false_discovery_control is Benjamini–Hochberg/Yekutieli
only) and statsmodels' multipletests is a heavy dependency for ten lines."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats

MWU_MIN_SAMPLES = 8


@dataclass(frozen=True)
class MannWhitney:
    u: float            # U of the second sample (the number of pairs where b > a, ties counting 1/2)
    z: float            # standardized |U - mean| after the continuity correction (0 when no spread): the normal
                        # quantile of p/2
    p: float            # two-sided p-value
    p_b_greater: float  # U / (n_a n_b): the probability that a value of b exceeds one of a


def mann_whitney_u(a, b) -> MannWhitney:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    na, nb = a.size, b.size
    if na == 0 or nb == 0:
        raise ValueError("Mann-Whitney U needs at least one value on each side")
    r = scipy.stats.mannwhitneyu(b, a, use_continuity=True, alternative="two-sided", method="asymptotic")
    u, p = float(r.statistic), float(r.pvalue)
    return MannWhitney(u=u, z=float(scipy.stats.norm.isf(p / 2.0)), p=p, p_b_greater=u / (na * nb))


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
