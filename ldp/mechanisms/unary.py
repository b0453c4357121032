"""Unary encoding: symmetric (basic one-time RAPPOR) and optimized (OUE)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import (
    PRECISION,
    ROW_SUM_MAX,
    ceil_ratio,
    exp_decimal,
    floor_decimal,
    log_ratio,
)
from ldp.mechanisms.about import ORDINAL, SINGLE_CHOICE
from ldp.mechanisms.bit_reports import BitReportHandling
from ldp.mechanisms.oracle import FrequencyOracle
from ldp.mechanisms.words import Percent, Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.validation import is_int

_CHUNK_CELLS = 2**22


class UnaryEncoding(BitReportHandling, FrequencyOracle):
    """Encode answer x as a one-hot vector of k bits and flip each bit.

    Notes
    -----
    Bit ``i`` is 1 w.p. ``A1/S`` if ``i = x`` and ``A0/S`` otherwise, so
    ``p* = A1/S``, ``q* = A0/S`` and, as two answers differ in two bits,
    ``ε' = ln(A1 (S − A0) / ((S − A1) A0))``.

    References
    ----------
    .. [1] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017, section 4.3.
    .. [2] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014.
    .. [3] docs/maths.md, section 3.
    """

    kinds = (SINGLE_CHOICE, ORDINAL)
    one_hot_bits = True
    sentence: ClassVar[str]
    """The plain-words message id, with ``%(p)s`` and ``%(q)s``."""

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """Two answers differ in two bits: the worst factor up times down."""
        w = spec["weights"]
        s, a1, a0 = w["total"], w["one_if_one"], w["one_if_zero"]
        up = max(Fraction(a1, a0), Fraction(s - a1, s - a0))
        down = max(Fraction(a0, a1), Fraction(s - a0, s - a1))
        return up * down

    def describe(self) -> Words:
        p, q = float(self.p_star[0]), float(self.q_star[0])
        return Words(self.sentence, {"p": Percent(p), "q": Percent(q)})

    def _exact_epsilon(self) -> Decimal:
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        s = self.weights["total"]
        return log_ratio(a1 * (s - a0), (s - a1) * a0)

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.weights["total"]
        p = np.full(self.k, self.weights["one_if_one"] / s)
        q = np.full(self.k, self.weights["one_if_zero"] / s)
        return p, q

    def randomize_one(self, value: int, draw: Draw | None = None) -> list[int]:
        """Randomize one answer: k draws of ``uniform_below(S)``, bit by bit.

        Parameters
        ----------
        value : int
            The true answer in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        list of int
            k bits; bit i is 1 iff ``v_i < (A1 if i == x else A0)``.

        Notes
        -----
        ``P(bit_i = 1) = A1/S`` for ``i = x`` and ``A0/S`` otherwise.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.3; ldp/spec/README.md.
        """
        x = self._check_value(value)
        draw = secure_words() if draw is None else draw
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        s = self.weights["total"]
        return [
            int(uniform_below(s, draw) < (a1 if i == x else a0)) for i in range(self.k)
        ]

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize answers into an ``(n, k)`` uint8 bit array.

        Parameters
        ----------
        values : array_like of int
            True answers in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of uint8, shape (n, k)
            One row of bits per answer.

        Notes
        -----
        ``v ~ Uniform[0, S)`` per bit, bit ``= [v < A1]`` on the answer's
        position and ``[v < A0]`` elsewhere, as in ``randomize_one``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.3.
        """
        x = self._check_values(values)
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        out = np.empty((x.size, self.k), dtype=np.uint8)
        rows = max(1, _CHUNK_CELLS // self.k)
        for start in range(0, x.size, rows):
            chunk = x[start : start + rows]
            v = rng.integers(0, self.weights["total"], size=(chunk.size, self.k))
            threshold = np.full((chunk.size, self.k), a0, dtype=np.int64)
            threshold[np.arange(chunk.size), chunk] = a1
            out[start : start + rows] = v < threshold
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
        The report is the k perturbed bits of the one-hot encoding.

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


class SymmetricUnaryEncoding(UnaryEncoding):
    """Symmetric unary encoding (basic one-time RAPPOR): p* = 1 − q*.

    Notes
    -----
    ``S = 2^32``, ``A0 = ceil(S/(e^{ε/2} + 1))``, ``A1 = S − A0``; then
    ``ε' = 2 ln(A1/A0) <= ε``.  Variance at ``f ≈ 0``:
    ``e^{ε/2}/(e^{ε/2} − 1)^2`` per report.

    References
    ----------
    .. [1] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014, section 3.
    .. [2] Wang et al., USENIX Security 2017, section 4.3 (SUE).
    """

    name = "sue"
    label = gettext_noop("Symmetric unary encoding (basic RAPPOR)")
    sentence = gettext_noop(
        "The device sends one randomly flipped bit per option: the chosen "
        "option's bit is on with probability %(p)s, every other option's bit "
        "with %(q)s (symmetric unary encoding, basic RAPPOR)."
    )

    def _derive_weights(self) -> dict[str, int]:
        half = exp_decimal(self._params["epsilon"] / 2)
        a0 = ceil_ratio(ROW_SUM_MAX, half, 1)
        return {"one_if_one": ROW_SUM_MAX - a0, "one_if_zero": a0, "total": ROW_SUM_MAX}


class OptimizedUnaryEncoding(UnaryEncoding):
    """Optimized unary encoding: p* = 1/2, q* = 1/(e^ε + 1).

    Notes
    -----
    ``S = 2^32``, ``A0 = ceil(S/(e^ε + 1))``, then ``A1`` the largest integer
    with ``A1/(S − A1) <= r = e^ε A0/(S − A0)`` (``A1 ≈ 2^31``, ``p* − 1/2`` of
    order ``e^ε/S``): ``ε' = ln(A1 (S − A0)/((S − A1) A0)) <= ε`` and the
    rounding of the small ``A0`` is absorbed by the fine-grained ``A1``.
    Variance at ``f ≈ 0``: ``4 e^ε/(e^ε − 1)^2`` per report.

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 4.3 (OUE), eq. (9).
    .. [2] docs/maths.md, section 3.
    """

    name = "oue"
    label = gettext_noop("Optimized unary encoding")
    sentence = gettext_noop(
        "The device sends one randomly flipped bit per option: the chosen "
        "option's bit is on with probability %(p)s, every other option's bit "
        "with %(q)s (optimized unary encoding)."
    )

    def _derive_weights(self) -> dict[str, int]:
        e = exp_decimal(self._params["epsilon"])
        a0 = ceil_ratio(ROW_SUM_MAX, e, 1)
        with localcontext(Context(prec=PRECISION)):
            r = e * a0 / (ROW_SUM_MAX - a0)
            a1 = floor_decimal(r * ROW_SUM_MAX / (1 + r))
        return {"one_if_one": a1, "one_if_zero": a0, "total": ROW_SUM_MAX}
