"""Composition across a respondent's whole survey, and group privacy."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ldp.accounting.channels import float_up, pure_epsilon
from ldp.accounting.pld import DEFAULT_GRID_STEP, MAX_BINS, pld_epsilon

PLD_CHANNEL_LIMIT = 5_000_000
"""Largest ``k² m`` for which :func:`survey_privacy` builds a channel's own PLD;
a bigger channel enters PLD accounting through its pure ε (still an upper
bound, computed in seconds rather than minutes)."""


def _check_epsilon(epsilon: float | Decimal | np.number[Any]) -> float:
    value = float_up(epsilon) if isinstance(epsilon, Decimal) else float(epsilon)
    if not value >= 0:
        raise ValueError(f"ε must be >= 0 (inf allowed), got {epsilon!r}")
    return value


def _check_delta(delta: float, name: str = "δ'") -> float:
    if not 0 < delta < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {delta!r}")
    return float(delta)


def sequential_composition(epsilons: Iterable[float | Decimal]) -> float:
    """Return the total ε of independent randomizations of one respondent.

    Parameters
    ----------
    epsilons : iterable of float or Decimal
        ε_j >= 0 of each question (``inf`` allowed).

    Returns
    -------
    float
        ``Σ_j ε_j``, correctly rounded (``math.fsum``; 0 for an empty survey).

    Notes
    -----
    ``ε_total = Σ_j ε_j`` (basic composition), valid also for adaptive choices
    and correlated answers.  This is the number shown to respondents and
    enforced against the survey's budget.  The float sum is correctly
    rounded rather than rounded up, so that, e.g., ten questions at 0.1 meet a
    budget of 1.0; exact display values come from :func:`pure_epsilon_exact`.

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), Theorem 3.16.
    """
    values = [_check_epsilon(e) for e in epsilons]
    if any(math.isinf(v) for v in values):
        return math.inf
    return math.fsum(values)


def advanced_composition(epsilon: float, m: int, delta_prime: float) -> float:
    """Return ε' of the m-fold composition of an ε-DP mechanism at δ'.

    Parameters
    ----------
    epsilon : float
        ε >= 0 of each mechanism.
    m : int
        Number of mechanisms, >= 0.
    delta_prime : float
        Slack δ' in (0, 1).

    Returns
    -------
    float
        ε' such that the composition is (ε', δ')-DP.

    Notes
    -----
    ``ε' = ε sqrt(2 m ln(1/δ')) + m ε (e^ε − 1)``.  It beats ``m ε`` only for
    many questions with small ε; :func:`heterogeneous_advanced_composition`
    is never worse.

    References
    ----------
    .. [1] C. Dwork, G. N. Rothblum and S. Vadhan, "Boosting and Differential
       Privacy", FOCS 2010.
    .. [2] C. Dwork and A. Roth (2014), Theorem 3.20.
    """
    epsilon = _check_epsilon(epsilon)
    if isinstance(m, bool) or not isinstance(m, int) or m < 0:
        raise ValueError(f"m must be an int >= 0, got {m!r}")
    delta_prime = _check_delta(delta_prime)
    if m == 0:
        return 0.0
    spread = epsilon * math.sqrt(2 * m * math.log(1 / delta_prime))
    return spread + m * epsilon * math.expm1(epsilon)


def heterogeneous_advanced_composition(
    epsilons: Iterable[float | Decimal], delta_prime: float
) -> float:
    """Return ε' of the composition of ε_j-DP mechanisms at δ' (KOV bound).

    Parameters
    ----------
    epsilons : iterable of float or Decimal
        ε_j >= 0 of each mechanism.
    delta_prime : float
        Slack δ' in (0, 1).

    Returns
    -------
    float
        ε' such that the composition is (ε', δ')-DP.

    Notes
    -----
    Kairouz–Oh–Viswanath (2015, Theorem 3.5) with ``δ_j = 0``: with
    ``D = Σ_j ε_j (e^{ε_j} − 1)/(e^{ε_j} + 1)`` and ``V = Σ_j ε_j²``,
    ``ε' = min( Σ_j ε_j, D + sqrt(2 V ln(e + sqrt(V)/δ')),
    D + sqrt(2 V ln(1/δ')) )``.  Since ``(e^ε − 1)/(e^ε + 1) <= e^ε − 1`` it is
    never worse than the Dwork–Rothblum–Vadhan form with ``Σ ε_j²``.

    References
    ----------
    .. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
       Differential Privacy", ICML 2015, Theorem 3.5.
    """
    values = [_check_epsilon(e) for e in epsilons]
    delta_prime = _check_delta(delta_prime)
    basic = sequential_composition(values)
    if not values or math.isinf(basic):
        return basic
    drift = math.fsum(e * math.tanh(e / 2) for e in values)
    spread = math.fsum(e * e for e in values)
    second = drift + math.sqrt(
        2 * spread * math.log(math.e + math.sqrt(spread) / delta_prime)
    )
    third = drift + math.sqrt(2 * spread * math.log(1 / delta_prime))
    return min(basic, second, third)


def group_epsilon(epsilon: float, k: int) -> float:
    """Return ε for a group of ``k`` related answers.

    Parameters
    ----------
    epsilon : float
        ε >= 0 for one answer.
    k : int
        Group size >= 1.

    Returns
    -------
    float
        ``k ε``.

    Notes
    -----
    An ε-DP mechanism is kε-DP for inputs that differ in k records.

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), Theorem 2.2.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"group size k must be an int >= 1, got {k!r}")
    return k * _check_epsilon(epsilon)


@dataclass(frozen=True)
class SurveyPrivacy:
    """Privacy of one respondent's whole survey.

    Attributes
    ----------
    question_epsilons : tuple of float
        Pure ε of each question.
    sequential_epsilon : float
        ``Σ ε_j``: pure ε-LDP of the survey, always valid; shown to respondents.
    delta : float
        The δ at which the tighter bounds hold.
    advanced_epsilon : float
        Kairouz–Oh–Viswanath bound at ``delta``.
    pld_epsilon : float
        Numerical privacy-loss-distribution bound at ``delta``.
    epsilon : float
        The smallest of the three: the survey is (epsilon, delta)-LDP.
    method : str
        Which bound gave ``epsilon``: ``"sequential"``, ``"advanced"`` or
        ``"pld"``.
    """

    question_epsilons: tuple[float, ...]
    sequential_epsilon: float
    delta: float
    advanced_epsilon: float
    pld_epsilon: float
    epsilon: float
    method: str


def _question_epsilon(item: ArrayLike | float | Decimal) -> float:
    """A question's pure ε: the number itself, or its channel's exact ε."""
    if isinstance(item, int | float | Decimal | np.number):
        return _check_epsilon(item)
    return pure_epsilon(item)


def _pld_item(item: ArrayLike | float | Decimal, epsilon: float) -> ArrayLike | float:
    """What enters the PLD: a small channel itself, else its pure ε."""
    if isinstance(item, int | float | Decimal | np.number):
        return epsilon
    shape = np.shape(item)
    return item if shape[0] ** 2 * shape[1] <= PLD_CHANNEL_LIMIT else epsilon


def survey_privacy(
    channels_or_epsilons: Sequence[ArrayLike | float | Decimal], delta: float = 1e-6
) -> SurveyPrivacy:
    """Return the sequential total and the tightest (ε, δ) bound of a survey.

    Parameters
    ----------
    channels_or_epsilons : sequence
        One item per randomized question: its channel matrix, or its pure ε
        (then the worst ε-DP mechanism, binary randomized response, is used).
    delta : float, default 1e-6
        δ in (0, 1) for the tighter bound.

    Returns
    -------
    SurveyPrivacy
        The sequential ε (pure), the advanced and PLD bounds at ``delta``, the
        best of the three and the method that gave it.

    Notes
    -----
    ``sequential = Σ ε_j``; ``advanced`` as in
    :func:`heterogeneous_advanced_composition`; ``pld`` as in
    :func:`pld_epsilon` with grid step ``max(1e-4, 2 Σ ε_j / 2·10⁶)``.  All are
    valid upper bounds, so their minimum is too; ties go to the simpler one.
    A channel with ``k² m > PLD_CHANNEL_LIMIT`` enters the PLD through its pure
    ε (as binary randomized response), which is valid but looser.

    References
    ----------
    .. [1] C. Dwork and A. Roth (2014), Theorems 3.16 and 3.20.
    .. [2] P. Kairouz, S. Oh and P. Viswanath (2015), Theorem 3.5.
    .. [3] A. Koskela, J. Jälkö and A. Honkela (2020).
    """
    delta = _check_delta(delta, "δ")
    items = list(channels_or_epsilons)
    epsilons = tuple(_question_epsilon(item) for item in items)
    sequential = sequential_composition(epsilons)
    if not items or math.isinf(sequential):
        return SurveyPrivacy(
            epsilons,
            sequential,
            delta,
            sequential,
            sequential,
            sequential,
            "sequential",
        )
    advanced = heterogeneous_advanced_composition(epsilons, delta)
    step = max(DEFAULT_GRID_STEP, 2 * sequential / (MAX_BINS / 10))
    for_pld = [
        _pld_item(item, epsilon) for item, epsilon in zip(items, epsilons, strict=True)
    ]
    pld = pld_epsilon(for_pld, delta, grid_step=step)
    best, method = sequential, "sequential"
    for value, name in ((advanced, "advanced"), (pld, "pld")):
        if value < best:
            best, method = value, name
    return SurveyPrivacy(epsilons, sequential, delta, advanced, pld, best, method)
