"""Binary randomized response: forced-response designs and Warner's design."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX, exp_decimal, keep_other_weights, log_ratio
from ldp.mechanisms.about import LOGISTIC, YES_NO
from ldp.mechanisms.categorical import CategoricalMechanism
from ldp.mechanisms.words import Number, Percent, WordedError, Words, gettext_noop
from ldp.spec.ratio import pair_ratio
from ldp.spec.validation import (
    COMMON_FIELDS,
    check_epsilon,
    is_int,
    number,
    required,
)

DESIGN_FIELDS = ("truthful", "forced_yes", "forced_no")
"""A forced-response design: report the truth, a forced "yes" or a forced "no"."""
SYMMETRIC_DENOMINATOR = 1000
"""A symmetric design from ε is given in thousandths."""


def _probability(name: str, value: Any) -> Fraction:
    field = f"design.{name}"
    if isinstance(value, str):
        try:
            result = Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise ValueError(
                f"spec field {field!r} is {value!r}; allowed: a number or a "
                "'p/q' string"
            ) from None
    else:
        result = Fraction(str(number(field, value)))
    if result <= 0:
        raise ValueError(f"spec field {field!r} is {value!r}; allowed: > 0")
    return result


def check_design(value: Any) -> dict[str, Fraction]:
    """A spec's forced-response design: probabilities ``> 0`` summing to 1.

    Parameters
    ----------
    value : object
        The spec's ``design`` field.

    Returns
    -------
    dict
        ``truthful``, ``forced_yes``, ``forced_no`` as Fractions (floats are
        read as ``Fraction(str(x))``, ``"p/q"`` strings exactly).

    Raises
    ------
    ValueError
        Naming the field, the bad value and what is allowed.

    Examples
    --------
    >>> design = {"truthful": "1/2", "forced_yes": 0.25, "forced_no": "1/4"}
    >>> check_design(design)["forced_yes"]
    Fraction(1, 4)
    """
    if not isinstance(value, Mapping):
        raise ValueError(
            f"spec field 'design' must be an object with fields {DESIGN_FIELDS}, "
            f"got {value!r}"
        )
    if set(value) != set(DESIGN_FIELDS):
        raise ValueError(
            f"spec field 'design' has fields {sorted(value)}; allowed: exactly "
            f"{list(DESIGN_FIELDS)}"
        )
    design = {name: _probability(name, value[name]) for name in DESIGN_FIELDS}
    total = sum(design.values())
    if total != 1:
        raise ValueError(
            f"spec field 'design' sums to {total} ({value!r}); allowed: "
            "probabilities summing to exactly 1"
        )
    return design


def symmetric_design(epsilon: float) -> dict[str, str]:
    """A symmetric forced-response design ``(t, a, a)`` in thousandths, ε' <= ε.

    Parameters
    ----------
    epsilon : float
        The requested ε.

    Returns
    -------
    dict
        ``truthful``, ``forced_yes``, ``forced_no`` as exact ``"p/q"`` strings.

    Raises
    ------
    WordedError
        When ``t`` would be below 1/1000 (ε below about 0.005).

    Notes
    -----
    ``a = ceil(1000/(e^ε + 1))/1000`` so that ``(t + a)/a <= e^ε``.

    References
    ----------
    .. [1] docs/maths.md, section 2.

    Examples
    --------
    >>> symmetric_design(1.0)
    {'truthful': '231/500', 'forced_yes': '269/1000', 'forced_no': '269/1000'}
    """
    d = SYMMETRIC_DENOMINATOR
    forced = math.ceil(Decimal(d) / (exp_decimal(epsilon) + 1))
    truthful = d - 2 * forced
    if truthful < 1:
        raise WordedError(
            Words(
                gettext_noop(
                    "ε = %(epsilon)s is too small for forced response; allowed: "
                    "ε >= %(lowest)s (or choose Warner randomized response)"
                ),
                {"epsilon": Number(epsilon), "lowest": Number(Decimal("0.005"))},
            )
        )
    return {
        "truthful": str(Fraction(truthful, d)),
        "forced_yes": str(Fraction(forced, d)),
        "forced_no": str(Fraction(forced, d)),
    }


def _binary_k(spec: Mapping[str, Any]) -> int:
    value = spec.get("k")
    if value is not None and (not is_int(value) or value != 2):
        raise ValueError(
            f"spec field 'k' is {value!r}; allowed for {spec['mechanism']}: 2 "
            "(or omitted)"
        )
    return 2


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


class BinaryMechanism(CategoricalMechanism):
    """A yes/no answer (``k = 2``), randomized to a yes/no report.

    Answer 1 is "yes".  Its answer can be the outcome of a logistic
    regression (docs/maths.md, section 6.4).
    """

    kinds = (YES_NO,)
    regression = LOGISTIC
    report_message = gettext_noop("a randomized yes/no answer, “%(answer)s”")

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        k = _binary_k(spec)
        return {"k": k, "epsilon": check_epsilon(required(spec, "epsilon"))}


class ForcedResponse(BinaryMechanism):
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
    label = gettext_noop("Forced response")
    spec_fields = COMMON_FIELDS | {"design"}
    takes_design = True

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        return {"k": _binary_k(spec), "design": check_design(required(spec, "design"))}

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        w = spec["weights"]
        t, a, b = w["truthful"], w["forced_yes"], w["forced_no"]
        return max(pair_ratio(t + a, a), pair_ratio(t + b, b))

    @classmethod
    def request(
        cls,
        answers: Mapping[str, Any],
        epsilon: float,
        *,
        max_selections: int | None = None,
        design: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The given design, else the symmetric one for ``epsilon``."""
        spec = super().request(answers, epsilon, max_selections=max_selections)
        del spec["epsilon"]
        return spec | {"design": dict(design or symmetric_design(epsilon))}

    def describe(self) -> Words:
        t, a, b = (self.weights[name] for name in DESIGN_FIELDS)
        total = t + a + b
        return Words(
            gettext_noop(
                "The device sends the true answer with probability %(truthful)s, "
                "a forced “yes” with %(yes)s and a forced “no” with %(no)s "
                "(forced response)."
            ),
            {
                "truthful": Percent(t / total),
                "yes": Percent(a / total),
                "no": Percent(b / total),
            },
        )

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


class Warner(BinaryMechanism):
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
    label = gettext_noop("Warner randomized response")

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        return pair_ratio(spec["weights"]["keep"], spec["weights"]["flip"])

    def describe(self) -> Words:
        keep, flip = self.weights["keep"], self.weights["flip"]
        return Words(
            gettext_noop(
                "Each respondent's device keeps the true answer with probability "
                "%(keep)s and reports the opposite otherwise (Warner's randomized "
                "response)."
            ),
            {"keep": Percent(keep / (keep + flip))},
        )

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
