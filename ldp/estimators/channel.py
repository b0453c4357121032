"""Finite channels (ordinal, numeric): channel inversion, scores and the result.

Everything here is post-processing of the report histogram ``c_y``:
:func:`channel_estimate` inverts the channel for the answer shares and
averages scores (or the shares) for the mean; :class:`ChannelEstimate`
carries both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators import consistency
from ldp.estimators.base import not_identifiable
from ldp.estimators.intervals import (
    ConfidenceInterval,
    check_level,
    critical_value,
)
from ldp.estimators.mean import MeanEstimate, mean_estimate

INTERVAL_METHODS = ("wald",)
CONSISTENT_METHODS = ("norm-sub", "mle")
CONDITION_MAX = 1e6
"""Largest condition number of ``Q`` for which answer shares are reported:
beyond it inverting the channel amplifies the noise so much that the shares
carry no usable information (their mean is still estimated)."""


def score_vector(channel: FloatArray, values: FloatArray) -> tuple[FloatArray, float]:
    """Minimum-norm score ``s`` with ``Q s = v``, and its worst-case residual.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y] = P(report y | answer x)``.
    values : ndarray, shape (k,)
        ``v_x``, the value of each answer.

    Returns
    -------
    scores : ndarray, shape (outputs,)
        ``s = Q⁺ v`` (least squares, minimum norm).
    bias : float
        ``max_x |(Q s)_x − v_x|``: zero up to rounding when ``v`` is in the
        range of ``Q``, else the worst-case bias of the score mean.

    Notes
    -----
    Square ``Q``: ``s = Q⁻¹ v``; wide ``Q`` (more outputs than inputs):
    ``s = Qᵀ (Q Qᵀ)⁻¹ v``, the minimum-norm solution; otherwise (or when
    those are inaccurate) the SVD least-squares solution.
    ``E[s[Y] | x] = (Q s)_x``, so when ``Q s = v`` the average of ``s[y_i]`` is
    unbiased for the mean of the true values.

    References
    ----------
    .. [1] docs/maths.md, section 5 (unbiased mean for any channel).
    """
    q = np.asarray(channel, dtype=float)
    v = np.asarray(values, dtype=float)
    tolerance = 1e-9 * (float(np.max(np.abs(v))) + 1.0)
    fast = None
    try:
        if q.shape[0] == q.shape[1]:
            fast = np.linalg.solve(q, v)
        elif q.shape[1] > q.shape[0]:
            fast = q.T @ np.linalg.solve(q @ q.T, v)
    except np.linalg.LinAlgError:
        fast = None
    if fast is not None and np.all(np.isfinite(fast)):
        residual = float(np.max(np.abs(q @ fast - v)))
        if residual <= tolerance:
            return fast, residual
    scores = np.linalg.lstsq(q, v, rcond=None)[0]
    return scores, float(np.max(np.abs(q @ scores - v)))


def inversion_matrix(channel: FloatArray) -> FloatArray:
    """``A = (Qᵀ)⁺``: maps report shares ``λ`` to answer shares ``f``.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        With ``outputs >= k`` and full row rank.

    Returns
    -------
    ndarray, shape (k, outputs)
        The inverse of ``Qᵀ`` (square) or its least-squares pseudo-inverse.

    Notes
    -----
    ``A Qᵀ = I``, so ``A c/n`` is unbiased for ``f``.

    References
    ----------
    .. [1] docs/maths.md, section 6.
    """
    return np.linalg.pinv(np.asarray(channel, dtype=float).T)


def channel_mle(
    channel: FloatArray,
    counts: IntArray,
    tol: float = 1e-10,
    max_iter: int = 10_000,
) -> FloatArray:
    """Multinomial maximum-likelihood answer shares by EM on the channel.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    counts : ndarray, shape (outputs,)
        Report histogram ``c_y``.
    tol : float, optional
        Stop when the mean log-likelihood per report gains less than ``tol``.
    max_iter : int, optional
        Iteration cap.

    Returns
    -------
    ndarray, shape (k,)
        Shares on the simplex.

    Notes
    -----
    Iterative Bayesian update
    ``f_x ← Σ_y (c_y/n) Q[x, y] f_x / Σ_x' Q[x', y] f_x'``; each step raises
    ``ℓ(f) = Σ_y (c_y/n) ln (Qᵀ f)_y``.  Stopping on the likelihood (not the
    shares) keeps boundary solutions, where EM creeps, fast; the stopping
    error in ``ℓ`` is far below the sampling error.

    References
    ----------
    .. [1] D. Agrawal, C. C. Aggarwal, PODS 2001.
    .. [2] T. Wang et al., NDSS 2020, section 4 (MLE-based consistency).
    .. [3] docs/maths.md, section 6.
    """
    q = np.asarray(channel, dtype=float)
    shares = np.asarray(counts, dtype=float)
    shares = shares / shares.sum()
    used = shares > 0
    q_used, shares_used = q[:, used], shares[used]
    f = np.full(q.shape[0], 1.0 / q.shape[0])
    previous = -np.inf
    for _ in range(max_iter):
        predicted = f @ q_used
        likelihood = float(shares_used @ np.log(predicted))
        if likelihood - previous < tol:
            break
        previous = likelihood
        f = f * (q_used @ (shares_used / predicted))
        f /= f.sum()
    return f


def channel_inversion(channel: FloatArray) -> tuple[FloatArray | None, bool]:
    """The inversion matrix of a channel and whether it identifies the shares.

    Parameters
    ----------
    channel : ndarray, shape (k, outputs)
        ``Q[x, y] = P(report y | answer x)``.

    Returns
    -------
    inversion : ndarray or None
        ``A = (Qᵀ)⁺`` (:func:`inversion_matrix`); None when the channel has
        fewer outputs than inputs (Duchi), so no linear map recovers the
        shares.
    identifiable : bool
        True when ``A`` exists and the condition number of ``Q`` is below
        :data:`CONDITION_MAX`.

    Notes
    -----
    ``cond(Q) = σ_max/σ_min`` bounds how much ``A`` amplifies the error of
    ``c/n``; a numerically singular channel (a wide Gaussian kernel) has an
    unbiased but useless inversion.

    References
    ----------
    .. [1] docs/maths.md, section 6.

    Examples
    --------
    >>> inversion, identifiable = channel_inversion(np.array([[0.75, 0.25],
    ...                                                       [0.25, 0.75]]))
    >>> inversion
    array([[ 1.5, -0.5],
           [-0.5,  1.5]])
    >>> identifiable
    True
    >>> channel_inversion(np.full((3, 2), 0.5))
    (None, False)
    """
    q = np.asarray(channel, dtype=float)
    if q.shape[1] < q.shape[0]:
        return None, False
    return inversion_matrix(q), bool(np.linalg.cond(q) < CONDITION_MAX)


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
    inversion : ndarray or None
        ``A = (Qᵀ)⁺``, None when the channel has fewer outputs than inputs.
    identifiable : bool
        Whether the answer shares are reported (see :func:`channel_inversion`).
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
    >>> inversion, identifiable = channel_inversion(q)
    >>> est = channel_estimate(np.array([60, 40]), q, np.array([0.0, 1.0]),
    ...                        mechanism="ordinal", epsilon=1.1,
    ...                        inversion=inversion, identifiable=identifiable)
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
    inversion: FloatArray | None = field(default=None, repr=False)
    identifiable: bool = False
    score_mean: MeanEstimate | None = field(default=None, repr=False)

    sums_to_one: ClassVar[bool] = True
    interval_methods: ClassVar[tuple[str, ...]] = INTERVAL_METHODS
    consistent_methods: ClassVar[tuple[str, ...]] = CONSISTENT_METHODS

    @cached_property
    def _distribution(self) -> tuple[FloatArray, FloatArray]:
        """``(f̂, Cov)`` from the inversion, whether or not it is reported."""
        if self.inversion is None:
            raise not_identifiable(self.mechanism)
        a = self.inversion
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
        """Normal (Wald) intervals ``f̂_x ± z·SE_x``.

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
            ``low`` and ``high`` arrays (not clipped).

        Raises
        ------
        ValueError
            For a level outside (0, 1), another method, or shares that are
            not identifiable.

        Notes
        -----
        ``f̂`` is a linear map of a multinomial mean: asymptotically normal.

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
        half = z * self.standard_error
        return ConfidenceInterval(self.estimate - half, self.estimate + half)

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
    inversion: FloatArray | None = None,
    identifiable: bool | None = None,
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
    inversion, identifiable : ndarray or None, bool, optional
        From :func:`channel_inversion` (computed when not given; a mechanism
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
    if identifiable is None:
        inversion, identifiable = channel_inversion(q)
    return ChannelEstimate(
        n=n,
        counts=c.copy(),
        channel=q,
        values=np.asarray(values, dtype=float),
        mechanism=mechanism,
        epsilon=epsilon,
        inversion=inversion,
        identifiable=identifiable,
        score_mean=score_mean,
    )


def score_mean(
    counts: IntArray,
    channel: FloatArray,
    values: FloatArray,
    *,
    mechanism: str,
    epsilon: float,
) -> MeanEstimate:
    """Unbiased mean of a finite channel's answers from its score vector.

    Parameters
    ----------
    counts : ndarray
        Report histogram ``c_y`` (``n >= 2``).
    channel : ndarray, shape (k, outputs)
        ``Q[x, y]``.
    values : ndarray, shape (k,)
        ``v_x``.
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).

    Returns
    -------
    MeanEstimate
        ``μ̂ = Σ c_y s_y/n`` with ``s`` from :func:`score_vector`; its
        ``bias_bound`` is the score residual.

    See Also
    --------
    ldp.estimators.mean.mean_estimate : The average of given scores.

    Notes
    -----
    ``E[s[Y] | x] = (Q s)_x = v_x``, so the score mean is unbiased.

    References
    ----------
    .. [1] docs/maths.md, section 5.

    Examples
    --------
    >>> q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> result = score_mean(np.array([60, 40]), q, np.array([0.0, 1.0]),
    ...                     mechanism="ordinal", epsilon=1.1)
    >>> round(result.estimate, 3)
    0.3
    """
    scores, bias = score_vector(channel, values)
    return mean_estimate(
        counts, scores, mechanism=mechanism, epsilon=epsilon, bias_bound=bias
    )
