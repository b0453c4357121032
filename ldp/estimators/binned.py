"""Binned answer distributions with analytic intervals, for valued answers.

For an ordinal or numeric question the per-level inversion ``f̂ = A c/n`` is
unbiased but, at a few hundred reports, far too noisy to read (shares of
−4000%).  This module reports instead the constrained maximum-likelihood
distribution over the levels, summed into a few researcher-chosen bins, with
Wald intervals for each bin share (from the covariance of the debiased level
shares) and Woodruff intervals for the median and other quantiles.  Every
step after the fit costs ``O(levels²)``, whatever the number of reports.
Post-processing of the reports only: it costs no privacy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.intervals import (
    ConfidenceInterval,
    bounded_interval,
    check_level,
    critical_value,
)
from ldp.estimators.level_channels import (
    HistogramChannel,
    LevelChannel,
    debiased_levels,
    level_channel,
)

METHOD = "constrained maximum likelihood, Wald and Woodruff intervals"
MAX_BINS = 20


def bin_index(values: FloatArray, cuts: Any) -> tuple[IntArray, FloatArray]:
    """Which bin each level falls in, for cut points in answer units.

    Parameters
    ----------
    values : ndarray
        The answer value of each level, increasing.
    cuts : sequence of float or None
        Increasing cut points within ``[values[0], values[-1]]``; the range's
        ends are added when missing.  None: each level is its own bin.  Bin
        ``j`` holds the levels with ``edge_j <= v < edge_{j+1}`` (the last bin
        includes its upper edge).

    Returns
    -------
    (ndarray, ndarray)
        The bin of each level, and the edges.

    Raises
    ------
    ValueError
        Cut points not increasing, outside the range, more than
        :data:`MAX_BINS` bins, or a bin holding no possible answer.
    """
    values = np.asarray(values, dtype=float)
    low, high = float(values[0]), float(values[-1])
    if cuts is None:
        if values.size > MAX_BINS:
            raise ValueError(f"at most {MAX_BINS} bins, got {values.size}")
        return np.arange(values.size, dtype=np.int64), np.append(values, high)
    points = [float(c) for c in cuts]
    if any(not np.isfinite(c) for c in points):
        raise ValueError("cut points must be numbers")
    if any(b <= a for a, b in itertools.pairwise(points)):
        raise ValueError("cut points must be strictly increasing")
    if points and (points[0] < low or points[-1] > high):
        raise ValueError(
            f"cut points must lie within the answer range {low:g}–{high:g}"
        )
    edges = [low] + [c for c in points if low < c < high] + [high]
    if len(edges) - 1 > MAX_BINS:
        raise ValueError(f"at most {MAX_BINS} bins, got {len(edges) - 1}")
    index = np.searchsorted(np.asarray(edges[1:-1]), values, side="right")
    present = np.bincount(index, minlength=len(edges) - 1)
    if np.any(present == 0):
        empty = int(np.nonzero(present == 0)[0][0])
        raise ValueError(
            f"the bin {edges[empty]:g}–{edges[empty + 1]:g} holds no possible answer"
        )
    return index.astype(np.int64), np.asarray(edges)


def level_quantile(shares: FloatArray, values: FloatArray, p: float) -> FloatArray:
    """The lower ``p``-quantile of each row: the smallest ``v_x`` with
    ``F(v_x) >= p`` (``v_0`` for ``p <= 0``, the largest value for ``p > 1``)."""
    cumulative = np.cumsum(np.atleast_2d(shares), axis=1)
    reached = cumulative >= p - 1e-12
    reached[:, -1] = True
    position = np.argmax(reached, axis=1)
    quantiles: FloatArray = np.asarray(values, dtype=float)[position]
    return quantiles


def level_median(shares: FloatArray, values: FloatArray) -> FloatArray:
    """The lower median of each row: the smallest ``v_x`` with ``F(v_x) >= 1/2``."""
    return level_quantile(shares, values, 0.5)


@dataclass(frozen=True, eq=False)
class BinnedDistribution:
    """Constrained-MLE answer distribution summed into bins, with intervals.

    Attributes
    ----------
    bins : tuple of (float, float)
        The smallest and largest possible answer in each bin.
    shares : ndarray
        Share of the answers in each bin (sums to 1).
    n : int
        Number of reports.
    method : str
        :data:`METHOD`.
    median : float
        The lower median of the fitted level distribution.
    levels : ndarray
        The fitted level shares ``f̃`` (on the simplex).
    debiased : ndarray
        The debiased level shares ``f̂`` (unbiased; may leave [0, 1]).
    covariance : ndarray, shape (levels, levels)
        The covariance of ``f̂``, as the mechanism's estimator gives it.
    member : ndarray, shape (levels, bins)
        ``M[x, j] = 1`` when level ``x`` is in bin ``j``.
    edges : ndarray
        The bin edges in answer units.
    values : ndarray
        The answer value of each level, increasing.

    Examples
    --------
    >>> import ldp
    >>> m = ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 2.0})
    >>> d = mechanism_distribution(m, m.aggregate([0, 0, 1, 2, 2, 2, 1, 0, 2, 2]), [1])
    >>> round(float(d.shares.sum()), 9), d.bins
    (1.0, ((0.0, 0.0), (1.0, 2.0)))
    """

    bins: tuple[tuple[float, float], ...]
    shares: FloatArray
    n: int
    method: str
    median: float
    levels: FloatArray = field(repr=False)
    debiased: FloatArray = field(repr=False)
    covariance: FloatArray = field(repr=False)
    member: FloatArray = field(repr=False)
    edges: FloatArray = field(repr=False)
    values: FloatArray = field(repr=False)

    def confidence_interval(
        self, level: float = 0.95
    ) -> ConfidenceInterval[FloatArray]:
        """Wald interval of each bin share, from the debiased shares.

        Parameters
        ----------
        level : float
            Confidence level in (0, 1).

        Returns
        -------
        ConfidenceInterval
            ``b̂_j ± z·SE_j`` held within [0, 1]
            (:func:`ldp.estimators.intervals.bounded_interval`), widened to
            contain the fitted share ``b̃_j`` and :func:`direct_interval`
            (never narrower than ``n`` answers read without randomization
            would give, so never of zero width).

        Notes
        -----
        ``b̂ = Mᵀ f̂`` is a linear map of the debiased level shares, so
        ``Cov(b̂) = Mᵀ Cov(f̂) M`` exactly (the delta method for a linear
        map) and ``b̂`` is asymptotically normal: ``SE_j² = (Mᵀ Σ M)_jj``.
        ``Cov(f̂)`` is the mechanism's own (the channel inversion's sandwich
        covariance, or the frequency oracle's), computed from the counts in
        ``O(levels · outputs²)``, whatever ``n``.  In the simplex's interior
        the constrained fit ``b̃`` and ``b̂`` agree to ``O_p(1/n)``.

        References
        ----------
        .. [1] A. Wald, "Tests of statistical hypotheses concerning several
           parameters when the number of observations is large", Trans.
           AMS 54, 1943.
        .. [2] docs/maths.md, section 11.
        """
        check_level(level)
        z = critical_value(level)
        centre = self.debiased @ self.member
        variance = np.einsum("xj,xy,yj->j", self.member, self.covariance, self.member)
        wald = bounded_interval(
            centre, z * np.sqrt(np.maximum(variance, 0.0)), 0.0, 1.0
        )
        floor = direct_interval(self.shares, self.n, level)
        return ConfidenceInterval(
            np.minimum(np.minimum(wald.low, self.shares), floor.low),
            np.maximum(np.maximum(wald.high, self.shares), floor.high),
        )

    def quantile(self, p: float) -> float:
        """The lower ``p``-quantile of the fitted level distribution."""
        return float(level_quantile(self.levels, self.values, p)[0])

    def quantile_interval(
        self, p: float, level: float = 0.95
    ) -> ConfidenceInterval[float]:
        """Woodruff interval of the ``p``-quantile, widened by half a grid
        step on each side.

        Parameters
        ----------
        p : float
            The position in (0, 1) (1/2: the median).
        level : float
            Confidence level in (0, 1).

        Returns
        -------
        ConfidenceInterval
            ``[F̃⁻¹(p − z s), F̃⁻¹(p + z s)]`` (lower quantiles of the fitted
            distribution), widened to contain the estimate and then by half
            the gap to the neighbouring level on each side
            (:func:`grid_widened`), held within the answer range.

        Notes
        -----
        Woodruff's method: a confidence interval for the cumulative share
        at the estimated quantile ``ξ̂ = F̃⁻¹(p)``, ``p ± z s`` with
        ``s² = Var F̂(ξ̂) = 1ᵀ_{≤ξ̂} Cov(f̂) 1_{≤ξ̂}`` (the cumulative share
        is a sum of debiased level shares), inverted through the estimated
        distribution function.  The answers are on a grid, so ``F̃⁻¹`` is a
        step function and the interval may collapse to one level ("5 to
        5"); a level stands for the answers that round to it, hence the
        half-step widening (as a grouped median's class limits), which
        keeps it at least half a step wide.  ``O(levels²)``, whatever ``n``.

        References
        ----------
        .. [1] R. S. Woodruff, "Confidence intervals for medians and other
           position measures", Journal of the American Statistical
           Association 47(260), 635–646, 1952.
        .. [2] docs/maths.md, section 11.
        """
        check_level(level)
        if not 0 < p < 1:
            raise ValueError(f"p must lie in (0, 1), got {p}")
        z = critical_value(level)
        estimate = self.quantile(p)
        below = (self.values <= estimate).astype(float)
        spread = float(np.sqrt(max(float(below @ self.covariance @ below), 0.0)))
        low = float(level_quantile(self.levels, self.values, p - z * spread)[0])
        high = float(level_quantile(self.levels, self.values, p + z * spread)[0])
        low, high = min(low, estimate), max(high, estimate)
        return ConfidenceInterval(*grid_widened(self.values, low, high))

    def median_interval(self, level: float = 0.95) -> ConfidenceInterval[float]:
        """:meth:`quantile_interval` at ``p = 1/2`` (Woodruff 1952)."""
        return self.quantile_interval(0.5, level)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """JSON-friendly fields: bins, shares, intervals, median and its interval."""
        interval = self.confidence_interval(level)
        median = self.median_interval(level)
        return {
            "bins": [list(b) for b in self.bins],
            "shares": [float(s) for s in self.shares],
            "low": [float(v) for v in interval.low],
            "high": [float(v) for v in interval.high],
            "median": self.median,
            "median_low": median.low,
            "median_high": median.high,
            "n": self.n,
            "method": self.method,
            "level": level,
        }


def binned_distribution(
    channel: LevelChannel,
    counts: Any,
    n: int,
    values: Any,
    cuts: Any,
    *,
    debiased: Any,
    covariance: Any,
) -> BinnedDistribution:
    """Bin shares and median of the constrained MLE, with their intervals' inputs.

    Parameters
    ----------
    channel : HistogramChannel or UnaryChannel
        How reports arise from the levels.
    counts : array_like
        The reports' sufficient statistic (histogram or support counts).
    n : int
        Number of reports (at least 1).
    values : array_like
        Answer value of each level, increasing.
    cuts : sequence of float or None
        Cut points in answer units, or None for one bin per level (see
        :func:`bin_index`).
    debiased : array_like, shape (levels,)
        The debiased level shares ``f̂`` of the same reports.
    covariance : array_like, shape (levels, levels)
        Their covariance (:func:`debiased_levels`).

    Returns
    -------
    BinnedDistribution
        Bin shares and median of the fit; its ``confidence_interval`` and
        ``quantile_interval`` are analytic.

    Raises
    ------
    ValueError
        For a channel with fewer distinguishable outputs than levels (Duchi):
        the likelihood is then flat along a whole family of distributions,
        and any single fit would be one arbitrary point of it; for values or
        debiased shares not matching the levels, no reports, or bad cut
        points (:func:`bin_index`).

    Notes
    -----
    1. ``f̃ = argmax_{f ∈ simplex} ℓ(f; c)``, the likelihood of the reports
       given the level distribution (``point_fit``): at most 30 iterations
       of EM accelerated by SQUAREM, then projected Newton steps on the
       orthant form of the likelihood until its KKT residual is at most
       1e-12 (``ldp.estimators.simplex_newton``).  Both work on the shares
       ``c/n``: the work depends on the channel, not on ``n``.
    2. Bin share ``b̃_j = Σ_{x: v_x in bin j} f̃_x``; median
       ``min {v_x : Σ_{x' <= x} f̃_x' >= 1/2}``.
    3. Intervals: Wald for the bin shares and Woodruff for quantiles, both
       from ``Cov(f̂)`` (:meth:`BinnedDistribution.confidence_interval`,
       :meth:`BinnedDistribution.quantile_interval`).

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, "On the design and quantification of
       privacy preserving data mining algorithms", PODS 2001 (EM
       reconstruction under randomization).
    .. [2] R. Varadhan, C. Roland, "Simple and globally convergent methods
       for accelerating the convergence of any EM algorithm", Scand. J.
       Statist. 35, 2008 (SQUAREM).
    .. [3] D. P. Bertsekas, "Projected Newton methods for optimization
       problems with simple constraints", SIAM J. Control Optim. 20(2), 1982.
    .. [4] R. S. Woodruff, "Confidence intervals for medians and other
       position measures", JASA 47(260), 635–646, 1952.
    .. [5] docs/maths.md, section 11.

    Examples
    --------
    >>> import ldp
    >>> m = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> stat = m.aggregate([0, 1, 1, 2, 1])
    >>> f, cov = debiased_levels(m, stat)
    >>> d = binned_distribution(level_channel(m), stat.counts, stat.n,
    ...                         [0.0, 1.0, 2.0], [1.0], debiased=f, covariance=cov)
    >>> d.bins
    ((0.0, 0.0), (1.0, 2.0))
    """
    values = np.asarray(values, dtype=float)
    if values.size != channel.levels:
        raise ValueError(f"{channel.levels} levels but {values.size} values")
    outputs = channel.levels
    if isinstance(channel, HistogramChannel):
        outputs = int(channel.channel.shape[1])
    if outputs < channel.levels:
        raise ValueError(
            f"the reports cannot tell {channel.levels} answer levels apart: "
            f"each report is one of {outputs} distinguishable outputs, so "
            "the answer distribution, its bins and its median are not "
            "identifiable (Duchi's two outputs identify only the mean); use "
            "the mean and its interval instead"
        )
    if n < 1:
        raise ValueError("cannot estimate from zero reports")
    debiased = np.asarray(debiased, dtype=float)
    covariance = np.asarray(covariance, dtype=float)
    if debiased.shape != values.shape or covariance.shape != (values.size,) * 2:
        raise ValueError(
            f"{values.size} levels but debiased shares of shape {debiased.shape} "
            f"and a covariance of shape {covariance.shape}"
        )
    index, edges = bin_index(values, cuts)
    counts = channel.sufficient(np.asarray(counts, dtype=float))
    fitted = channel.point_fit(counts, n)
    nbins = edges.size - 1
    member = np.zeros((values.size, nbins))
    member[np.arange(values.size), index] = 1.0
    bins = tuple(
        (float(values[index == j][0]), float(values[index == j][-1]))
        for j in range(nbins)
    )
    return BinnedDistribution(
        bins=bins,
        shares=fitted @ member,
        n=int(n),
        method=METHOD,
        median=float(level_median(fitted, values)[0]),
        levels=fitted,
        debiased=debiased,
        covariance=covariance,
        member=member,
        edges=edges,
        values=values,
    )


def direct_interval(
    shares: FloatArray, n: int, level: float = 0.95
) -> ConfidenceInterval[FloatArray]:
    """Clopper–Pearson intervals for shares as if ``n`` answers were read
    directly: ``Beta(α/2; x, n − x + 1)`` to ``Beta(1 − α/2; x + 1, n − x)``
    with ``x = n·share`` (0 and 1 at the ends).  Randomization only adds
    noise, so no interval for a share of ``n`` randomized answers should be
    narrower; for ``n ≥ 1`` its width is positive at every share.

    References
    ----------
    .. [1] C. J. Clopper, E. S. Pearson, "The use of confidence or fiducial
       limits illustrated in the case of the binomial", Biometrika 26, 1934.
    """
    check_level(level)
    alpha = 1 - level
    x = np.clip(np.asarray(shares, dtype=float), 0.0, 1.0) * n
    # A fitted share of 1e-80 is no answer: a lower limit of 0 (and Beta
    # functions of such x overflow).
    x = np.where(x < 1e-9, 0.0, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x > 0, stats.beta.ppf(alpha / 2, x, n - x + 1), 0.0)
        high = np.where(x < n, stats.beta.ppf(1 - alpha / 2, x + 1, n - x), 1.0)
    return ConfidenceInterval(np.nan_to_num(low, nan=0.0), np.nan_to_num(high, nan=1.0))


def grid_widened(values: FloatArray, low: float, high: float) -> tuple[float, float]:
    """``[low, high]`` (two of the ``values``) widened by half the gap to
    the neighbouring value on each side, held within ``values[0]`` and
    ``values[-1]``; positive width whenever there are two values or more."""
    values = np.asarray(values, dtype=float)
    below = int(np.searchsorted(values, low, side="left"))
    above = int(np.searchsorted(values, high, side="right")) - 1
    if below > 0:
        low -= (low - float(values[below - 1])) / 2
    if above < values.size - 1:
        high += (float(values[above + 1]) - high) / 2
    return float(low), float(high)


def mechanism_distribution(
    mechanism: Any, stat: Any, cuts: Any
) -> BinnedDistribution | None:
    """:func:`binned_distribution` for a mechanism's support counts.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        See :func:`level_channel`.
    stat : ldp.SupportCounts
        The aggregate of the mechanism's reports (at least 2).
    cuts : sequence of float or None
        Cut points in answer units (level indices for a categorical scale);
        None for one bin per level.

    Returns
    -------
    BinnedDistribution or None
        None when :func:`level_channel` is None.

    Examples
    --------
    >>> import ldp
    >>> m = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> d = mechanism_distribution(m, m.aggregate([0, 1, 1, 2, 1]), None)
    >>> d.bins
    ((0.0, 0.0), (1.0, 1.0), (2.0, 2.0))
    """
    channel = level_channel(mechanism)
    if channel is None:
        return None
    values = mechanism.input_values()
    if values is None:
        values = np.arange(channel.levels, dtype=float)
    debiased, covariance = debiased_levels(mechanism, stat)
    return binned_distribution(
        channel,
        np.asarray(stat.counts),
        int(stat.n),
        values,
        cuts,
        debiased=debiased,
        covariance=covariance,
    )
