"""divbench.stats: the Mann-Whitney U test (scipy.stats.mannwhitneyu as the gate calls it: two-sided, normal
approximation, tie and continuity corrections) against hand-computed values and an exact permutation
distribution, and Holm's correction."""
import itertools
import math

import numpy as np
import pytest

from divbench import stats


def test_separated_samples_by_hand():
    # U_b = 25 (every b above every a); mean 12.5, sd sqrt(25*11/12); z = (12.5 - 0.5)/sd
    r = stats.mann_whitney_u([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    z = 12.0 / math.sqrt(25 * 11 / 12)
    assert r.u == 25 and r.z == pytest.approx(z) and r.p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert r.p == pytest.approx(0.01219, abs=1e-4) and r.p_b_greater == 1.0


def test_symmetric_and_tie_corrected():
    a, b = [1, 1, 2, 2, 3], [2, 3, 3, 4, 4]
    assert stats.mann_whitney_u(a, b).p == pytest.approx(stats.mann_whitney_u(b, a).p)
    # tie correction: sum(t^3 - t) = (8-2) + (27-3) + (27-3) + (8-2) = 60 over n = 10
    var = 25 / 12 * (11 - 60 / 90)
    u_b = sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)
    r = stats.mann_whitney_u(a, b)
    assert r.u == u_b and r.z == pytest.approx((abs(u_b - 12.5) - 0.5) / math.sqrt(var))


def test_identical_constant_samples_have_p_1():
    assert stats.mann_whitney_u([5] * 10, [5] * 12).p == 1.0


def test_normal_approximation_close_to_the_exact_permutation_p():
    rng = np.random.default_rng(11)
    a = rng.normal(0, 1, 9)
    b = rng.normal(1.2, 1, 9)
    observed = abs(stats.mann_whitney_u(a, b).u - 40.5)
    pooled = np.concatenate([a, b])
    hits = total = 0
    for idx in itertools.combinations(range(18), 9):
        mask = np.zeros(18, bool)
        mask[list(idx)] = True
        u = sum(1.0 for x in pooled[~mask] for y in pooled[mask] if y > x)
        hits += abs(u - 40.5) >= observed - 1e-9
        total += 1
    assert stats.mann_whitney_u(a, b).p == pytest.approx(hits / total, abs=0.01)


def test_empty_side_is_an_error():
    with pytest.raises(ValueError):
        stats.mann_whitney_u([], [1])


def test_holm():
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([]) == []
    assert stats.holm([0.5, 0.9]) == [1.0, 1.0]


def test_student_t_reference_is_scipys():
    """tests/data/student_t_scipy.json is what scipy gives now: the reference of tests/cpu/test_fit.cpp's
    StudentTAgreesWithScipy (the C++ t distribution of the T(k) fit against the one the gate uses)."""
    import json
    from pathlib import Path

    from divbench import student_t_reference as ref
    committed = json.loads((Path(__file__).resolve().parents[2] / "tests" / "data" / "student_t_scipy.json").read_text())
    now = ref.reference()
    assert [(r["t"], r["dof"]) for r in committed["rows"]] == [(r["t"], r["dof"]) for r in now["rows"]]
    for c, n in zip(committed["rows"], now["rows"]):
        assert c["p"] == pytest.approx(n["p"], rel=1e-12, abs=1e-300), (c["t"], c["dof"])
