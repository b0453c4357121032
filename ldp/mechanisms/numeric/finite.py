"""Finite-channel mechanisms: integer channel, exact ε, sampling, reports.

Shared by the ordinal (exponential mechanism) and numeric-grid mechanisms:
every one is a channel ``W[x, y]/S`` over a small input set, sampled with one
``uniform_below(S)`` word per report.
"""

from __future__ import annotations

from abc import abstractmethod
from decimal import Decimal
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, FloatArray, IntArray
from ldp.exact import ROW_SUM_MAX
from ldp.mechanisms.about import MEAN
from ldp.mechanisms.numeric.calibration import exact_channel_epsilon
from ldp.mechanisms.numeric.estimation import ChannelEstimation
from ldp.sampling import Draw, secure_words, uniform_below


class FiniteChannelMechanism(ChannelEstimation):
    """A mechanism whose report is one output index, from integer weights.

    Subclasses give the input size, the integer channel ``W`` (equal row
    sums ``S``), the contract's scalar sampler and the value of each input.
    """

    one_answer_reports: ClassVar[bool] = True
    headline = MEAN

    def _weights_match(self, given: Any) -> bool:
        return bool(given == self.weights)

    @cached_property
    def _weights_matrix(self) -> IntArray:
        """``W`` as an int64 array, checked to have equal row sums ``S``."""
        matrix = np.asarray(self.channel_weights(), dtype=np.int64)
        if np.any(matrix.sum(axis=1) != self.row_sum) or self.row_sum > ROW_SUM_MAX:
            raise AssertionError("channel rows must all sum to S <= 2^32")
        return matrix

    @property
    @abstractmethod
    def row_sum(self) -> int:
        """``S``: every row of integer weights sums to it (``<= 2^32``).

        Returns
        -------
        int
            The bound passed to ``uniform_below``.

        Notes
        -----
        Equal sums make the words consumed independent of the answer.

        References
        ----------
        .. [1] docs/maths.md, section 9.
        """

    @abstractmethod
    def channel_weights(self) -> AnyArray:
        """Integer channel ``W[x, y]``; ``P(report y | answer x) = W[x, y]/S``.

        Returns
        -------
        ndarray of int64, shape (k, outputs)
            Every entry ``>= 1``, every row summing to ``S``.

        Notes
        -----
        ``ε = max_y ln(max_x W[x, y]/min_x W[x, y])``.

        References
        ----------
        .. [1] docs/maths.md, section 1.
        """

    @abstractmethod
    def output_values(self) -> AnyArray:
        """The value each report stands for (see each mechanism).

        Returns
        -------
        ndarray of float, shape (outputs,)
            Descriptive; unbiased estimation uses :meth:`scores`.

        Notes
        -----
        Grid mechanisms: the grid value; Duchi: ``±B`` scaled to the range.

        References
        ----------
        .. [1] docs/maths.md, section 5.
        """

    @abstractmethod
    def _sample(self, x: int, v: int) -> int:
        """The contract's scalar map from answer and draw to report."""

    @abstractmethod
    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        """Vectorised map from answers and draws to reports."""

    def _exact_epsilon(self) -> Decimal:
        return exact_channel_epsilon(self._weights_matrix)

    def _spec_fields(self) -> dict[str, Any]:
        return dict(self._params)

    def channel_matrix(self) -> FloatArray:
        """Return ``Q[x, y] = W[x, y]/S``.

        Returns
        -------
        ndarray, shape (k, outputs)
            Rows sum to 1.

        Notes
        -----
        Exact ε of this channel is :attr:`epsilon_exact`; its privacy profile
        is ``ldp.accounting.privacy_profile(Q, ε)``.

        References
        ----------
        .. [1] docs/maths.md, section 1.
        """
        return self._weights_matrix / self.row_sum

    # --- sampling -------------------------------------------------------------
    def randomize_one(self, value: int, draw: Draw | None = None) -> int:
        """Randomize one answer level with one ``uniform_below(S)`` draw.

        Parameters
        ----------
        value : int
            Answer level ``x`` in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        int
            The report, an integer in ``[0, outputs)``.

        Notes
        -----
        ``v = uniform_below(S)`` then the mechanism's row of the contract
        table, word for word; ``P(y | x) = W[x, y]/S``.

        References
        ----------
        .. [1] docs/maths.md, section 9; ldp/spec/README.md.
        """
        x = self._check_value(value)
        draw = secure_words() if draw is None else draw
        return self._sample(x, uniform_below(self.row_sum, draw))

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize an array of answer levels with a numpy Generator.

        Parameters
        ----------
        values : array_like of int
            Answer levels in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of int64
            One report per answer.

        Notes
        -----
        ``v ~ Uniform[0, S)`` mapped exactly as in :meth:`randomize_one`.

        References
        ----------
        .. [1] docs/maths.md, sections 5 and 9.
        """
        x = self._check_values(values)
        v = rng.integers(0, self.row_sum, size=x.size, dtype=np.int64)
        return np.asarray(self._output(x, v), dtype=np.int64)

    # --- reports --------------------------------------------------------------
    def validate_report(self, report: Any) -> None:
        """Accept an integer in ``[0, outputs)``; raise ValueError otherwise.

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
        Every output index has positive probability under every answer.

        References
        ----------
        .. [1] docs/maths.md, section 10.
        """
        self._int_in("value", report, self.outputs)

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.int64).reshape(-1)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError(f"{self.name} reports must be a 1-d integer array")
        if array.size and (array.min() < 0 or array.max() >= self.outputs):
            raise ValueError(f"{self.name} reports must lie in [0, {self.outputs})")
        return array.astype(np.int64)

    def _support_counts(self, array: AnyArray) -> IntArray:
        return np.bincount(array, minlength=self.outputs)
