"""The mean of the answer values: score means and their result object.

A finite channel's mean is estimated by averaging, over the reports, a score
``s_y`` chosen so that ``E[s[Y] | x]`` is the value of answer ``x``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.intervals import (
    ConfidenceInterval,
    bounded_interval,
    check_level,
    check_method,
    critical_value,
)


@dataclass(frozen=True)
class MeanEstimate:
    """An unbiased mean with its standard error.

    Attributes
    ----------
    n : int
        Number of reports.
    estimate : float
        ``μ̂``, the average score of the reports (may leave ``[low, high]``).
    standard_error : float
        ``sqrt(S²/n)``, ``S²`` the sample variance of the scores.
    mechanism : str
        Mechanism name.
    epsilon : float
        Delivered ε (rounded up).
    bias_bound : float
        Worst-case ``|E μ̂ − μ|`` from the score residual (0 up to rounding).
    variance_floor : float
        A lower bound on the variance of one report's score whatever the
        answers (0: none known); the interval never uses less.
    bounds : (float, float) or None
        The smallest and largest possible answer value; the interval stays
        within them.  None: unbounded.
    interval_methods : tuple of str
        ``("t", "normal")``: what :meth:`confidence_interval` accepts, the
        first being its default.

    Examples
    --------
    >>> m = MeanEstimate(n=100, estimate=4.2, standard_error=0.3,
    ...                  mechanism="duchi", epsilon=1.0)
    >>> ci = m.confidence_interval(0.95)
    >>> round(ci.low, 3), round(ci.high, 3)
    (3.605, 4.795)
    """

    n: int
    estimate: float
    standard_error: float
    mechanism: str
    epsilon: float
    bias_bound: float = 0.0
    variance_floor: float = 0.0
    bounds: tuple[float, float] | None = None

    interval_methods: ClassVar[tuple[str, ...]] = ("t", "normal")

    def confidence_interval(
        self, level: float = 0.95, method: str | None = None
    ) -> ConfidenceInterval[float]:
        """Two-sided interval ``μ̂ ± (q·SE' + b)``, ``b`` the bias bound.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        method : {"t", "normal"}, optional
            Student t with ``n − 1`` degrees of freedom (default), or the
            normal quantile.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` as floats.

        Raises
        ------
        ValueError
            For a level outside (0, 1) or an unknown method.

        Notes
        -----
        The mean of n independent bounded scores is asymptotically normal;
        ``q = t_{n−1, 1−α/2}`` or ``z_{1−α/2}``.  When the channel cannot be
        inverted exactly the score mean has ``|E μ̂ − μ| <= b``
        (:attr:`bias_bound`), so the interval is widened by ``b`` on both
        sides and still covers: a channel that carries no information gives
        an interval as wide as the range, never a false point.

        ``SE'² = max(S², V₀)/n`` with ``V₀`` the :attr:`variance_floor`: by
        the law of total variance one report's score has variance
        ``E_f[Var(s[Y] | X)] + Var_f(v_X) >= min_x Var(s[Y] | x) = V₀``, so
        a sample whose scores happen to be all equal (``S² = 0``) cannot give
        an interval of zero width.  With :attr:`bounds` the interval is
        centred on ``μ̂`` moved towards the range and intersected with it
        (:func:`ldp.estimators.intervals.bounded_interval`): it never leaves
        the range and never covers less.

        References
        ----------
        .. [1] docs/maths.md, section 5.

        Examples
        --------
        >>> m = MeanEstimate(n=10, estimate=0.0, standard_error=1.0,
        ...                  mechanism="geometric", epsilon=2.0)
        >>> round(m.confidence_interval(0.95, "normal").high, 3)
        1.96
        """
        check_level(level)
        method = check_method(method or self.interval_methods[0], self.interval_methods)
        q = critical_value(level, method, self.n - 1)
        variance = max(self.standard_error**2, self.variance_floor / self.n)
        half = q * float(np.sqrt(variance)) + self.bias_bound
        if self.bounds is None:
            return ConfidenceInterval(self.estimate - half, self.estimate + half)
        return bounded_interval(self.estimate, half, *self.bounds)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict of the fields.

        Returns
        -------
        dict
            ``n``, ``estimate``, ``standard_error``, ``mechanism``,
            ``epsilon``, ``bias_bound``.

        Examples
        --------
        >>> MeanEstimate(2, 1.5, 0.5, "duchi", 1.0).to_dict()["estimate"]
        1.5
        """
        return {
            "n": self.n,
            "estimate": float(self.estimate),
            "standard_error": float(self.standard_error),
            "mechanism": self.mechanism,
            "epsilon": float(self.epsilon),
            "bias_bound": float(self.bias_bound),
        }


def mean_estimate(
    counts: IntArray,
    scores: FloatArray,
    *,
    mechanism: str,
    epsilon: float,
    bias_bound: float = 0.0,
    variance_floor: float = 0.0,
    bounds: tuple[float, float] | None = None,
) -> MeanEstimate:
    """Mean of the scores of the reports, with the sample-variance SE.

    Parameters
    ----------
    counts : ndarray
        Report histogram ``c_y`` (``n = Σ c_y >= 2``).
    scores : ndarray
        Score vector ``s``.
    mechanism : str
        Mechanism name (recorded).
    epsilon : float
        Delivered ε (recorded).
    bias_bound : float, optional
        ``max_x |(Q s)_x − v_x|`` (recorded).
    variance_floor : float, optional
        ``min_x Var(s[Y] | x)`` (see :meth:`MeanEstimate.confidence_interval`).
    bounds : (float, float), optional
        The range of the answer values.

    Returns
    -------
    MeanEstimate
        ``μ̂ = Σ c_y s_y/n``, ``SE = sqrt(S²/n)``.

    Raises
    ------
    ValueError
        For fewer than 2 reports.

    Notes
    -----
    ``S² = Σ c_y (s_y − μ̂)²/(n − 1)`` is the sample variance of the
    ``s[y_i]``; it is unbiased for the variance of one score whatever the mix
    of true answers, so the interval is ``μ̂ ± t_{n−1} SE``.

    References
    ----------
    .. [1] docs/maths.md, section 5.
    .. [2] J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal
       procedures for locally private estimation", JASA 113(521), 2018.

    Examples
    --------
    >>> result = mean_estimate(np.array([30, 70]), np.array([-1.0, 1.0]),
    ...                        mechanism="duchi", epsilon=1.0)
    >>> round(result.estimate, 3), round(result.standard_error, 4)
    (0.4, 0.0921)
    """
    n = int(np.asarray(counts, dtype=np.int64).sum())
    c = np.asarray(counts, dtype=float)
    s = np.asarray(scores, dtype=float)
    if n < 2:
        raise ValueError(f"need at least 2 reports, got {n}")
    mean = float(c @ s / n)
    centred = s - mean
    variance = float(c @ (centred * centred) / (n - 1))
    return MeanEstimate(
        n=n,
        estimate=mean,
        standard_error=float(np.sqrt(variance / n)),
        mechanism=mechanism,
        epsilon=epsilon,
        bias_bound=bias_bound,
        variance_floor=variance_floor,
        bounds=bounds,
    )
