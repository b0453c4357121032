"""Generalized randomized response (k-RR, direct encoding)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import keep_other_weights, log_ratio
from ldp.mechanisms.about import ORDINAL, SINGLE_CHOICE
from ldp.mechanisms.categorical import CategoricalMechanism
from ldp.mechanisms.words import Number, Percent, Words, gettext_noop
from ldp.spec.ratio import pair_ratio


class GeneralizedRandomizedResponse(CategoricalMechanism):
    """Report the true answer w.p. P/S, each other answer w.p. Q/S.

    Notes
    -----
    ``S = P + (k − 1) Q``; ``p* = P/S``, ``q* = Q/S``; ``ε' = ln(P/Q)``.
    Per-report variance at ``f_v ≈ 0``: ``(e^ε + k − 2)/(e^ε − 1)^2``.

    References
    ----------
    .. [1] T. Wang, J. Blocki, N. Li, S. Jha, "Locally differentially private
       protocols for frequency estimation", USENIX Security 2017, section 4.1.
    .. [2] P. Kairouz, K. Bonawitz, D. Ramage, "Discrete distribution estimation
       under local privacy", ICML 2016.
    .. [3] docs/maths.md, section 3.
    """

    name = "grr"
    label = gettext_noop("Generalized randomized response")
    kinds = (SINGLE_CHOICE, ORDINAL)  # a scale's levels may be treated as options

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        return pair_ratio(spec["weights"]["keep"], spec["weights"]["other"])

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device reports the true option with probability %(keep)s, "
                "otherwise one of the other %(others)s options at random "
                "(generalized randomized response)."
            ),
            {"keep": Percent(float(self.p_star[0])), "others": Number(self.k - 1)},
        )

    def _derive_weights(self) -> dict[str, int]:
        keep, other = keep_other_weights(self._params["epsilon"], self.k)
        return {"keep": keep, "other": other}

    @property
    def row_sum(self) -> int:  # documented in CategoricalMechanism
        return self.weights["keep"] + (self.k - 1) * self.weights["other"]

    def _exact_epsilon(self) -> Decimal:
        return log_ratio(self.weights["keep"], self.weights["other"])

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.row_sum
        p = np.full(self.k, self.weights["keep"] / s)
        q = np.full(self.k, self.weights["other"] / s)
        return p, q

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        keep, other = self.weights["keep"], self.weights["other"]
        i = np.maximum(v - keep, 0) // other
        return np.where(v < keep, x, np.where(i < x, i, i + 1))

    def channel_weights(self) -> AnyArray:  # documented in CategoricalMechanism
        keep, other = self.weights["keep"], self.weights["other"]
        weights = np.full((self.k, self.k), other, dtype=np.int64)
        np.fill_diagonal(weights, keep)
        return weights
