"""The result of a finite channel: :class:`ChannelEstimate`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators import consistency
from ldp.estimators.base import not_identifiable
from ldp.estimators.channel.algebra import channel_inversion, channel_mle
from ldp.estimators.intervals import (
    ConfidenceInterval,
    bounded_interval,
    check_level,
    critical_value,
)
from ldp.estimators.mean import MeanEstimate

INTERVAL_METHODS = ("wald",)
CONSISTENT_METHODS = ("norm-sub", "mle")

Inversion = tuple[FloatArray | None, bool]
"""``(A, identifiable)`` as :func:`channel_inversion` returns them."""


@dataclass(frozen=True, eq=False)
class ChannelEstimate:
    """Answer shares by channel inversion, and the mean answer value.

    Implements :class:`ldp.estimators.base.Estimate` for ordinal and numeric
    mechanisms.  The shares ``f̂ = A c/n`` (``A = (Qᵀ)⁺``) are reported only
    when ``identifiable``; Duchi's two outputs, or a numerically singular
    channel, leave only :meth:`mean`.

    Attributes
    ----------
    n : int
        Number of reports.
    counts : ndarray
        Report histogram ``c_y``.
    channel : ndarray
        ``Q[x, y]``.
    values : ndarray
        Value of each answer level.
    mechanism : str
        Mechanism name.
    epsilon : float
        Delivered ε (rounded up).
    invert : callable
        Returns ``(A, identifiable)`` as :func:`channel_inversion` does; called
        only when the shares are first needed (inverting a large channel
        costs far more than the score mean).
    score_mean : MeanEstimate or None
        The score mean (numeric grids); None to take the mean of the shares
        (ordinal scales).
    sums_to_one : bool
        Always True (the shares of a square channel sum to 1 exactly, of a
        wide one in expectation).
    interval_methods : tuple of str
        ``("wald",)``.
    consistent_methods : tuple of str
        ``("norm-sub", "mle")``, the first being the default.

    Examples
    --------
    >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> est = channel_estimate(np.array([60, 40]), q, np.array([0.0, 1.0]),
    ...                        mechanism="ordinal", epsilon=1.1)
    >>> est.estimate
    array([0.7, 0.3])
    >>> round(est.mean().estimate, 3)
    0.3
    """

    n: int
    counts: IntArray = field(repr=False)
    channel: FloatArray = field(repr=False)
    values: FloatArray = field(repr=False)
    mechanism: str = ""
    epsilon: float = float("nan")
    invert: Callable[[], Inversion] | None = field(default=None, repr=False)
    score_mean: MeanEstimate | None = field(default=None, repr=False)

    sums_to_one: ClassVar[bool] = True
    interval_methods: ClassVar[tuple[str, ...]] = INTERVAL_METHODS
    consistent_methods: ClassVar[tuple[str, ...]] = CONSISTENT_METHODS

    @cached_property
    def _inversion(self) -> Inversion:
        if self.invert is None:
            return channel_inversion(self.channel)
        return self.invert()

    @property
    def inversion(self) -> FloatArray | None:
        """``A = (Qᵀ)⁺``, None when the channel has fewer outputs than inputs.

        Returns
        -------
        ndarray or None
            The matrix that maps report shares to answer shares.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([5, 5]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.inversion
        array([[ 1.5, -0.5],
               [-0.5,  1.5]])
        """
        return self._inversion[0]

    @property
    def identifiable(self) -> bool:
        """Whether the answer shares are reported (see :func:`channel_inversion`).

        Returns
        -------
        bool
            False for fewer outputs than inputs (Duchi) or a numerically
            singular channel.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([5, 5]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.identifiable
        True
        """
        return self._inversion[1]

    @cached_property
    def _distribution(self) -> tuple[FloatArray, FloatArray]:
        """``(f̂, Cov)`` from the inversion, whether or not it is reported."""
        a = self.inversion
        if a is None:
            raise not_identifiable(self.mechanism)
        shares = self.counts / self.n
        estimate = a @ shares
        middle = np.diag(shares) - np.outer(shares, shares)
        return estimate, a @ middle @ a.T / self.n

    @property
    def estimate(self) -> FloatArray:
        """Unbiased share of each answer level (empty when not identifiable).

        Returns
        -------
        ndarray
            ``f̂ = (Qᵀ)⁺ c/n``; may be negative.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([5, 5]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.estimate
        array([0.5, 0.5])
        """
        if not self.identifiable:
            return np.empty(0)
        return self._distribution[0]

    @property
    def covariance(self) -> FloatArray:
        """Sandwich covariance of the shares (empty when not identifiable).

        Returns
        -------
        ndarray, shape (k, k)
            ``A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n`` with ``λ̂ = c/n``.

        Notes
        -----
        ``c ~ Multinomial(n, Qᵀ f)``, so ``Cov(c/n) = (diag(λ) − λλᵀ)/n``.

        References
        ----------
        .. [1] docs/maths.md, section 6.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([5, 5]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.covariance
        array([[ 0.1, -0.1],
               [-0.1,  0.1]])
        """
        if not self.identifiable:
            return np.empty((0, 0))
        return self._distribution[1]

    @cached_property
    def _variance_floors(self) -> FloatArray:
        """``min_x' Var(a[Y] | x')`` for every score row ``a`` of ``[A; vᵀA]``.

        The share ``f̂_x`` is the mean of the scores ``A[x, y_i]`` and the
        mean ``vᵀ f̂`` that of ``(Aᵀv)[y_i]``; one report's score has variance
        at least its smallest variance given an answer (law of total
        variance), whatever the answers are.
        """
        a = self.inversion
        if a is None:
            raise not_identifiable(self.mechanism)
        scores = np.vstack([a, self.values @ a])
        q = self.channel
        variance = q @ (scores * scores).T - (q @ scores.T) ** 2
        floors: FloatArray = np.maximum(variance.min(axis=0), 0.0)
        return floors

    @property
    def standard_error(self) -> FloatArray:
        """Standard error of each share (empty when not identifiable).

        Returns
        -------
        ndarray
            ``sqrt(diag(Cov))``.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([5, 5]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.standard_error.round(4)
        array([0.3162, 0.3162])
        """
        return np.sqrt(np.maximum(np.diag(self.covariance), 0.0))

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        simultaneous: bool = False,
    ) -> ConfidenceInterval[FloatArray]:
        """Normal (Wald) intervals ``f̃_x ± z·SE'_x`` held within [0, 1].

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        method : {"wald"}, optional
            The only method.
        simultaneous : bool, optional
            Bonferroni over the k levels.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays within [0, 1], of positive width.

        Raises
        ------
        ValueError
            For a level outside (0, 1), another method, or shares that are
            not identifiable.

        Notes
        -----
        ``f̂`` is a linear map of a multinomial mean: asymptotically normal.
        ``SE'²_x = max(SE²_x, V₀_x/n)`` where ``V₀_x = min_x' Var(A[x, Y] |
        x')`` bounds the variance of one report's score from below (law of
        total variance), so identical reports cannot give a point; the
        interval is centred on ``f̂`` moved towards [0, 1] and intersected with
        it, which never covers less (docs/maths.md, section 6.8).

        References
        ----------
        .. [1] docs/maths.md, section 6.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([50, 50]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.confidence_interval(0.95).low.round(3)
        array([0.304, 0.304])
        """
        check_level(level)
        if (method or INTERVAL_METHODS[0]) not in INTERVAL_METHODS:
            raise ValueError(f"method is {method!r}; allowed: {list(INTERVAL_METHODS)}")
        if not self.identifiable:
            raise not_identifiable(self.mechanism)
        k = self.estimate.size
        z = critical_value(1 - (1 - level) / (k if simultaneous else 1))
        floors = self._variance_floors[:k] / self.n
        half = z * np.sqrt(np.maximum(self.standard_error**2, floors))
        return bounded_interval(self.estimate, half, 0.0, 1.0)

    def consistent(self, method: str | None = None) -> FloatArray:
        """Non-negative shares summing to 1.

        Parameters
        ----------
        method : {"norm-sub", "mle"}, optional
            Euclidean projection of ``f̂`` onto the simplex (default), or the
            multinomial maximum-likelihood estimate by EM on the channel.

        Returns
        -------
        ndarray
            Shares on the simplex.

        Raises
        ------
        ValueError
            For an unknown method, or shares that are not identifiable.

        Notes
        -----
        EM: ``f_x ← Σ_y (c_y/n) Q[x, y] f_x / Σ_x' Q[x', y] f_x'``.

        References
        ----------
        .. [1] T. Wang et al., "Locally differentially private frequency
           estimation with consistency", NDSS 2020.
        .. [2] D. Agrawal, C. C. Aggarwal, PODS 2001.
        .. [3] docs/maths.md, section 6.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([98, 2]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.estimate
        array([ 1.46, -0.46])
        >>> est.consistent()
        array([1., 0.])
        """
        method = method or self.consistent_methods[0]
        if method not in self.consistent_methods:
            raise ValueError(f"method is {method!r}; allowed: 'norm-sub', 'mle'")
        if not self.identifiable:
            raise not_identifiable(self.mechanism)
        if method == "norm-sub":
            return consistency.project_simplex(self.estimate)
        return channel_mle(self.channel, self.counts)

    def mean(self) -> MeanEstimate:
        """The mean answer value with its standard error.

        Returns
        -------
        MeanEstimate
            The score mean (numeric grids), or ``vᵀ f̂`` with SE
            ``sqrt(vᵀ Cov v)`` (ordinal scales); both unbiased.

        Notes
        -----
        ``vᵀ A c/n`` is the score mean with ``s = Aᵀ v``, so the two agree up
        to rounding for a square channel.

        References
        ----------
        .. [1] docs/maths.md, sections 5 and 6.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([60, 40]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> round(est.mean().standard_error, 4)
        0.098
        """
        if self.score_mean is not None:
            return self.score_mean
        estimate, covariance = self._distribution
        v = self.values
        variance = float(v @ covariance @ v)
        return MeanEstimate(
            n=self.n,
            estimate=float(v @ estimate),
            standard_error=float(np.sqrt(max(variance, 0.0))),
            mechanism=self.mechanism,
            epsilon=self.epsilon,
            variance_floor=float(self._variance_floors[-1]),
            bounds=(float(v.min()), float(v.max())),
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict.

        Returns
        -------
        dict
            ``n``, ``mechanism``, ``epsilon``, ``identifiable``, ``estimate``,
            ``standard_error``, ``consistent`` (Norm-Sub), ``counts`` and
            ``mean`` (:meth:`MeanEstimate.to_dict`); the share lists are
            empty when not identifiable.

        Examples
        --------
        >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
        >>> est = channel_estimate(np.array([60, 40]), q, np.array([0.0, 1.0]),
        ...                        mechanism="ordinal", epsilon=1.1)
        >>> est.to_dict()["consistent"]
        [0.7, 0.3]
        """
        return {
            "n": self.n,
            "mechanism": self.mechanism,
            "epsilon": float(self.epsilon),
            "identifiable": self.identifiable,
            "estimate": [float(x) for x in self.estimate],
            "standard_error": [float(x) for x in self.standard_error],
            "consistent": (
                [float(x) for x in self.consistent()] if self.identifiable else []
            ),
            "counts": [int(c) for c in self.counts],
            "mean": self.mean().to_dict(),
        }


def channel_estimate(
    counts: IntArray,
    channel: FloatArray,
    values: FloatArray,
    *,
    mechanism: str,
    epsilon: float,
    invert: Callable[[], Inversion] | None = None,
    score_mean: MeanEstimate | None = None,
) -> ChannelEstimate:
    """Estimate answer shares and the mean from a finite channel's reports.

    Parameters
    ----------
    counts : ndarray, shape (outputs,)
        Report histogram (``n = Σ c_y >= 2``).
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    values : ndarray, shape (k,)
        The value of each answer (for the mean).
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).
    invert : callable, optional
        Returns ``(A, identifiable)``; by default :func:`channel_inversion` of
        ``channel``, called when the shares are first needed (a mechanism
        passes its cached pair).
    score_mean : MeanEstimate, optional
        The score mean (:func:`ldp.estimators.mean.mean_estimate`); by default
        the mean is ``vᵀ f̂``.

    Returns
    -------
    ChannelEstimate
        ``f̂ = A c/n``, ``Cov = A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n`` (``λ̂ = c/n``) and
        the mean.

    Raises
    ------
    ValueError
        For fewer than 2 reports.

    Notes
    -----
    ``c ~ Multinomial(n, Qᵀ f)``; ``A Qᵀ = I`` for a channel of full row rank,
    so ``A c/n`` is unbiased for ``f``.

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, "On the design and quantification of
       privacy preserving data mining algorithms", PODS 2001.
    .. [2] docs/maths.md, section 6.

    Examples
    --------
    >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> est = channel_estimate(np.array([60, 40]), q, np.array([0.0, 1.0]),
    ...                        mechanism="ordinal", epsilon=1.1)
    >>> est.identifiable, est.estimate
    (True, array([0.7, 0.3]))
    """
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    if n < 2:
        raise ValueError(f"need at least 2 reports, got {n}")
    q = np.asarray(channel, dtype=float)
    return ChannelEstimate(
        n=n,
        counts=c.copy(),
        channel=q,
        values=np.asarray(values, dtype=float),
        mechanism=mechanism,
        epsilon=epsilon,
        invert=invert,
        score_mean=score_mean,
    )
