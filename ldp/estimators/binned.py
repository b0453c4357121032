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

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.consistency import binomial_mle
from ldp.estimators.intervals import ConfidenceInterval, check_level

METHOD = "constrained maximum likelihood, bootstrap interval"
MAX_BINS = 20
RESAMPLES = 200
TOLERANCE = 1e-9
MAX_ITERATIONS = 2_000


def _squarem(
    step: Any, loglik: Any, start: FloatArray, tol: float, max_iter: int
) -> FloatArray:
    """Run a simplex-preserving EM map ``step`` to convergence, row by row.

    SQUAREM (Varadhan & Roland 2008, scheme S3): from ``f0``,
    ``r = EM(f0) − f0``, ``v = EM(EM(f0)) − 2 EM(f0) + f0``,
    ``α = −‖r‖/‖v‖`` (at most −1) and ``f = EM(f0 − 2αr + α²v)``; a row
    whose extrapolation leaves the simplex or lowers the likelihood falls back
    to the plain double EM step, so the log-likelihood never decreases.  Rows
    stop when their log-likelihood gains less than ``tol``.
    """
    f = start.copy()
    current = loglik(f)
    active = np.ones(f.shape[0], dtype=bool)
    for _ in range(max_iter):
        rows = np.nonzero(active)[0]
        if rows.size == 0:
            break
        f0 = f[rows]
        f1 = step(f0, rows)
        f2 = step(f1, rows)
        r, v = f1 - f0, f2 - 2 * f1 + f0
        r_norm = np.linalg.norm(r, axis=1)
        v_norm = np.linalg.norm(v, axis=1)
        alpha = -np.divide(r_norm, v_norm, out=np.ones_like(r_norm), where=v_norm > 0)
        alpha = np.minimum(alpha, -1.0)[:, None]
        jump = f0 - 2 * alpha * r + alpha**2 * v
        jump = np.maximum(jump, 1e-12)
        empty = jump.sum(axis=1) <= 0
        jump[empty] = f2[empty]
        jump /= jump.sum(axis=1, keepdims=True)
        candidate = step(jump, rows)
        gained = loglik(candidate, rows)
        plain = loglik(f2, rows)
        worse = gained < plain
        candidate[worse] = f2[worse]
        gained = np.where(worse, plain, gained)
        f[rows] = candidate
        active[rows] = gained - current[rows] >= tol
        current[rows] = gained
    return f


@dataclass(frozen=True)
class HistogramChannel:
    """Each report is one of ``m`` outputs: ``Q[x, y] = P(report y | level x)``.

    The ordinal, numeric-grid, GRR and binary mechanisms.  The reports are
    i.i.d. multinomial with cell probabilities ``(Qᵀ f)_y``.
    """

    channel: FloatArray
    # Which column of ``channel`` each report value counts towards (None: its
    # own); see :meth:`merged`.
    groups: IntArray | None = None

    @classmethod
    def merged(cls, matrix: FloatArray) -> HistogramChannel:
        """The channel with identical columns merged into one (their sum).

        Reports whose columns ``Q[:, y]`` are equal are indistinguishable to
        the likelihood: with a merged column ``Q'[:, g] = Σ_{y in g} Q[:, y]``
        and merged counts ``c'_g = Σ_{y in g} c_y``,
        ``Σ_y c_y ln (Qᵀf)_y = Σ_g c'_g ln (Q'ᵀf)_g − Σ_g c'_g ln |g|``, so the
        maximiser, every EM iterate and the multinomial law of ``c'`` are the
        same, with fewer columns to multiply (the piecewise mechanism on 201
        levels at ε = 1: 643 report values, 401 distinct columns).
        """
        matrix = np.asarray(matrix, dtype=float)
        _, first, groups = np.unique(
            matrix.T, axis=0, return_index=True, return_inverse=True
        )
        if first.size == matrix.shape[1]:
            return cls(matrix)
        groups = np.asarray(groups, dtype=np.int64).reshape(-1)
        summed = np.zeros((matrix.shape[0], first.size))
        np.add.at(summed.T, groups, matrix.T)
        return cls(summed, groups)

    @property
    def levels(self) -> int:
        return int(self.channel.shape[0])

    def sufficient(self, counts: FloatArray) -> FloatArray:
        """The report histogram on the (merged) columns of ``channel``."""
        counts = np.asarray(counts, dtype=float)
        if self.groups is None:
            return counts
        merged: FloatArray = np.zeros(self.channel.shape[1])
        np.add.at(merged, self.groups, counts)
        return merged

    def fit(self, counts: FloatArray, n: int) -> FloatArray:
        """Maximise ``Σ_y c_y ln (Qᵀ f)_y`` over the simplex by EM.

        EM step (Agrawal & Aggarwal 2001, section 3):
        ``f_x ← f_x Σ_y (c_y/n) Q[x, y] / (Qᵀ f)_y``, accelerated by SQUAREM.
        """
        q = np.asarray(self.channel, dtype=float)
        shares = np.atleast_2d(np.asarray(counts, dtype=float)) / n

        def predicted(f: FloatArray) -> FloatArray:
            out: FloatArray = np.maximum(f @ q, 1e-300)
            return out

        def step(f: FloatArray, rows: IntArray) -> FloatArray:
            ratio = shares[rows] / predicted(f)
            updated: FloatArray = f * (ratio @ q.T)
            normalised: FloatArray = updated / updated.sum(axis=1, keepdims=True)
            return normalised

        def loglik(f: FloatArray, rows: IntArray | None = None) -> FloatArray:
            s = shares if rows is None else shares[rows]
            value: FloatArray = np.sum(s * np.log(predicted(f)), axis=1)
            return value

        start = np.full((shares.shape[0], self.levels), 1.0 / self.levels)
        return _squarem(step, loglik, start, TOLERANCE, MAX_ITERATIONS)

    def simulate(
        self, shares: FloatArray, n: int, size: int, rng: np.random.Generator
    ) -> FloatArray:
        """Counts ``c ~ Multinomial(n, Qᵀ f)``, ``size`` times."""
        cells = np.clip(shares @ self.channel, 0.0, None)
        counts = rng.multinomial(n, cells / cells.sum(), size=size)
        return np.asarray(counts, dtype=float)


@dataclass(frozen=True)
class UnaryChannel:
    """Unary encoding: one bit per level, on with ``p`` for the answer, else ``q``.

    The support count of level ``v`` is ``C_v = Bin(n_v, p) + Bin(n − n_v, q)``
    with ``(n_v) ~ Multinomial(n, f)``; the bits are independent given the
    answer, so the simulation is exact.
    """

    p: float
    q: float
    levels: int

    def sufficient(self, counts: FloatArray) -> FloatArray:
        """The support counts, as they are."""
        return np.asarray(counts, dtype=float)

    def fit(self, counts: FloatArray, n: int) -> FloatArray:
        """Maximise ``Σ_x C_x ln λ_x + (n − C_x) ln(1 − λ_x)`` on the simplex.

        ``λ_x = q + (p − q) f_x``: the per-bit binomial (composite) likelihood
        of the support counts, solved exactly by
        :func:`ldp.estimators.consistency.binomial_mle` (KKT conditions and
        bisection on the multiplier; Wang et al., NDSS 2020, section 4).
        """
        rows = np.atleast_2d(np.asarray(counts, dtype=float))
        p = np.full(self.levels, self.p)
        q = np.full(self.levels, self.q)
        fitted: FloatArray = np.vstack(
            [binomial_mle(row.astype(np.int64), n, p, q, steps=80) for row in rows]
        )
        return fitted

    def simulate(
        self, shares: FloatArray, n: int, size: int, rng: np.random.Generator
    ) -> FloatArray:
        """Support counts of ``size`` simulated samples of ``n`` respondents."""
        answers = rng.multinomial(n, shares / shares.sum(), size=size)
        on = rng.binomial(answers, self.p) + rng.binomial(n - answers, self.q)
        return np.asarray(on, dtype=float)


LevelChannel = HistogramChannel | UnaryChannel
"""How reports arise from answer levels: ``fit`` and ``simulate``, vectorised."""


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
            bin shares.

        References
        ----------
        .. [1] B. Efron, R. J. Tibshirani, "An Introduction to the Bootstrap",
           Chapman & Hall 1993, chapter 13 (the percentile interval).
        """
        check_level(level)
        tail = (1 - level) / 2
        low, high = np.quantile(self.replicates, [tail, 1 - tail], axis=0)
        return ConfidenceInterval(
            np.minimum(low, self.shares), np.maximum(high, self.shares)
        )

    def median_interval(self, level: float = 0.95) -> ConfidenceInterval[float]:
        """Percentile bootstrap interval of the median (Efron & Tibshirani, ch. 13)."""
        check_level(level)
        tail = (1 - level) / 2
        # The median is a level, so its bounds are levels too (the inverse of
        # the empirical distribution function, not an interpolation).
        low, high = np.quantile(
            self.median_replicates, [tail, 1 - tail], method="inverted_cdf"
        )
        return ConfidenceInterval(
            min(float(low), self.median), max(float(high), self.median)
        )

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
    )


def level_channel(mechanism: Any) -> LevelChannel | None:
    """The channel of a mechanism over its levels, or None when there is none.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        An ordinal, numeric-grid, GRR, binary or unary-encoding mechanism.

    Returns
    -------
    HistogramChannel, UnaryChannel or None
        None for hashing oracles (OLH, Hadamard: no small channel to
        simulate) and for channels with fewer outputs than levels (Duchi's
        two outputs identify only the mean).

    Notes
    -----
    A histogram channel is ``Q = mechanism.channel_matrix()`` with identical
    columns merged (:meth:`HistogramChannel.merged`); unary
    encoding is described by its realised ``p*``, ``q*`` (docs/maths.md,
    section 2).
    """
    if getattr(mechanism, "one_hot_bits", False):
        p, q = float(mechanism.p_star[0]), float(mechanism.q_star[0])
        return UnaryChannel(p, q, int(mechanism.k))
    try:
        matrix = np.asarray(mechanism.channel_matrix(), dtype=float)
    except NotImplementedError:
        return None
    if matrix.shape[1] < matrix.shape[0]:
        return None
    return HistogramChannel.merged(matrix)


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
