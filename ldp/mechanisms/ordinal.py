"""Ordinal questions (Likert scales, brackets): the exponential mechanism."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX
from ldp.mechanisms.about import ORDINAL
from ldp.mechanisms.numeric.calibration import (
    cached,
    calibrate,
    cumulative_index,
    round_rows,
)
from ldp.mechanisms.numeric.finite import FiniteChannelMechanism
from ldp.mechanisms.words import Answer, Words, gettext_noop
from ldp.spec.ratio import matrix_ratio
from ldp.spec.validation import check_epsilon, check_k, required

ORDINAL_K_MAX = 101
"""Largest number of levels of an ordinal question."""


def exponential_rows(k: int, beta: float) -> AnyArray:
    """Integer rows ``∝ β^{|x − r|}``, each summing to ``2^32``.

    Parameters
    ----------
    k : int
        Number of levels.
    beta : float
        Decay per level, ``0 < β < 1``.

    Returns
    -------
    ndarray of int64, shape (k, k)
        Largest-remainder rounding of ``2^32 β^{|x−r|}/Z_x``, every entry ≥ 1.

    Notes
    -----
    ``Z_x = Σ_r β^{|x−r|}``.

    References
    ----------
    .. [1] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007.
    """
    levels = np.arange(k)
    distance = np.abs(levels[:, None] - levels[None, :])
    return round_rows(np.power(beta, distance.astype(float)), ROW_SUM_MAX)


class OrdinalExponential(FiniteChannelMechanism):
    """Exponential mechanism with utility ``−|x − r|`` on ``k`` ordered levels.

    Notes
    -----
    ``Q[x, r] = β^{|x−r|}/Z_x``.  The textbook calibration
    ``β = e^{−ε/(2(k−1))}`` (sensitivity ``Δu = k − 1``, the factor 2 for the
    normaliser) is loose: here β is chosen by bisection so the exact ε of the
    *integer* channel, ``max_r ln(max_x W[x, r]/min_x W[x, r])``, is the
    requested ε (never above it, within about 1e-6).  For this utility the
    binding columns are the end levels and the calibrated β is close to
    ``e^{−ε/(k−1)}``: twice the textbook exponent.

    Weights: ``{"rows": [[k ints] × k], "total": S}``, ``S = 2^32``; the
    report is ``cumulative(rows[x], uniform_below(S))``.

    :meth:`estimate` gives the distribution over levels (by channel
    inversion) and, as its ``mean()``, the mean level ``vᵀ f̂``;
    :meth:`estimate_mean` gives the score mean.

    References
    ----------
    .. [1] F. McSherry, K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007.
    .. [2] C. Dwork, A. Roth, "The algorithmic foundations of differential
       privacy", 2014, section 3.4.
    .. [3] docs/maths.md, section 4.
    """

    name = "ordinal"
    mean_from_shares = True
    label = gettext_noop("Order-aware exponential mechanism")
    kinds = (ORDINAL,)

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        k = check_k(spec.get("k"))
        if k > ORDINAL_K_MAX:
            raise ValueError(
                f"spec field 'k' is {k!r}; allowed for ordinal: 2 <= k <= "
                f"{ORDINAL_K_MAX}"
            )
        return {"k": k, "epsilon": check_epsilon(required(spec, "epsilon"))}

    @classmethod
    def accepts(cls, answers: Mapping[str, Any]) -> bool:
        """At most ``ORDINAL_K_MAX`` levels (the spec carries ``k²`` weights)."""
        return int(answers["k"]) <= ORDINAL_K_MAX

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """Column max/min of the explicit ``rows``."""
        return matrix_ratio(np.asarray(spec["weights"]["rows"], dtype=np.int64))

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device reports a level near the true one, nearer levels being "
                "more likely (order-aware exponential mechanism)."
            )
        )

    def report_words(self, report: Any) -> Words:
        """The level the report names (randomized, so not necessarily theirs)."""
        words = gettext_noop("a randomized point on the scale, “%(answer)s”")
        return Words(words, {"answer": Answer(report)})

    def _input_size(self) -> int:
        return int(self._params["k"])

    def _derive_weights(self) -> dict[str, Any]:
        epsilon = float(self._params["epsilon"])
        k = self.k
        # ε is about (k − 1)·ln(1/β): bracket around it.
        low = float(np.exp(-4 * epsilon / (k - 1)))
        high = float(np.exp(-epsilon / (4 * (k - 1))))
        rows = cached(
            ("ordinal", k, epsilon),
            lambda: calibrate(
                lambda beta: exponential_rows(k, beta), epsilon, low, high
            )[1].tolist(),
        )
        return {"rows": rows, "total": ROW_SUM_MAX}

    @property
    def outputs(self) -> int:  # documented in the base class
        return self.k

    @property
    def row_sum(self) -> int:  # documented in the base class
        return int(self.weights["total"])

    def channel_weights(self) -> AnyArray:  # documented in the base class
        return np.asarray(self.weights["rows"], dtype=np.int64)

    def input_values(self) -> AnyArray:  # documented in the base class
        return np.arange(self.k, dtype=float)

    def output_values(self) -> AnyArray:
        """Each report is a level index ``r``.

        Returns
        -------
        ndarray of float
            ``0, 1, …, k − 1``.

        Notes
        -----
        Reports near the true level are most likely: ``Q[x, r] ∝ β^{|x−r|}``.

        References
        ----------
        .. [1] docs/maths.md, section 4.
        """
        return np.arange(self.k, dtype=float)

    def _sample(self, x: int, v: int) -> int:
        return cumulative_index(self.weights["rows"][x], v)

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        cumulative = np.cumsum(self._weights_matrix, axis=1)
        offsets = np.arange(self.k, dtype=np.int64)[:, None] * self.row_sum
        flat = (cumulative + offsets).ravel()
        index = np.searchsorted(flat, x * self.row_sum + v, side="right")
        reports: AnyArray = index - x * self.k
        return reports
