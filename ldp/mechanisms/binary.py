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
