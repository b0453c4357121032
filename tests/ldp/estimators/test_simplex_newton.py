"""The point fit of a histogram channel: projected Newton steps to the KKT
point of the multinomial likelihood on the simplex."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ldp.estimators.simplex_newton import KKT_TOLERANCE, newton_fit
from tests.ldp.estimators.fit_cases import CASES, FALLBACK_CASES, fit_case


def _gradient(channel: Any, counts: np.ndarray, n: int, f: np.ndarray) -> np.ndarray:
    """``g_x = Σ_y s_y Q[x, y]/(Qᵀf)_y`` over the reports seen."""
    s = counts / n
    used = s > 0
    q = channel.channel[:, used]
    gradient: np.ndarray = q @ (s[used] / (f @ q))
    return gradient


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_the_point_fit_meets_the_kkt_conditions_of_the_simplex(case):
    channel, counts, n = fit_case(*case)
    f = channel.point_fit(counts, n)
    g = _gradient(channel, counts, n, f)
    assert f.min() >= 0 and f.sum() == pytest.approx(1.0, abs=1e-14)
    # Positive shares: gradient 1; zero shares: at most 1 (up to the stop).
    positive = f > 0
    assert np.abs(g[positive] - 1).max() <= 10 * KKT_TOLERANCE
    assert g[~positive].max(initial=0.0) <= 1 + 10 * KKT_TOLERANCE


def test_the_fit_is_the_same_from_the_uniform_start_without_warm_up():
    channel, counts, n = fit_case(*CASES[0])
    warmed = channel.point_fit(counts, n)
    cold = newton_fit(channel.channel, counts / n, np.full(channel.levels, 0.005))
    assert cold is not None
    np.testing.assert_allclose(cold, warmed, rtol=0, atol=1e-11)


def test_zero_shares_are_exact_and_only_where_the_gradient_is_below_one():
    channel, counts, n = fit_case(*CASES[2])
    f = channel.point_fit(counts, n)
    g = _gradient(channel, counts, n, f)
    zero = f == 0
    assert zero.sum() > channel.levels // 2
    assert np.all(g[zero] < 1)


def test_a_share_started_at_zero_whose_gradient_exceeds_one_is_brought_back():
    channel, counts, n = fit_case(*CASES[2])
    f = channel.point_fit(counts, n)
    start = f + 0.01
    start[np.argmax(f)] = 0.0  # the largest share of the maximum starts at 0
    refit = newton_fit(channel.channel, counts / n, start / start.sum())
    assert refit is not None
    np.testing.assert_allclose(refit, f, rtol=0, atol=1e-10)


def test_two_levels_the_reports_cannot_tell_apart_still_reach_the_kkt_point():
    # Levels 0 and 1 have the same row: the likelihood is flat along
    # f_0 − f_1, the free Hessian is singular, and the ridge step is taken.
    q = np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    counts = np.array([40.0, 30.0, 30.0])
    f = newton_fit(q, counts / 100, np.full(3, 1 / 3))
    assert f is not None
    g = q @ (counts / 100 / (f @ q))
    np.testing.assert_allclose(g[f > 0], 1.0, rtol=0, atol=1e-10)
    # The pair's total is the maximum of the merged two-level problem.
    merged = newton_fit(q[1:], counts / 100, np.full(2, 0.5))
    assert merged is not None
    assert f[0] + f[1] == pytest.approx(merged[0], abs=1e-10)


@pytest.mark.parametrize("case", FALLBACK_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_where_newton_does_not_converge_the_point_fit_is_the_polished_em_fit(case):
    channel, counts, n = fit_case(*case)
    start = channel.fit(counts[None, :], n, 30)[0]
    assert newton_fit(channel.channel, counts / n, start) is None
    np.testing.assert_array_equal(
        channel.point_fit(counts, n), channel.polished_fit(counts, n)
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_em_steps_leave_the_newton_fit_in_place_and_never_beat_it(case):
    channel, counts, n = fit_case(*case)
    f = channel.point_fit(counts, n)
    s = counts / n
    used = s > 0
    q = channel.channel[:, used]
    em = f.copy()
    for _ in range(2_000):  # a long run of the plain EM step from the fit
        em = em * (q @ (s[used] / (em @ q)))
        em /= em.sum()
    np.testing.assert_allclose(em, f, rtol=0, atol=1e-9)
    # SQUAREM with 20,000 plain EM steps (the fallback) ends lower.
    polished = channel.polished_fit(counts, n)
    assert s[used] @ np.log(f @ q) >= s[used] @ np.log(polished @ q) - 1e-15
