"""Mechanisms whose report is one answer in ``[0, k)``: binary and GRR."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.mechanisms.oracle import FrequencyOracle
from ldp.mechanisms.reports import bounded_bincount
from ldp.mechanisms.words import Answer, Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below

CHANNEL_K_MAX = 1024
"""Largest k for which the dense channel matrix is materialised."""


class CategoricalMechanism(FrequencyOracle):
    """One rejection-sampled word ``v`` in ``[0, S)`` mapped to an answer."""

    one_answer_reports = True
    report_message: ClassVar[str] = gettext_noop("a randomized choice, “%(answer)s”")
    """How the receipt names what a report is (a message id with ``answer``)."""

    def report_words(self, report: Any) -> Words:
        """The answer the report names (randomized, so not necessarily theirs)."""
        return Words(self.report_message, {"answer": Answer(report)})

    @property
    @abstractmethod
    def row_sum(self) -> int:
        """``S``: the sum of each row of integer weights.

        Returns
        -------
        int
            ``S <= 2^32``, the bound passed to ``uniform_below``.

        Notes
        -----
        Equal row sums make the words consumed independent of the answer.

        References
        ----------
        .. [1] docs/maths.md, section 9.
        """

    @abstractmethod
    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        """Report for answers ``x`` and uniform draws ``v`` in ``[0, S)``."""

    @abstractmethod
    def channel_weights(self) -> AnyArray:
        """Integer channel weights ``W[x, y]`` (each row sums to ``S``).

        Returns
        -------
        ndarray of int64, shape (k, k)
            ``P(report y | answer x) = W[x, y]/S``.

        Notes
        -----
        Exact ε of the channel: ``max_y ln(max_x W[x, y]/min_x W[x, y])``.

        References
        ----------
        .. [1] docs/maths.md, section 1.
        """

    def channel_matrix(self) -> AnyArray:
        """Return ``Q[x, y] = W[x, y]/S``, ``P(report y | answer x)``.

        Returns
        -------
        ndarray, shape (k, k)
            Rows sum to 1.

        Raises
        ------
        NotImplementedError
            For ``k > 1024`` (the dense matrix would be large).

        Notes
        -----
        ``Q = W/S`` with the integer weights of :meth:`channel_weights`.

        References
        ----------
        .. [1] docs/maths.md, section 1.
        """
        if self.k > CHANNEL_K_MAX:
            raise NotImplementedError(
                f"channel matrix not built for k > {CHANNEL_K_MAX}"
            )
        return self.channel_weights() / self.row_sum

    def randomize_one(self, value: int, draw: Draw | None = None) -> int:
        """Randomize one answer with one ``uniform_below(S)`` draw.

        Parameters
        ----------
        value : int
            The true answer in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        int
            The report.

        Notes
        -----
        ``v = uniform_below(S)``, then the mapping of ``ldp/spec/README.md``, so
        ``P(report y | x) = W[x, y]/S`` exactly.

        References
        ----------
        .. [1] docs/maths.md, section 9; ldp/spec/README.md.
        """
        x = self._check_value(value)
        draw = secure_words() if draw is None else draw
        v = uniform_below(self.row_sum, draw)
        report = self._output(np.full(1, x, np.int64), np.full(1, v, np.int64))
        return int(report[0])

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize an array of answers with a numpy Generator.

        Parameters
        ----------
        values : array_like of int
            True answers in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of int64
            One report per answer.

        Notes
        -----
        ``v ~ Uniform[0, S)`` per answer, mapped exactly as in ``randomize_one``.

        References
        ----------
        .. [1] docs/maths.md, sections 2-3.
        """
        x = self._check_values(values)
        v = rng.integers(0, self.row_sum, size=x.size, dtype=np.int64)
        return self._output(x, v).astype(np.int64)

    def validate_report(self, report: Any) -> None:
        """Accept an integer in ``[0, k)``; raise ValueError otherwise.

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
        The report is one answer ``y`` in ``[0, k)``.

        References
        ----------
        .. [1] docs/maths.md, section 10; ldp/spec/README.md.
        """
        self._int_in("value", report, self.k)

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.int64).reshape(-1)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError(f"{self.name} reports must be a 1-d integer array")
        return array.astype(np.int64, copy=False)

    def _support_counts(self, array: AnyArray) -> IntArray:
        counts = bounded_bincount(array, self.k)  # range check in the same pass
        if counts is None:
            raise ValueError(f"{self.name} reports must lie in [0, {self.k})")
        return counts
