"""Planning: per-report variances, margins of error, sample sizes and power.

Shares (frequency oracles, multi-select) and means (ordinal and numeric
finite channels) are planned alike from the mechanism's worst-case per-report
variance ``V``: margin ``z sqrt(V/n)``, sample size ``ceil(z² V/m²)``.  All
figures use the realised probabilities of the integer weights.
"""

from __future__ import annotations

import math

from scipy import stats

from ldp.estimators.intervals import critical_value
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.numeric.finite import FiniteChannelMechanism
from ldp.mechanisms.oracle import SupportMechanism


def variance_at_zero(mechanism: SupportMechanism) -> float:
    """Per-report variance of ``f̂_v`` at ``f_v = 0``, worst case over v.

    Parameters
    ----------
    mechanism : SupportMechanism
        A compiled frequency oracle or multi-select mechanism.

    Returns
    -------
    float
        ``max_v q_v (1 − q_v)/(p_v − q_v)^2`` (``n · Var f̂_v`` at ``f_v = 0``),
        times ``ℓ²`` for padding-and-sampling.

    Notes
    -----
    For GRR this is ``(e^ε + k − 2)/(e^ε − 1)^2`` and for OUE
    ``4 e^ε/(e^ε − 1)^2``: the criterion used to choose among oracles.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4, eqs. (4), (9), (12).
    .. [2] docs/maths.md, section 3 (table).

    Examples
    --------
    >>> import ldp
    >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    >>> round(variance_at_zero(grr), 4)
    1.2594
    """
    return mechanism.variance_at_zero()


def worst_case_variance(mechanism: Mechanism | None = None) -> float:
    """Per-report variance of the headline estimate, worst case over answers.

    Parameters
    ----------
    mechanism : Mechanism or None
        A compiled mechanism; ``None`` for a direct (non-private) question.

    Returns
    -------
    float
        Shares: ``max_v max_{λ in [q_v, p_v]} λ(1 − λ)/(p_v − q_v)^2`` (1/4
        without privacy).  Means: ``max_x Var(s[Y] | x) + (high − low)²/4``
        in squared value units.

    Notes
    -----
    ``λ(1 − λ)`` is largest at the point of ``[q_v, p_v]`` closest to 1/2.
    For a yes/no question with Warner's design this is
    ``((e^ε + 1)/(e^ε − 1))^2/4``.  See
    :meth:`ldp.mechanisms.base.Mechanism.worst_case_variance`.

    References
    ----------
    .. [1] docs/maths.md, sections 2 and 7.
    .. [2] S. L. Warner, JASA 60(309), 1965.

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> round(worst_case_variance(warner), 4)
    1.1707
    >>> worst_case_variance(None)
    0.25
    """
    if mechanism is None:
        return 0.25
    return mechanism.worst_case_variance()


def margin_of_error(mechanism: Mechanism | None, n: int, level: float = 0.95) -> float:
    """Worst-case margin of error (half-width) of the estimate at ``n`` reports.

    Parameters
    ----------
    mechanism : Mechanism or None
        A compiled mechanism; ``None`` for a direct question.
    n : int
        Number of reports (``> 0``).
    level : float, optional
        Confidence level.

    Returns
    -------
    float
        ``m = z_{1 − α/2} sqrt(V/n)`` with V the worst-case per-report variance.

    Notes
    -----
    Normal approximation; see :func:`worst_case_variance`.

    References
    ----------
    .. [1] docs/maths.md, section 7.

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> round(margin_of_error(warner, 1000), 4)
    0.0671
    >>> round(margin_of_error(None, 400), 4)
    0.049
    """
    if n <= 0:
        raise ValueError(f"n is {n!r}; allowed: n > 0")
    return critical_value(level) * math.sqrt(worst_case_variance(mechanism) / n)


def sample_size(mechanism: Mechanism | None, margin: float, level: float = 0.95) -> int:
    """Return the reports needed for a worst-case margin of error.

    Parameters
    ----------
    mechanism : Mechanism or None
        A compiled mechanism; ``None`` for a direct question.
    margin : float
        Desired half-width: a share (0.05 for ±5 points), or value units
        below the answer range for a mean.
    level : float, optional
        Confidence level.

    Returns
    -------
    int
        ``n = ceil(z^2 V / m^2)``.

    Notes
    -----
    ±5 points at 95% for yes/no: 385 without privacy; with Warner's design
    663 at ε = 2, 1,537 at ε = ln 3, 1,799 at ε = 1, 6,405 at ε = 0.5
    (``z^2 V/m^2`` = 662.29, 1536.58, 1798.84, 6404.02, rounded up so the
    margin is met).

    References
    ----------
    .. [1] docs/maths.md, section 7.

    Examples
    --------
    >>> import ldp
    >>> sample_size(ldp.build({"mechanism": "warner", "epsilon": 1.0}), 0.05)
    1799
    >>> sample_size(None, 0.05)
    385
    """
    scale = 1.0 if mechanism is None else mechanism.value_range
    if not 0 < margin < scale:
        raise ValueError(f"margin is {margin!r}; allowed: 0 < margin < {scale:g}")
    z = critical_value(level)
    return math.ceil(z**2 * worst_case_variance(mechanism) / margin**2)


def _lambdas(mechanism: SupportMechanism, value: int, *shares: float) -> list[float]:
    if not 0 <= value < mechanism.k:
        raise ValueError(f"value is {value!r}; allowed: 0 <= value < {mechanism.k}")
    for share in shares:
        if not 0 <= share <= 1:
            raise ValueError(f"share is {share!r}; allowed: 0 <= share <= 1")
    p, q = float(mechanism.p_star[value]), float(mechanism.q_star[value])
    return [q + share * (p - q) for share in shares]


def power(
    mechanism: SupportMechanism,
    n: int,
    pi0: float,
    pi1: float,
    alpha: float = 0.05,
    value: int = 1,
) -> float:
    """Power of the one-sided test of ``H0: π = π0`` when in truth ``π = π1``.

    Parameters
    ----------
    mechanism : SupportMechanism
        A compiled frequency oracle or multi-select mechanism.
    n : int
        Number of reports.
    pi0, pi1 : float
        Null and alternative shares of answer ``value``.
    alpha : float, optional
        Significance level.
    value : int, optional
        The answer tested (1 = "yes" for binary questions).

    Returns
    -------
    float
        ``Φ((d |π1 − π0| sqrt(n) − z_{1−α} sqrt(λ0(1 − λ0)))/sqrt(λ1(1 − λ1)))``.

    Notes
    -----
    ``λ_j = q + d π_j`` with ``d = p* − q*`` (``λ = a + t π`` for forced
    response); normal approximation to ``C ~ Binomial(n, λ)``.

    References
    ----------
    .. [1] docs/maths.md, section 7 (one-sample power).
    .. [2] G. Blair, K. Imai, Y.-Y. Zhou, "Design and analysis of the
       randomized response technique", JASA 110(511), 2015.

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> round(power(warner, 2000, 0.2, 0.25), 3)
    0.691
    """
    lam0, lam1 = _lambdas(mechanism, value, pi0, pi1)
    d = float(mechanism.p_star[value] - mechanism.q_star[value])
    z_alpha = stats.norm.ppf(1 - alpha)
    shift = d * abs(pi1 - pi0) * math.sqrt(n)
    spread = z_alpha * math.sqrt(lam0 * (1 - lam0))
    return float(stats.norm.cdf((shift - spread) / math.sqrt(lam1 * (1 - lam1))))


def sample_size_for_power(
    mechanism: SupportMechanism,
    pi0: float,
    pi1: float,
    alpha: float = 0.05,
    power: float = 0.8,
    value: int = 1,
) -> int:
    """Return the reports needed to tell ``π1`` from ``π0`` at a given power.

    Parameters
    ----------
    mechanism : SupportMechanism
        A compiled frequency oracle or multi-select mechanism.
    pi0, pi1 : float
        Null and alternative shares (``pi0 != pi1``).
    alpha : float, optional
        Significance level.
    power : float, optional
        Desired power ``1 − β``.
    value : int, optional
        The answer tested.

    Returns
    -------
    int
        ``ceil([z_{1−α} sqrt(λ0(1−λ0)) + z_{1−β} sqrt(λ1(1−λ1))]^2
        / (d^2 (π1 − π0)^2))``.

    Notes
    -----
    The inverse of :func:`power`, with ``d = p* − q*``.

    References
    ----------
    .. [1] docs/maths.md, section 7.

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> sample_size_for_power(warner, 0.2, 0.25)
    2696
    """
    if pi0 == pi1:
        raise ValueError("pi0 and pi1 must differ")
    lam0, lam1 = _lambdas(mechanism, value, pi0, pi1)
    d = float(mechanism.p_star[value] - mechanism.q_star[value])
    top = stats.norm.ppf(1 - alpha) * math.sqrt(lam0 * (1 - lam0)) + stats.norm.ppf(
        power
    ) * math.sqrt(lam1 * (1 - lam1))
    return math.ceil(top**2 / (d**2 * (pi1 - pi0) ** 2))


# --- means of ordinal and numeric answers -------------------------------------
def mean_noise_variance(mechanism: FiniteChannelMechanism) -> float:
    """Worst-case per-report variance the randomization adds to the mean.

    Parameters
    ----------
    mechanism : FiniteChannelMechanism
        A compiled ordinal or numeric mechanism.

    Returns
    -------
    float
        ``max_x Var(s[Y] | x)`` in squared value units; ``inf`` when the score
        estimator is biased (a numerically singular channel).

    Notes
    -----
    ``Var(s[Y] | x) = Σ_y Q[x, y] s_y² − v_x²`` with the score ``Q s = v``.
    The criterion :func:`ldp.recommendation.recommend_numeric` minimises.

    References
    ----------
    .. [1] docs/maths.md, sections 5 and 7.

    Examples
    --------
    >>> import ldp
    >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    >>> round(mean_noise_variance(ldp.build({"mechanism": "geometric", **grid})), 3)
    136.203
    """
    return mechanism.mean_noise_variance()


def mean_worst_case_variance(mechanism: FiniteChannelMechanism) -> float:
    """Upper bound on ``n · Var(μ̂)`` over every distribution of answers.

    Parameters
    ----------
    mechanism : FiniteChannelMechanism
        A compiled ordinal or numeric mechanism.

    Returns
    -------
    float
        ``max_x Var(s[Y] | x) + (high − low)²/4``.

    Notes
    -----
    ``Var(s[Y]) = E_f[Var(s[Y] | X)] + Var_f(v_X)``; the first term is at most
    the worst input's noise variance and the second at most ``(high − low)²/4``.

    References
    ----------
    .. [1] docs/maths.md, sections 5 and 7.

    Examples
    --------
    >>> import ldp
    >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    >>> geometric = ldp.build({"mechanism": "geometric", **grid})
    >>> round(mean_worst_case_variance(geometric), 3)
    161.203
    """
    return mechanism.worst_case_variance()


def mean_margin_of_error(
    mechanism: FiniteChannelMechanism, n: int, level: float = 0.95
) -> float:
    """Worst-case half-width of the interval for the mean at ``n`` reports.

    Parameters
    ----------
    mechanism : FiniteChannelMechanism
        A compiled ordinal or numeric mechanism.
    n : int
        Number of reports (``> 0``).
    level : float, optional
        Confidence level.

    Returns
    -------
    float
        ``z_{1−α/2} sqrt(V/n)``, V from :func:`mean_worst_case_variance`.

    Notes
    -----
    Normal approximation, value units.

    References
    ----------
    .. [1] docs/maths.md, section 7.

    Examples
    --------
    >>> import ldp
    >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    >>> geometric = ldp.build({"mechanism": "geometric", **grid})
    >>> round(mean_margin_of_error(geometric, 1000), 3)
    0.787
    """
    if n <= 0:
        raise ValueError(f"n is {n!r}; allowed: n > 0")
    return critical_value(level) * math.sqrt(mean_worst_case_variance(mechanism) / n)


def mean_sample_size(
    mechanism: FiniteChannelMechanism, margin: float, level: float = 0.95
) -> int:
    """Return the reports needed for a margin of error of the mean.

    Parameters
    ----------
    mechanism : FiniteChannelMechanism
        A compiled ordinal or numeric mechanism.
    margin : float
        Wanted half-width in value units (``> 0``).
    level : float, optional
        Confidence level.

    Returns
    -------
    int
        ``ceil(z² V/margin²)``.

    Raises
    ------
    ValueError
        For a bad margin or level, or when V is infinite (singular channel).

    Notes
    -----
    ``n = z² V/m²`` (docs/maths.md, section 7) with the worst-case V.

    References
    ----------
    .. [1] docs/maths.md, section 7.

    Examples
    --------
    >>> import ldp
    >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    >>> mean_sample_size(ldp.build({"mechanism": "geometric", **grid}), 0.5)
    2478
    """
    if not margin > 0:
        raise ValueError(f"margin is {margin!r}; allowed: margin > 0")
    if not math.isfinite(mean_worst_case_variance(mechanism)):
        raise ValueError(
            f"{mechanism.name}: this channel is numerically singular, so its mean "
            "has no unbiased estimate at any sample size; use a larger epsilon, "
            "fewer levels or another mechanism"
        )
    z = critical_value(level)
    return math.ceil(z**2 * mean_worst_case_variance(mechanism) / margin**2)
