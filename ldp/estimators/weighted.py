"""Weighted debiased shares for every frequency oracle, with linearized variances.

A frequency oracle's estimate is affine in the support proportions:
``f̂_v = (λ̂_v − q_v)/(p_v − q_v)``.  With survey weights the proportion
becomes the weighted ratio ``λ̂_v = Σ w_i S_iv / Σ w_i`` (``S_iv = 1`` when
report i supports answer v), and its variance follows by linearization.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldp.arrays import AnyArray, FloatArray
from ldp.estimators.mean import MeanEstimate
from ldp.estimators.weighted_result import (
    WeightedEstimate,
    centred_spread,
    mean_from_scores,
    shares_from_support,
)
from ldp.weighting import check_weights, kish_design_effect

_CELLS_PER_CHUNK = 1 << 22
"""Support-matrix cells built at a time (32 MiB of float64)."""


def support_rows(mechanism: Any, reports: AnyArray) -> AnyArray:
    """The 0/1 support matrix ``S[i, v]`` of validated reports.

    Parameters
    ----------
    mechanism : SupportMechanism
        Binary, GRR, SUE, OUE, OLH, Hadamard, multi-select randomized
        response or padding-and-sampling mechanism.
    reports : ndarray
        Reports in the layout ``mechanism.randomize`` returns.

    Returns
    -------
    ndarray of bool, shape (n, k)
        ``S[i, v]``: report i supports answer (or option) v.

    Raises
    ------
    ValueError
        For a mechanism that is not a single-answer frequency oracle.

    Notes
    -----
    Each family's ``support_rows``: one answer (and padding-and-sampling's
    item): ``y_i = v``; unary and multi-select randomized response: bit v;
    OLH: ``((a_i v + b_i) mod P) mod g = y_i``; Hadamard:
    ``bit_i = 1 − parity(j_i AND v)``.  Column sums equal ``aggregate``'s
    counts.

    References
    ----------
    .. [1] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017,
       section 3 (support).
    .. [2] docs/maths.md, section 3.

    Examples
    --------
    >>> import ldp
    >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    >>> support_rows(grr, np.array([2, 0])).astype(int)
    array([[0, 0, 1],
           [1, 0, 0]])
    """
    rows = getattr(mechanism, "support_rows", None)
    if rows is None:
        name = getattr(mechanism, "name", None)
        raise ValueError(
            "weighted shares are for frequency oracles and multi-select mechanisms "
            f"(a report that supports answers), not {name!r}"
        )
    support: AnyArray = rows(reports)
    return support


def _strata_groups(strata: Any, n: int) -> list[AnyArray]:
    """The report indices of each post-stratum (one group of all without)."""
    if strata is None:
        return [np.arange(n)]
    cells = np.asarray([str(cell) for cell in strata])
    if cells.shape != (n,):
        raise ValueError(f"{cells.size} strata for {n} reports; one per report")
    _, inverse = np.unique(cells, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    return list(np.split(order, bounds))


def _support_spread(
    mechanism: Any, reports: AnyArray, w: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``(Σ w_i S_i, Σ w_i² (S_i − λ_h)(S_i − λ_h)ᵀ)`` over one group's reports,
    ``λ_h = Σ w_i S_i / Σ w_i`` its own weighted support (0 without weight)."""
    k = int(mechanism.k)
    weighted = np.zeros(k)
    squared = np.zeros(k)
    cross = np.zeros((k, k))
    w2 = w * w
    rows = max(1, _CELLS_PER_CHUNK // max(k, 1))
    for start in range(0, len(w), rows):
        support = support_rows(mechanism, reports[start : start + rows]).astype(float)
        chunk = w[start : start + rows]
        chunk2 = w2[start : start + rows]
        weighted += chunk @ support
        squared += chunk2 @ support
        cross += support.T @ (chunk2[:, None] * support)
    return weighted, centred_spread(weighted, squared, cross, float(w.sum()), w2.sum())


def weighted_estimate(
    mechanism: Any, reports: Any, weights: Any, strata: Any = None
) -> WeightedEstimate:
    """Weighted debiased shares of a frequency oracle's answers.

    Parameters
    ----------
    mechanism : SupportMechanism
        The question's compiled mechanism: binary, GRR, SUE, OUE, OLH,
        Hadamard, or multi-select (per-option randomized response,
        padding-and-sampling).
    reports : ndarray or list
        The reports, as ``randomize`` returns them or as JSON reports.
    weights : array_like, shape (n,)
        One weight per report, from :func:`ldp.post_stratify`,
        :func:`ldp.rake` or a design; only their ratios matter.
    strata : sequence, optional
        Each report's post-stratification cell
        (:attr:`ldp.CalibrationWeights.cells`): the variance then takes the
        residuals from the cells' weighted supports, as R's ``survey``
        package does after ``postStratify``.  Without it the weights are
        held fixed.

    Returns
    -------
    WeightedEstimate
        Shares, linearized covariance, Wald intervals and Kish's deff.

    Raises
    ------
    ValueError
        For invalid reports, weights of the wrong length, negative or
        non-finite weights, fewer than 2 reports, or a mechanism of another
        family (numeric and ordinal questions).

    Notes
    -----
    ``λ̂_v = Σ_i w_i S_iv / Σ_i w_i`` and
    ``f̂_v = L (λ̂_v − q_v)/(p_v − q_v)`` (``L = ℓ`` for padding-and-sampling,
    1 otherwise).
    With the weights fixed, the ratio's linearized (Taylor) variable is
    ``z_iv = w_i (S_iv − λ̂_v) / Σ_j w_j`` and
    ``Cov(λ̂) = n/(n − 1) Σ_i z_i z_iᵀ`` (with-replacement estimator), so
    ``Cov(f̂)_uv = L² Cov(λ̂)_uv / ((p_u − q_u)(p_v − q_v))``.  With equal
    weights it is the unweighted plug-in variance times ``n/(n − 1)``.
    Post-stratified (``strata`` given), the residual is taken from the
    report's cell h instead: ``z_iv = w_i (S_iv − λ̂_hv) / Σ_j w_j`` with
    ``λ̂_hv = Σ_{j∈h} w_j S_jv / Σ_{j∈h} w_j`` [1, §7.6], [2, §7.2]: the
    variance the calibration removes is left out, and the standard errors
    equal ``svymean`` on ``postStratify``'s design.

    References
    ----------
    .. [1] C.-E. Särndal, B. Swensson, J. Wretman, "Model Assisted Survey
       Sampling", Springer 1992, sections 5.5 (variance of a ratio by Taylor
       linearization) and 7.6 (post-stratification).
    .. [2] T. Lumley, "Complex Surveys: A Guide to Analysis Using R", Wiley
       2010, sections 2.2 and 7.2.
    .. [3] Wang et al., USENIX Security 2017, section 4.
    .. [4] docs/maths.md, section 6.6.

    Examples
    --------
    >>> import ldp
    >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> est = weighted_estimate(grr, [0, 0, 1, 2, 0], [1, 1, 2, 2, 1])
    >>> est.estimate.round(3)
    array([0.473, 0.263, 0.263])
    """
    stat = mechanism.aggregate(reports)
    if isinstance(reports, list | tuple):
        array = mechanism.reports_to_array(list(reports))
    else:
        array = np.asarray(reports)
    n = int(stat.n)
    if n < 2:
        raise ValueError(f"weighted shares need at least 2 reports, got {n}")
    w = check_weights(weights, n)
    k = int(mechanism.k)
    total = float(w.sum())
    groups = _strata_groups(strata, n)
    weighted = np.zeros(k)
    spread = np.zeros((k, k))
    for members in groups:
        sums, centred = _support_spread(mechanism, array[members], w[members])
        weighted += sums
        spread += centred
    return shares_from_support(
        mechanism, n, weighted, spread, total, kish_design_effect(w)
    )


def weighted_mean(
    mechanism: Any, reports: Any, weights: Any, strata: Any = None
) -> MeanEstimate:
    """Weighted unbiased mean of a numeric or ordinal answer, via its scores.

    Parameters
    ----------
    mechanism : ChannelEstimation
        The question's compiled numeric or ordinal mechanism.
    reports : ndarray or list
        Its reports (integers in ``[0, outputs)``).
    weights : array_like, shape (n,)
        One weight per report; only their ratios matter.
    strata : sequence, optional
        Each report's post-stratification cell: residuals from the cells'
        weighted mean scores (as :func:`weighted_estimate`).

    Returns
    -------
    MeanEstimate
        ``μ̂_w`` with its linearized standard error and the score bias bound.

    Raises
    ------
    ValueError
        For invalid reports, bad weights, fewer than 2 reports, or a
        mechanism without scores.

    Notes
    -----
    With the scores ``s_i = s(y_i)`` of 5.6, ``E[s_i | x_i] = v_{x_i}``, so the
    ratio ``μ̂_w = Σ_i w_i s_i / Σ_i w_i`` estimates the weighted mean of the
    true values.  Linearization with fixed weights:
    ``z_i = w_i (s_i − μ̂_w)/Σ_j w_j``, ``Var(μ̂_w) = n/(n − 1) Σ_i z_i²``;
    with equal weights this is ``S²/n``, the unweighted score mean's.
    Post-stratified: ``z_i = w_i (s_i − μ̂_h)/Σ_j w_j`` with ``μ̂_h`` the
    weighted mean score of report i's cell (Särndal et al. §7.6; Lumley §7.2),
    which is what R's ``svymean`` gives after ``postStratify``.

    References
    ----------
    .. [1] C.-E. Särndal, B. Swensson, J. Wretman, "Model Assisted Survey
       Sampling", Springer 1992, section 5.5.
    .. [2] docs/maths.md, sections 5.6 and 6.6.

    Examples
    --------
    >>> import ldp
    >>> duchi = ldp.build({"mechanism": "duchi", "low": "0", "high": "10",
    ...                    "step": "1", "epsilon": 1.0})
    >>> round(weighted_mean(duchi, [0, 1, 1, 0], [1, 1, 3, 1]).estimate, 3)
    8.607
    """
    if not hasattr(mechanism, "scores"):
        raise ValueError(
            f"weighted means are for numeric and ordinal mechanisms (with "
            f"per-report scores), not {getattr(mechanism, 'name', mechanism)!r}"
        )
    stat = mechanism.aggregate(reports)
    if isinstance(reports, list | tuple):
        array = mechanism.reports_to_array(list(reports))
    else:
        array = np.asarray(reports)
    n = int(stat.n)
    if n < 2:
        raise ValueError(f"a weighted mean needs at least 2 reports, got {n}")
    w = check_weights(weights, n)
    scores = mechanism.scores()[array.astype(np.int64)]
    total = float(w.sum())
    mean = float(w @ scores) / total
    centre = np.full(n, mean)
    if strata is not None:
        for members in _strata_groups(strata, n):
            cell = float(w[members].sum())
            if cell > 0:
                centre[members] = float(w[members] @ scores[members]) / cell
    z = w * (scores - centre) / total
    return mean_from_scores(mechanism, n, mean, n / (n - 1) * float(np.sum(z * z)))
