"""Binary randomized response: forced-response designs and Warner's design."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX, keep_other_weights, log_ratio
from ldp.mechanisms.categorical import CategoricalMechanism
from ldp.spec.validation import DESIGN_FIELDS


def forced_response_weights(design: dict[str, Fraction]) -> dict[str, int]:
    """Integer weights ``(T, A, B)`` for a forced-response design ``(t, a, b)``.

    Parameters
    ----------
    design : dict
        ``truthful``, ``forced_yes``, ``forced_no`` as Fractions summing to 1.

    Returns
    -------
    dict
        ``{"truthful": T, "forced_yes": A, "forced_no": B}``.

    Raises
    ------
    ValueError
        If a weight would be 0.

    Notes
    -----
    If the common denominator L of t, a, b is at most 2^32 the weights are
    exact: ``(tL, aL, bL)`` in lowest terms (the coin design 1/2, 1/4, 1/4 gives
    2, 1, 1).  Otherwise ``A = ceil(a 2^32)``, ``B = ceil(b 2^32)``,
    ``T = 2^32 − A − B``, so ``T/A <= t/a`` and ``T/B <= t/b``: the delivered
    ε never exceeds the design's.

    References
    ----------
    .. [1] docs/maths.md, section 2 (forced-response design).
    .. [2] J. A. Fox, P. E. Tracy, "Randomized Response", Sage 1986 (forced
       response); S. L. Warner, JASA 60(309), 1965.
    """
    t, a, b = (design[name] for name in DESIGN_FIELDS)
    denominator = math.lcm(t.denominator, a.denominator, b.denominator)
    if denominator <= ROW_SUM_MAX:
        raw = [int(x * denominator) for x in (t, a, b)]
        divisor = math.gcd(*raw)
        weights = [w // divisor for w in raw]
    else:
        forced_yes = math.ceil(a * ROW_SUM_MAX)
        forced_no = math.ceil(b * ROW_SUM_MAX)
        weights = [ROW_SUM_MAX - forced_yes - forced_no, forced_yes, forced_no]
    for name, weight in zip(DESIGN_FIELDS, weights, strict=True):
        if weight < 1:
            raise ValueError(
                f"spec field 'design.{name}' is {design[name]}, which would give an "
                f"integer weight of {weight}; allowed: a design whose weights are >= 1"
            )
    return dict(zip(DESIGN_FIELDS, weights, strict=True))


class ForcedResponse(CategoricalMechanism):
    """Forced response: truthful w.p. t, forced "yes" w.p. a, forced "no" w.p. b.

    Notes
    -----
    ``P(yes | yes) = (T + A)/S``, ``P(yes | no) = A/S``;
    ``ε = max(ln((T + A)/A), ln((T + B)/B))``.

    References
    ----------
    .. [1] docs/maths.md, section 2.
    .. [2] S. L. Warner, "Randomized response", JASA 60(309), 1965.
    """

    name = "forced_response"

    def _spec_fields(self) -> dict[str, Any]:
        fields = dict(self._params)
        fields["design"] = {key: str(value) for key, value in fields["design"].items()}
        return fields

    def _derive_weights(self) -> dict[str, int]:
        return forced_response_weights(self._params["design"])

    @property
    def row_sum(self) -> int:  # documented in CategoricalMechanism
        return sum(self.weights.values())

    def _exact_epsilon(self) -> Decimal:
        t, a, b = (self.weights[name] for name in DESIGN_FIELDS)
        return max(log_ratio(t + a, a), log_ratio(t + b, b))

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        t, a, b = (self.weights[name] for name in DESIGN_FIELDS)
        s = self.row_sum
        return np.array([(t + b) / s, (t + a) / s]), np.array([b / s, a / s])

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        t, a = self.weights["truthful"], self.weights["forced_yes"]
        return np.where(v < t, x, np.where(v < t + a, 1, 0))

    def channel_weights(self) -> AnyArray:  # documented in CategoricalMechanism
        t, a, b = (self.weights[name] for name in DESIGN_FIELDS)
        return np.array([[t + b, a], [b, t + a]], dtype=np.int64)


class Warner(CategoricalMechanism):
    """Warner's symmetric randomized response: keep the answer w.p. P/(P + F).

    Notes
    -----
    ``F = floor(2^32/(e^ε + 1))``, ``P = floor(F e^ε)``; ``ε' = ln(P/F)``.
    Equivalent to forced response with ``t = 2p − 1``, ``a = b = 1 − p``.

    References
    ----------
    .. [1] S. L. Warner, "Randomized response", JASA 60(309), 1965.
    .. [2] docs/maths.md, section 2.
    """

    name = "warner"

    def _derive_weights(self) -> dict[str, int]:
        keep, flip = keep_other_weights(self._params["epsilon"], 2)
        return {"keep": keep, "flip": flip}

    @property
    def row_sum(self) -> int:  # documented in CategoricalMechanism
        return self.weights["keep"] + self.weights["flip"]

    def _exact_epsilon(self) -> Decimal:
        return log_ratio(self.weights["keep"], self.weights["flip"])

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.row_sum
        p, q = self.weights["keep"] / s, self.weights["flip"] / s
        return np.array([p, p]), np.array([q, q])

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        return np.where(v < self.weights["keep"], x, 1 - x)

    def channel_weights(self) -> AnyArray:  # documented in CategoricalMechanism
        keep, flip = self.weights["keep"], self.weights["flip"]
        return np.array([[keep, flip], [flip, keep]], dtype=np.int64)


def _exact_probability(name: str, value: Any) -> Fraction:
    """``value`` as an exact Fraction strictly between 0 and 1."""
    if isinstance(value, bool):
        raise ValueError(f"{name} is {value!r}; allowed: a number in (0, 1)")
    try:
        if isinstance(value, Fraction | int):
            exact = Fraction(value)
        elif isinstance(value, str | float | Decimal):
            exact = Fraction(str(value))
        else:
            raise TypeError
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(
            f"{name} is {value!r}; allowed: a number or a 'p/q' string in (0, 1)"
        ) from None
    if not 0 < exact < 1:
        raise ValueError(f"{name} is {value!r}; allowed: strictly between 0 and 1")
    return exact


def unrelated_question_design(truthful: Any, prevalence: Any) -> dict[str, Fraction]:
    """The ε-LDP unrelated-question design as an exact forced-response design.

    Parameters
    ----------
    truthful : Fraction, int, float or str
        ``t``, the probability that the device reports the true answer.
    prevalence : Fraction, int, float or str
        ``π``, the known probability of "yes" of the simulated innocuous
        answer the device reports otherwise.  Floats are read as the decimal
        they print as (0.1 is 1/10), ``"p/q"`` strings exactly.

    Returns
    -------
    dict
        ``{"truthful": t, "forced_yes": (1 − t) π, "forced_no": (1 − t)(1 − π)}``
        as Fractions summing to exactly 1.

    Raises
    ------
    ValueError
        Unless ``0 < t < 1`` and ``0 < π < 1`` (``π`` of 0 or 1 makes one
        report prove the answer: ε = ∞).

    Notes
    -----
    The device answers truthfully with probability ``t`` and otherwise reports
    a draw from Bernoulli(π) that it makes itself.  Then
    ``P(yes | yes) = t + (1 − t)π`` and ``P(yes | no) = (1 − t)π``: exactly
    the forced-response design ``(t, (1 − t)π, (1 − t)(1 − π))``, so
    ``ε = max(ln((t + a)/a), ln((t + b)/b))`` with ``a = (1 − t)π``,
    ``b = (1 − t)(1 − π)``.  Answering a *real* innocuous question instead
    is not ε-LDP: for a respondent whose innocuous answer is "no",
    ``P(yes | sensitive no) = 0 < P(yes | sensitive yes) = t``, so a "yes"
    proves the sensitive answer (ε = ∞).

    References
    ----------
    .. [1] B. G. Greenberg, A.-L. A. Abul-Ela, W. R. Simmons, D. G. Horvitz,
       "The unrelated question randomized response model: theoretical
       framework", JASA 64(326), 1969.
    .. [2] docs/maths.md, section 2.7.

    Examples
    --------
    >>> design = unrelated_question_design("3/5", "1/4")
    >>> {name: str(value) for name, value in design.items()}
    {'truthful': '3/5', 'forced_yes': '1/10', 'forced_no': '3/10'}
    """
    t = _exact_probability("truthful", truthful)
    pi = _exact_probability("prevalence", prevalence)
    return {
        "truthful": t,
        "forced_yes": (1 - t) * pi,
        "forced_no": (1 - t) * (1 - pi),
    }


def unrelated_question_spec(truthful: Any, prevalence: Any) -> dict[str, Any]:
    """A forced-response spec for the ε-LDP unrelated-question design.

    Parameters
    ----------
    truthful : Fraction, int, float or str
        ``t``, the probability of reporting the true answer.
    prevalence : Fraction, int, float or str
        ``π``, the probability of "yes" of the device's simulated answer.

    Returns
    -------
    dict
        ``{"mechanism": "forced_response", "design": {...}}`` with the exact
        ``"p/q"`` strings of :func:`unrelated_question_design`; the browser
        randomizer samples it like any forced-response spec.

    Raises
    ------
    ValueError
        Unless ``0 < t < 1`` and ``0 < π < 1``.

    Notes
    -----
    ``ε = max(ln((t + a)/a), ln((t + b)/b))``, ``a = (1 − t)π``,
    ``b = (1 − t)(1 − π)``, computed exactly from the compiled weights.

    References
    ----------
    .. [1] Greenberg et al., JASA 64(326), 1969.
    .. [2] docs/maths.md, section 2.7.

    Examples
    --------
    >>> import ldp
    >>> spec = unrelated_question_spec("3/5", "1/4")
    >>> mechanism = ldp.build(spec)
    >>> mechanism.weights, mechanism.epsilon_display
    ({'truthful': 6, 'forced_yes': 1, 'forced_no': 3}, '1.946')
    """
    design = unrelated_question_design(truthful, prevalence)
    return {
        "mechanism": "forced_response",
        "design": {name: str(value) for name, value in design.items()},
    }
