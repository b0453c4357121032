"""Planning for means of numeric and ordinal answers: variance, margin, n."""

from __future__ import annotations

import math

from scipy import stats

from ldp.mechanisms.numeric.finite import FiniteChannelMechanism


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise ValueError(f"level is {level!r}; allowed: 0 < level < 1")
    return float(stats.norm.ppf(1 - (1 - level) / 2))


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
    .. [1] Deniable LDP primer, sections 5 and 7.
    """
    values = mechanism.input_values()
    spread = float(values.max() - values.min())
    if mechanism.score_bias > 1e-6 * spread:
        return math.inf
    return float(mechanism.mean_variance().max())


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
    .. [1] Deniable LDP primer, sections 5 and 7.
    """
    values = mechanism.input_values()
    spread = float(values.max() - values.min())
    return mean_noise_variance(mechanism) + spread**2 / 4


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
    .. [1] Deniable LDP primer, section 7.
    """
    if n <= 0:
        raise ValueError(f"n is {n!r}; allowed: n > 0")
    return _z(level) * math.sqrt(mean_worst_case_variance(mechanism) / n)


def mean_sample_size(
    mechanism: FiniteChannelMechanism, margin: float, level: float = 0.95
) -> int:
    """Reports needed so the mean's margin of error is at most ``margin``.

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
    ``n = z² V/m²`` (primer section 7) with the worst-case V.

    References
    ----------
    .. [1] Deniable LDP primer, section 7.
    """
    if not margin > 0:
        raise ValueError(f"margin is {margin!r}; allowed: margin > 0")
    if not math.isfinite(mean_worst_case_variance(mechanism)):
        raise ValueError(
            f"{mechanism.name}: this channel is numerically singular, so its mean "
            "has no unbiased estimate at any sample size; use a larger epsilon, "
            "fewer levels or another mechanism"
        )
    return math.ceil(_z(level) ** 2 * mean_worst_case_variance(mechanism) / margin**2)
