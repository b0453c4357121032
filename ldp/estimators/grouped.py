"""Weighted estimates from per-group moments, without the reports.

When every report of a group carries the same weight (post-stratification
and raking on plain answers give one weight per combination of those
answers), the weighted estimators of :mod:`ldp.estimators.weighted` need of
each group only a few additive sums:

* ``n``, the number of reports;
* ``Σ S_i`` and ``Σ S_i S_iᵀ``, the support vector and its cross products
  (frequency oracles);
* ``Σ s_i`` and ``Σ s_i²``, the score and its square (numeric and ordinal
  mechanisms).

These add over disjoint report sets, so they can be kept as tallies and
updated as reports arrive; the estimates and their linearized variances are
then exactly those of :func:`ldp.weighted_estimate` and
:func:`ldp.weighted_mean` on the expanded reports, at a cost proportional to
the number of groups, whatever the number of reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import AnyArray, FloatArray
from ldp.estimators.mean import MeanEstimate
from ldp.estimators.weighted import support_rows
from ldp.estimators.weighted_result import (
    WeightedEstimate,
    centred_spread,
    mean_from_scores,
    shares_from_support,
)

CROSS_MAX = 64
"""Largest ``k`` whose ``k × k`` cross products a group keeps."""


@dataclass(frozen=True, eq=False)
class GroupMoments:
    """Additive sums of one group's reports (see the module notes).

    Attributes
    ----------
    n : int
        Reports in the group.
    support : ndarray or None
        ``Σ S_i`` (frequency oracles), else None.
    cross : ndarray or None
        ``Σ S_i S_iᵀ`` (frequency oracles with ``k ≤ CROSS_MAX``), else None.
    score : ndarray or None
        ``[Σ s_i, Σ s_i²]`` (mechanisms with scores), else None.

    Examples
    --------
    >>> import ldp
    >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> m = group_moments(grr, np.array([0, 0, 2]))
    >>> (m + m).support.tolist()
    [4.0, 0.0, 2.0]
    """

    n: int
    support: FloatArray | None = None
    cross: FloatArray | None = None
    score: FloatArray | None = None

    def __add__(self, other: GroupMoments) -> GroupMoments:
        def plus(a: Any, b: Any) -> Any:
            return None if a is None or b is None else a + b

        return GroupMoments(
            self.n + other.n,
            plus(self.support, other.support),
            plus(self.cross, other.cross),
            plus(self.score, other.score),
        )

    def negated(self) -> GroupMoments:
        """The moments with every sum negated (to subtract a group)."""

        def minus(a: Any) -> Any:
            return None if a is None else -a

        return GroupMoments(
            -self.n, minus(self.support), minus(self.cross), minus(self.score)
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict ``{"n", "support", "cross", "score"}``."""

        def plain(a: Any) -> Any:
            return None if a is None else np.asarray(a).tolist()

        return {
            "n": int(self.n),
            "support": plain(self.support),
            "cross": plain(self.cross),
            "score": plain(self.score),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroupMoments:
        """The inverse of :meth:`to_dict`."""

        def array(a: Any) -> Any:
            return None if a is None else np.asarray(a, dtype=float)

        return cls(
            int(data["n"]),
            array(data.get("support")),
            array(data.get("cross")),
            array(data.get("score")),
        )


def group_moments(mechanism: Any, reports: AnyArray) -> GroupMoments:
    """The moments of validated reports (the array layout ``aggregate`` takes).

    Notes
    -----
    ``S_i`` is :func:`ldp.estimators.weighted.support_rows`; ``s_i`` is
    ``mechanism.scores()[y_i]``.  Cross products are kept for ``k ≤
    CROSS_MAX`` only (``k²`` numbers per group).

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> group_moments(warner, np.array([1, 0, 1])).cross.tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    array = np.asarray(reports)
    n = int(array.shape[0]) if array.ndim else 0
    support = cross = score = None
    if hasattr(mechanism, "scores"):
        scores = np.asarray(mechanism.scores(), dtype=float)[array.astype(np.int64)]
        score = np.array([scores.sum(), (scores * scores).sum()])
    else:
        try:
            rows = support_rows(mechanism, array).astype(float)
        except (ValueError, AttributeError, TypeError):
            rows = None
        if rows is not None:
            support = rows.sum(axis=0)
            if rows.shape[1] <= CROSS_MAX:
                cross = rows.T @ rows
    return GroupMoments(n, support, cross, score)


def _needed(sums: FloatArray | None) -> FloatArray:
    """``sums``, which the caller has already checked is present."""
    if sums is None:
        raise ValueError("a group lacks the sums this estimate needs")
    return sums


def _totals(groups: Sequence[tuple[float, GroupMoments]]) -> tuple[int, float, float]:
    n = sum(int(g.n) for _, g in groups)
    total = sum(w * g.n for w, g in groups)
    squares = sum(w * w * g.n for w, g in groups)
    return n, float(total), float(squares)


def _by_stratum(
    groups: Sequence[tuple[float, GroupMoments]], strata: Sequence[Any] | None
) -> list[list[tuple[float, GroupMoments]]]:
    """The groups of each post-stratum (one list of all without strata)."""
    if strata is None:
        return [list(groups)]
    if len(strata) != len(groups):
        raise ValueError(f"{len(strata)} strata for {len(groups)} groups")
    found: dict[str, list[tuple[float, GroupMoments]]] = {}
    for group, stratum in zip(groups, strata, strict=True):
        found.setdefault(str(stratum), []).append(group)
    return list(found.values())


def weighted_estimate_grouped(
    mechanism: Any,
    groups: Sequence[tuple[float, GroupMoments]],
    strata: Sequence[Any] | None = None,
) -> WeightedEstimate:
    """:func:`ldp.weighted_estimate` of reports given as weighted groups.

    Parameters
    ----------
    mechanism : SupportMechanism
        The question's compiled frequency oracle.
    groups : sequence of (weight, GroupMoments)
        One weight per group, shared by every report of the group.
    strata : sequence, optional
        Each group's post-stratification cell (a group lies in one cell):
        residuals are then taken from the cells' weighted supports, as
        ``weighted_estimate``'s ``strata``.

    Returns
    -------
    WeightedEstimate
        Equal (to rounding) to ``weighted_estimate`` of the expanded reports.

    Raises
    ------
    ValueError
        For fewer than 2 reports, a negative weight, or a group without its
        support sums and cross products.

    Notes
    -----
    With ``W = Σ_g w_g n_g``: ``λ̂ = Σ_g w_g ΣS_g / W`` and, with ``λ̂_h``
    the weighted support of the groups of cell h (all groups without
    strata), ``Σ_i w_i² (S_i − λ̂_h)(S_i − λ̂_h)ᵀ = Σ_g w_g² (ΣSSᵀ_g −
    λ̂_h ΣS_gᵀ − ΣS_g λ̂_hᵀ + n_g λ̂_hλ̂_hᵀ)``, so ``Cov(λ̂)`` is the
    linearized (Taylor) covariance of ``weighted_estimate`` [1]_.

    References
    ----------
    .. [1] C.-E. Särndal, B. Swensson, J. Wretman, "Model Assisted Survey
       Sampling", Springer 1992, section 5.5.
    .. [2] docs/maths.md, section 6.6.

    Examples
    --------
    >>> import ldp
    >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> a = group_moments(grr, np.array([0, 0, 0]))
    >>> b = group_moments(grr, np.array([1, 2]))
    >>> weighted_estimate_grouped(grr, [(1.0, a), (2.0, b)]).estimate.round(3)
    array([0.473, 0.263, 0.263])
    """
    if any(w < 0 or not np.isfinite(w) for w, _ in groups):
        raise ValueError("weights must be finite and non-negative")
    if any(g.support is None or g.cross is None for _, g in groups):
        raise ValueError("every group needs its support sums and cross products")
    n, total, _ = _totals(groups)
    if n < 2 or not total > 0:
        raise ValueError(f"weighted shares need at least 2 reports, got {n}")
    k = int(mechanism.k)
    weighted, spread = np.zeros(k), np.zeros((k, k))
    for members in _by_stratum(groups, strata):
        sums, squared, cross = np.zeros(k), np.zeros(k), np.zeros((k, k))
        for w, g in members:
            support, products = _needed(g.support), _needed(g.cross)
            sums += w * support
            squared += w * w * support
            cross += w * w * products
        _, cell, cell_squares = _totals(members)
        spread += centred_spread(sums, squared, cross, cell, cell_squares)
        weighted += sums
    return shares_from_support(
        mechanism, n, weighted, spread, total, grouped_design_effect(groups)
    )


def weighted_mean_grouped(
    mechanism: Any,
    groups: Sequence[tuple[float, GroupMoments]],
    strata: Sequence[Any] | None = None,
) -> MeanEstimate:
    """:func:`ldp.weighted_mean` of reports given as weighted groups
    (``strata`` as for :func:`weighted_estimate_grouped`).

    Notes
    -----
    ``μ̂_w = Σ_g w_g Σs_g / W`` and, with ``μ̂_h`` the weighted mean score of
    cell h (``μ̂_w`` without strata), ``Σ_i z_i² = Σ_g w_g² (Σs²_g − 2 μ̂_h
    Σs_g + n_g μ̂_h²) / W²``; ``Var(μ̂_w) = n/(n − 1) Σ_i z_i²`` (analytic, as
    in ``weighted_mean``; docs/maths.md, sections 5.6 and 6.6).

    Examples
    --------
    >>> import ldp
    >>> duchi = ldp.build({"mechanism": "duchi", "low": "0", "high": "10",
    ...                    "step": "1", "epsilon": 1.0})
    >>> a = group_moments(duchi, np.array([0, 1, 0]))
    >>> b = group_moments(duchi, np.array([1]))
    >>> round(weighted_mean_grouped(duchi, [(1.0, a), (3.0, b)]).estimate, 3)
    8.607
    """
    if any(w < 0 or not np.isfinite(w) for w, _ in groups):
        raise ValueError("weights must be finite and non-negative")
    if any(g.score is None for _, g in groups):
        raise ValueError("every group needs its score sums")
    n, total, _ = _totals(groups)
    if n < 2 or not total > 0:
        raise ValueError(f"a weighted mean needs at least 2 reports, got {n}")
    mean = sum(w * float(_needed(g.score)[0]) for w, g in groups) / total
    spread = 0.0
    for members in _by_stratum(groups, strata):
        _, cell, _ = _totals(members)
        centre = (
            sum(w * float(_needed(g.score)[0]) for w, g in members) / cell
            if cell > 0
            else 0.0
        )
        spread += sum(
            w
            * w
            * (float(_needed(g.score)[1]) - 2 * centre * float(_needed(g.score)[0]))
            + w * w * g.n * centre * centre
            for w, g in members
        )
    return mean_from_scores(mechanism, n, mean, n / (n - 1) * spread / total**2)


def grouped_design_effect(groups: Sequence[tuple[float, GroupMoments]]) -> float:
    """Kish's design effect ``n Σw²/(Σw)²`` of groups of equal weights.

    Examples
    --------
    >>> grouped_design_effect([(0.75, GroupMoments(2)), (1.5, GroupMoments(1))])
    1.125
    """
    n, total, squares = _totals(groups)
    return float(n * squares / total**2) if total > 0 else 1.0
