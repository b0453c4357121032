"""Per-option randomized response for multi-select questions (basic RAPPOR)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import PRECISION, ROW_SUM_MAX, ceil_ratio, exp_decimal, log_ratio
from ldp.mechanisms.bit_reports import BitReportHandling
from ldp.mechanisms.multiselect.base import CHUNK_CELLS, MultiSelectMechanism
from ldp.mechanisms.words import Number, Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.ratio import pair_ratio
from ldp.spec.validation import COMMON_FIELDS, is_int

MULTI_RR_K_MAX = 64
"""Most options: the report is k bits and each bit gets ε/k."""


class MultiRandomizedResponse(BitReportHandling, MultiSelectMechanism):
    """Randomize every option's selection bit independently (basic RAPPOR).

    The question's requested ``epsilon`` is its total: each of the k bits gets
    ``ε/k`` and the delivered total is ``k ε'_b``.

    Notes
    -----
    ``S = 2^32``, ``A0 = ceil(S/(e^{ε/k} + 1))``, ``A1 = S − A0``: a selected
    option's bit is 1 w.p. ``p = A1/S``, an unselected one's w.p. ``q = A0/S``.
    Per option ``ε'_b = ln(A1/A0) <= ε/k`` (``(S − A0)/(S − A1) = A1/A0`` too).
    Two answer sets may differ in all k bits, so the channel's exact ε is
    ``ln((A1/A0)^k) = k ε'_b`` (sequential composition, tight here).
    ``f̂_v = (C_v/n − q)/(p − q)``, ``Var = λ(1 − λ)/(n (p − q)²)``.

    References
    ----------
    .. [1] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR: randomized
       aggregatable privacy-preserving ordinal response", CCS 2014.
    .. [2] C. Dwork, A. Roth, "The algorithmic foundations of differential
       privacy", 2014, theorem 3.16 (composition).
    .. [3] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017, section 4.3.
    .. [4] docs/maths.md, section 3 (multi-select).
    """

    name = "multi_rr"
    label = gettext_noop("Randomized response per option")
    spec_fields = COMMON_FIELDS | {"epsilon", "epsilon_per_option"}
    receipt_why = gettext_noop(
        "Each option’s mark was decided partly at random, so the marks do not "
        "show which options you chose."
    )

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        fields = super().validate_fields(spec)
        k, epsilon = fields["k"], fields["epsilon"]
        if k > MULTI_RR_K_MAX:
            raise ValueError(
                f"spec field 'k' is {k!r}; allowed for multi_rr: 2 <= k <= "
                f"{MULTI_RR_K_MAX} (use padding_sampling for more options)"
            )
        per_option = epsilon / k
        given = spec.get("epsilon_per_option", per_option)
        if isinstance(given, bool) or given != per_option:
            raise ValueError(
                f"spec field 'epsilon_per_option' is {given!r}; allowed: exactly "
                f"epsilon / k = {per_option!r} (or omitted)"
            )
        return fields | {"epsilon_per_option": per_option}

    @classmethod
    def accepts(cls, answers: Mapping[str, Any]) -> bool:
        """At most ``MULTI_RR_K_MAX`` options."""
        return int(answers["k"]) <= MULTI_RR_K_MAX

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """The worst bit factor to the power k (all k bits may differ)."""
        w = spec["weights"]
        s, a1, a0 = w["total"], w["one_if_one"], w["one_if_zero"]
        per_bit = max(pair_ratio(a1, a0), pair_ratio(s - a1, s - a0))
        return Fraction(per_bit ** spec["k"])

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device randomizes the tick of each of the %(k)s options "
                "separately, spending 1/%(k)s of the question's ε on each "
                "(randomized response per option)."
            ),
            {"k": Number(self.k)},
        )

    def _derive_weights(self) -> dict[str, int]:
        with localcontext(Context(prec=PRECISION)):
            per_option = Decimal(self._params["epsilon"]) / self.k
        a0 = ceil_ratio(ROW_SUM_MAX, exp_decimal(per_option), 1)
        return {"one_if_one": ROW_SUM_MAX - a0, "one_if_zero": a0, "total": ROW_SUM_MAX}

    @property
    def epsilon_per_option_exact(self) -> Decimal:  # documented in the base class
        return log_ratio(self.weights["one_if_one"], self.weights["one_if_zero"])

    def _exact_epsilon(self) -> Decimal:
        with localcontext(Context(prec=PRECISION)):
            return self.k * self.epsilon_per_option_exact

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.weights["total"]
        p = np.full(self.k, self.weights["one_if_one"] / s)
        q = np.full(self.k, self.weights["one_if_zero"] / s)
        return p, q

    def randomize_one(self, selected: Any, draw: Draw | None = None) -> list[int]:
        """Randomize one answer: k draws of ``uniform_below(S)``, bit by bit.

        Parameters
        ----------
        selected : list of int
            The selected options (distinct, in ``[0, k)``; may be empty).
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        list of int
            k bits; bit ``i`` is 1 iff ``v_i < (A1 if i selected else A0)``.

        Notes
        -----
        For ``i = 0 … k − 1`` in order: ``v_i = uniform_below(S)``, exactly as
        ``ldp/spec/README.md`` says, so k draws whatever the answer.

        References
        ----------
        .. [1] Erlingsson et al., CCS 2014; ldp/spec/README.md.
        """
        chosen = set(self._check_selection(selected))
        draw = secure_words() if draw is None else draw
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        s = self.weights["total"]
        return [
            int(uniform_below(s, draw) < (a1 if i in chosen else a0))
            for i in range(self.k)
        ]

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize answers into an ``(n, k)`` uint8 bit array.

        Parameters
        ----------
        values : list of lists of int, or array_like of shape (n, k)
            Selections per respondent, or a 0/1 selection matrix (see
            :meth:`selection_matrix`).
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of uint8, shape (n, k)
            One row of bits per respondent.

        Notes
        -----
        ``v ~ Uniform[0, S)`` per bit; bit ``= [v < A1]`` on selected options
        and ``[v < A0]`` elsewhere, as in ``randomize_one``.

        References
        ----------
        .. [1] Erlingsson et al., CCS 2014.
        """
        matrix = self.selection_matrix(values)
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        out = np.empty(matrix.shape, dtype=np.uint8)
        rows = max(1, CHUNK_CELLS // self.k)
        for start in range(0, matrix.shape[0], rows):
            chunk = matrix[start : start + rows]
            v = rng.integers(0, self.weights["total"], size=chunk.shape)
            out[start : start + rows] = v < np.where(chunk, a1, a0)
        return out

    def validate_report(self, report: Any) -> None:
        """Accept a list of k integers, each 0 or 1; raise ValueError otherwise.

        Parameters
        ----------
        report : object
            One report as decoded from JSON.

        Raises
        ------
        ValueError
            Naming the bad value and what is allowed.  Booleans are not ints.

        Notes
        -----
        Every list of k bits is a possible output (all weights are ``>= 1``).

        References
        ----------
        .. [1] docs/maths.md, section 10; ldp/spec/README.md.
        """
        if not isinstance(report, list) or len(report) != self.k:
            raise ValueError(
                f"{self.name} report is {report!r}; allowed: a list of {self.k} bits"
            )
        for bit in report:
            if not is_int(bit) or bit not in (0, 1):
                raise ValueError(
                    f"{self.name} report bit is {bit!r}; allowed: the integers 0 or 1"
                )
