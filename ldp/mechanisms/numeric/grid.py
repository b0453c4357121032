"""Numeric questions on a grid ``low, low + step, …, high``."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.mechanisms.about import LINEAR, NUMERIC, ExportColumn
from ldp.mechanisms.numeric.finite import FiniteChannelMechanism
from ldp.mechanisms.words import gettext_noop
from ldp.spec.grid import GRID_FIELDS, validate_grid
from ldp.spec.validation import check_epsilon, required

NUMBER_WHY = gettext_noop(
    "Your device added randomness to your number, so what it sent may be far "
    "from yours; only averages over many people are meaningful."
)
"""What a respondent's receipt says of any randomized number."""


def grid_levels(params: dict[str, Any]) -> tuple[Decimal, Decimal, int]:
    """Return ``(low, step, m)`` of a validated numeric spec."""
    low, high, step = (Decimal(params[name]) for name in ("low", "high", "step"))
    return low, step, int((high - low) / step) + 1


class GridMechanism(FiniteChannelMechanism):
    """A numeric question on the grid ``low, low + step, …, high``.

    Its spec carries the grid instead of ``k`` (``ldp.spec.grid``); its answer
    can be the outcome of a linear regression on the reports' scores.
    """

    kinds = (NUMERIC,)
    spec_fields = GRID_FIELDS
    regression = LINEAR
    receipt_why = NUMBER_WHY

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        grid = validate_grid(spec)
        return grid | {"epsilon": check_epsilon(required(spec, "epsilon"))}

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(m, True)``: a histogram over the grid's ``m`` levels."""
        return grid_levels(params)[2], True

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The reported output index (its value is the estimator's business)."""
        return (ExportColumn(label="reported output index: {question}"),)

    def _input_size(self) -> int:
        self.low, self.step, m = grid_levels(self._params)
        self.high = self.low + (m - 1) * self.step
        return m

    @property
    def m(self) -> int:
        """Number of grid levels ``m = (high − low)/step + 1``.

        Returns
        -------
        int
            ``2 <= m <= 1001``.

        Notes
        -----
        The answer is the level index ``x = (value − low)/step``.

        References
        ----------
        .. [1] ldp/spec/README.md (numeric grids).
        """
        return self.k

    def input_values(self) -> AnyArray:  # documented in the base class
        return float(self.low) + float(self.step) * np.arange(self.k)

    def level(self, value: Any) -> int:
        """Return the level index of a grid value.

        Parameters
        ----------
        value : int, float, str or Decimal
            A value on the grid.

        Returns
        -------
        int
            ``x = (value − low)/step`` in ``[0, m)``.

        Raises
        ------
        ValueError
            If the value is not on the grid.

        Notes
        -----
        Floats are read through their shortest repr (``Decimal(str(x))``).

        References
        ----------
        .. [1] ldp/spec/README.md (numeric grids).
        """
        if isinstance(value, bool):
            raise ValueError(f"value {value!r} is not on the grid")
        try:
            number = Decimal(str(value))
        except ArithmeticError:
            raise ValueError(f"value {value!r} is not a number") from None
        if not number.is_finite():
            raise ValueError(f"value {value!r} is not on the grid")
        index = (number - self.low) / self.step
        if index != index.to_integral_value() or not 0 <= index < self.k:
            raise ValueError(
                f"value {value!r} is not on the grid {self.low}, "
                f"{self.low + self.step}, …, {self.high}"
            )
        return int(index)

    def _scale(self, t: float) -> float:
        """Map ``t`` in the unit scale ``[−1, 1]`` to the value range."""
        low, high = float(self.low), float(self.high)
        return low + (high - low) * (t + 1) / 2
