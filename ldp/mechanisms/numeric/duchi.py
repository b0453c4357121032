"""Duchi et al.'s binary mechanism for a bounded mean, with integer weights."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX, UndeliverableEpsilon, exp_decimal, floor_decimal
from ldp.mechanisms.about import ExportColumn
from ldp.mechanisms.numeric.grid import GridMechanism
from ldp.mechanisms.words import Words, gettext_noop
from ldp.spec.ratio import matrix_ratio

SEARCH_WIDTH = 20_000
"""Candidate base weights tried to approximate ``e^ε − 1`` from below."""


def duchi_weights(epsilon: float, m: int) -> tuple[int, int]:
    """Integer ``(L, D)`` with ``(L + (m−1)D)/L <= e^ε`` as close as possible.

    Parameters
    ----------
    epsilon : float
        Requested ε.
    m : int
        Number of grid levels.

    Returns
    -------
    L, D : int
        Base and slope; ``S = 2L + (m − 1)D <= 2^32``.

    Notes
    -----
    For each ``L`` in the top ``SEARCH_WIDTH`` values of
    ``L <= 2^32/(e^ε + 1)`` take ``D = floor(L (e^ε − 1)/(m − 1))`` (exact
    rational arithmetic on a lower bound of ``e^ε``) and keep the pair with
    the largest ``D/L``: the delivered ε is then within about 1e-9 of ε.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).
    """
    e = exp_decimal(epsilon)
    ratio = Fraction(e) - Fraction(1) - Fraction(1, 10**50)
    target = ratio / (m - 1)
    top = floor_decimal(Decimal(ROW_SUM_MAX) / (e + 1))
    best: tuple[Fraction, int, int] | None = None
    for base in range(max(1, top - SEARCH_WIDTH), top + 1):
        slope = base * target.numerator // target.denominator
        if slope < 1:
            continue
        value = Fraction(slope, base)
        if best is None or value > best[0]:
            best = (value, base, slope)
    if best is None:
        raise UndeliverableEpsilon(
            f"spec field 'epsilon' is {epsilon!r}: too small for {m} levels "
            "with integer weights"
        )
    return best[1], best[2]


class Duchi(GridMechanism):
    """Binary report whose chance of ``+B`` grows linearly with the answer.

    Notes
    -----
    With ``t = 2x/(m−1) − 1`` in ``[−1, 1]``, Duchi et al. report ``±B``,
    ``B = (e^ε + 1)/(e^ε − 1)``, with ``P(+B) = 1/2 + t (e^ε − 1)/(2(e^ε + 1))``.
    Here ``P(report 1 | x) = (L + x·D)/S``, ``S = 2L + (m − 1)D`` and
    ``(L + (m−1)D)/L <= e^ε``, so ``ε' = ln((L + (m − 1)D)/L)``.  Weights
    ``{"base": L, "slope": D, "total": S}``; sampling: ``v = uniform_below(S)``,
    report ``1`` iff ``v < L + x·D``.  The unbiased values of the two reports
    (the realised ``±B`` scaled to ``[low, high]``) are
    ``s_0 = low − step·L/D`` and ``s_1 = s_0 + step·S/D``;
    ``Var = B² − t²`` per report in unit scale.

    References
    ----------
    .. [1] J. C. Duchi, M. I. Jordan, M. J. Wainwright, "Minimax optimal
       procedures for locally private estimation", JASA 113(521), 2018.
    .. [2] docs/maths.md, section 5.
    """

    name = "duchi"
    label = gettext_noop("Duchi et al. (binary output)")
    mean_only = True
    mean_only_reason = gettext_noop(
        "How the answers are spread cannot be estimated from this question's "
        "reports. Each device sends only “high” or “low”, and how often “high” "
        "comes back depends on the mean answer alone: any two spreads of answers "
        "with the same mean give reports with exactly the same chances. So the "
        "reports estimate the mean, but no median and no shares in bins, however "
        "many people answer."
    )
    bins_alternative = gettext_noop(
        "For a distribution in bins, protect the number with discrete Laplace "
        "(geometric) noise or the piecewise mechanism (the question's privacy "
        "settings). Changed after responses arrive, the question starts a new "
        "version and its results use only the reports made under the new "
        "mechanism."
    )

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(2, True)``: a histogram of the low and high reports."""
        return 2, True

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """Column max/min of ``W[x] = (S − L − xD, L + xD)``."""
        w = spec["weights"]
        levels = (w["total"] - 2 * w["base"]) // w["slope"] + 1
        ones = w["base"] + w["slope"] * np.arange(levels, dtype=np.int64)
        return matrix_ratio(np.stack([w["total"] - ones, ones], axis=1))

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device reports only “high” or “low”, leaning towards the end "
                "of the range nearer the true number, so the results estimate the "
                "mean only: no median and no distribution in bins, which discrete "
                "Laplace (geometric) or the piecewise mechanism would give "
                "(Duchi et al.)."
            )
        )

    def report_words(self, report: Any) -> Words:
        if report == 1:
            return Words(gettext_noop("a randomized “high” (never your number itself)"))
        return Words(gettext_noop("a randomized “low” (never your number itself)"))

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The low (0) or high (1) report."""
        ends = {0: "−B (the low report)", 1: "+B (the high report)"}
        return (ExportColumn(value_labels=ends),)

    def _derive_weights(self) -> dict[str, Any]:
        base, slope = duchi_weights(float(self._params["epsilon"]), self.k)
        return {"base": base, "slope": slope, "total": 2 * base + (self.k - 1) * slope}

    @property
    def outputs(self) -> int:  # documented in the base class
        return 2

    @property
    def row_sum(self) -> int:  # documented in the base class
        return int(self.weights["total"])

    def channel_weights(self) -> AnyArray:  # documented in the base class
        base, slope = self.weights["base"], self.weights["slope"]
        ones = base + slope * np.arange(self.k, dtype=np.int64)
        return np.stack([self.row_sum - ones, ones], axis=1)

    def output_values(self) -> AnyArray:
        """The realised ``−B`` and ``+B`` in value units (the scores).

        Returns
        -------
        ndarray of float, shape (2,)
            ``[low − step·L/D, low − step·L/D + step·S/D]``.

        Notes
        -----
        ``E[value | x] = low + x·step`` exactly for the integer weights.

        References
        ----------
        .. [1] Duchi, Jordan, Wainwright, JASA 2018.
        """
        base, slope = self.weights["base"], self.weights["slope"]
        step = float(self.step)
        minus = float(self.low) - step * base / slope
        return np.array([minus, minus + step * self.row_sum / slope])

    def _sample(self, x: int, v: int) -> int:
        return 1 if v < self.weights["base"] + x * self.weights["slope"] else 0

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        threshold = self.weights["base"] + x * self.weights["slope"]
        reports: AnyArray = (v < threshold).astype(np.int64)
        return reports
