"""Binned answer distributions with bootstrap intervals, for valued answers.

For an ordinal or numeric question the per-level inversion ``f̂ = A c/n`` is
unbiased but, at a few hundred reports, far too noisy to read (shares of
−4000%).  This module reports instead the constrained maximum-likelihood
distribution over the levels, summed into a few researcher-chosen bins, with
parametric-bootstrap percentile intervals for each bin share and the median.
Post-processing of the reports only: it costs no privacy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.intervals import ConfidenceInterval, check_level
from ldp.estimators.level_channels import (
    HistogramChannel,
    LevelChannel,
    level_channel,
)

METHOD = "constrained maximum likelihood, bootstrap interval"
MAX_BINS = 20
RESAMPLES = 200


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


def level_median(shares: FloatArray, values: FloatArray) -> FloatArray:
    """The lower median of each row: the smallest ``v_x`` with ``F(v_x) >= 1/2``."""
    cumulative = np.cumsum(np.atleast_2d(shares), axis=1)
    position = np.argmax(cumulative >= 0.5 - 1e-12, axis=1)
    medians: FloatArray = np.asarray(values, dtype=float)[position]
    return medians


@dataclass(frozen=True, eq=False)
class BinnedDistribution:
    """Constrained-MLE answer distribution summed into bins, with bootstrap.

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
        The fitted level shares ``f̂`` (on the simplex).
    replicates : ndarray, shape (B, bins)
        Bin shares of the bootstrap refits.
    median_replicates : ndarray, shape (B,)
        Medians of the bootstrap refits.
    edges : ndarray
        The bin edges in answer units.
    values : ndarray
        The answer value of each level, increasing.

    Examples
    --------
    >>> import ldp
    >>> m = ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 2.0})
    >>> stat = m.aggregate([0, 0, 1, 2, 2, 2, 1, 0, 2, 2])
    >>> d = binned_distribution(HistogramChannel(m.channel_matrix()), stat.counts,
    ...                         stat.n, m.input_values(), [1], seed=1)
    >>> round(float(d.shares.sum()), 9), d.bins
    (1.0, ((0.0, 0.0), (1.0, 2.0)))
    """

    bins: tuple[tuple[float, float], ...]
    shares: FloatArray
    n: int
    method: str
    median: float
    levels: FloatArray = field(repr=False)
    replicates: FloatArray = field(repr=False)
    median_replicates: FloatArray = field(repr=False)
    edges: FloatArray = field(repr=False)
    values: FloatArray = field(repr=False)

    def confidence_interval(
        self, level: float = 0.95
    ) -> ConfidenceInterval[FloatArray]:
        """Percentile bootstrap interval of each bin share.

        Parameters
        ----------
        level : float
            Confidence level in (0, 1).

        Returns
        -------
        ConfidenceInterval
            The ``(1−level)/2`` and ``(1+level)/2`` quantiles of the bootstrap
            bin shares, widened to contain the estimate and
            :func:`direct_interval` (never narrower than ``n`` answers read
            without randomization would give, so never of zero width: at a
            share of 0 or 1 every refit can land on the same boundary).

        References
        ----------
        .. [1] B. Efron, R. J. Tibshirani, "An Introduction to the Bootstrap",
           Chapman & Hall 1993, chapter 13 (the percentile interval).
        """
        check_level(level)
        tail = (1 - level) / 2
        low, high = np.quantile(self.replicates, [tail, 1 - tail], axis=0)
        floor = direct_interval(self.shares, self.n, level)
        return ConfidenceInterval(
            np.minimum(np.minimum(low, self.shares), floor.low),
            np.maximum(np.maximum(high, self.shares), floor.high),
        )

    def median_interval(self, level: float = 0.95) -> ConfidenceInterval[float]:
        """Percentile bootstrap interval of the median, widened by half a
        grid step on each side.

        The median is one of the levels ``v_x``: a percentile interval
        ``[v_lo, v_hi]`` of the bootstrap medians (the inverse of their
        empirical distribution function, not an interpolation; widened, if
        need be, to contain the estimate) collapses to one point ("5 to 5")
        whenever every refit has the same median, which a bounded discrete
        distribution makes likely.  The answers are on a grid, so a median
        ``v_x`` stands for the answers that round to it: the interval is
        ``[v_lo − (v_lo − v_{lo−1})/2, v_hi + (v_{hi+1} − v_hi)/2]``, held
        within the answer range.  Its width is at least half a grid step, so it
        never collapses (Efron & Tibshirani 1993, ch. 13, for the percentile
        interval; the half-step for answers on a grid as in the grouped
        median's class limits).
        """
        check_level(level)
        tail = (1 - level) / 2
        low, high = np.quantile(
            self.median_replicates, [tail, 1 - tail], method="inverted_cdf"
        )
        low, high = min(float(low), self.median), max(float(high), self.median)
        return ConfidenceInterval(*grid_widened(self.values, low, high))

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
            "resamples": int(self.replicates.shape[0]),
        }


def binned_distribution(
    channel: LevelChannel,
    counts: Any,
    n: int,
    values: Any,
    cuts: Any,
    *,
    resamples: int = RESAMPLES,
    seed: int | np.random.Generator | None = 0,
) -> BinnedDistribution:
    """Bin shares and median of the constrained MLE, with bootstrap replicates.

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
    resamples : int
        Bootstrap resamples ``B`` (at least 20).
    seed : int or numpy.random.Generator
        Seeds the bootstrap; equal seeds give equal results.

    Returns
    -------
    BinnedDistribution
        Bin shares and median of the fit, with the bootstrap replicates their
        intervals are read from.

    Raises
    ------
    ValueError
        For a channel with fewer distinguishable outputs than levels (Duchi):
        the likelihood is then flat along a whole family of distributions,
        and any single fit (with its bootstrap) would be tight and wrong; for
        values not matching the levels, no reports, too few resamples or bad
        cut points (:func:`bin_index`).

    Notes
    -----
    1. ``f̂ = argmax_{f ∈ simplex} ℓ(f; c)``, the likelihood of the reports
       given the level distribution, by EM iterated to convergence (the EM
       map keeps ``f`` on the simplex and never lowers ``ℓ``).
    2. Bin share ``b_j = Σ_{x: v_x in bin j} f̂_x``; median
       ``min {v_x : Σ_{x' <= x} f̂_x' >= 1/2}``.
    3. Parametric bootstrap: ``B`` times draw ``c* `` from the channel with
       answers from ``f̂``, refit ``f̂*`` and record ``b*`` and the median.
       The percentile interval is the ``α/2`` and ``1 − α/2`` quantiles of
       ``b*_j`` (each widened if needed to contain the estimate).

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, "On the design and quantification of
       privacy preserving data mining algorithms", PODS 2001 (EM
       reconstruction under randomization).
    .. [2] B. Efron, R. J. Tibshirani, "An Introduction to the Bootstrap",
       Chapman & Hall 1993, chapters 6 (parametric bootstrap) and 13
       (percentile intervals).
    .. [3] R. Varadhan, C. Roland, "Simple and globally convergent methods
       for accelerating the convergence of any EM algorithm", Scand. J.
       Statist. 35, 2008 (SQUAREM).
    .. [4] docs/maths.md, section 11.

    Examples
    --------
    >>> import ldp
    >>> m = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
    >>> stat = m.aggregate([0, 1, 1, 2, 1])
    >>> d = binned_distribution(level_channel(m), stat.counts, stat.n,
    ...                         [0.0, 1.0, 2.0], [1.0], resamples=20)
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
    if resamples < 20:
        raise ValueError(f"at least 20 bootstrap resamples, got {resamples}")
    index, edges = bin_index(values, cuts)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    counts = channel.sufficient(np.asarray(counts, dtype=float))
    fitted = channel.fit(counts[None, :], n)[0]
    simulated = channel.simulate(fitted, n, resamples, rng)
    refits = channel.fit(simulated, n)
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
        replicates=refits @ member,
        median_replicates=level_median(refits, values),
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
    mechanism: Any,
    stat: Any,
    cuts: Any,
    *,
    resamples: int = RESAMPLES,
    seed: int | np.random.Generator | None = 0,
) -> BinnedDistribution | None:
    """:func:`binned_distribution` for a mechanism's support counts.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        See :func:`level_channel`.
    stat : ldp.SupportCounts
        The aggregate of the mechanism's reports.
    cuts : sequence of float or None
        Cut points in answer units (level indices for a categorical scale);
        None for one bin per level.
    resamples : int
        Bootstrap resamples, as for :func:`binned_distribution`.
    seed : int or numpy.random.Generator
        Seeds the bootstrap, as for :func:`binned_distribution`.

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
    return binned_distribution(
        channel,
        np.asarray(stat.counts),
        int(stat.n),
        values,
        cuts,
        resamples=resamples,
        seed=seed,
    )
