"""Additive-kernel mechanisms on a grid: geometric (discrete Laplace)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX, UndeliverableEpsilon
from ldp.mechanisms.about import SCALE, ExportColumn
from ldp.mechanisms.numeric.calibration import (
    Extremes,
    cached,
    calibrate,
    cumulative_index,
    extremes_epsilon,
    round_rows,
)
from ldp.mechanisms.numeric.grid import GridMechanism
from ldp.mechanisms.words import GridValue, Words, gettext_noop
from ldp.spec.ratio import matrix_ratio


def clamped_channel(kernel: AnyArray, m: int) -> AnyArray:
    """Integer channel of ``y = clamp(x + d, 0, m − 1)``, ``d ~ kernel``.

    Parameters
    ----------
    kernel : ndarray of int64, shape (2m − 1,)
        Weight of offset ``d = j − (m − 1)``; sums to ``S``.
    m : int
        Number of grid levels.

    Returns
    -------
    ndarray of int64, shape (m, m)
        ``W[x, y]``: the kernel entry ``y − x`` inside, the tail sums at the
        two ends.

    Notes
    -----
    ``W[x, 0] = Σ_{d <= −x} K[d]``, ``W[x, m−1] = Σ_{d >= m−1−x} K[d]``.

    References
    ----------
    .. [1] docs/maths.md, section 5.
    """
    kernel = np.asarray(kernel, dtype=np.int64)
    total = int(kernel.sum())
    cumulative = np.cumsum(kernel)
    x = np.arange(m)[:, None]
    y = np.arange(m)[None, :]
    weights: AnyArray = kernel[y - x + m - 1]
    weights[:, 0] = cumulative[m - 1 - np.arange(m)]
    weights[:, m - 1] = total - cumulative[2 * m - 3 - np.arange(m)]
    return weights


def clamped_extremes(kernel: AnyArray, m: int) -> Extremes:
    """Column maxima and minima of :func:`clamped_channel`, in ``O(m)``.

    Parameters
    ----------
    kernel : ndarray of int64, shape (2m − 1,)
        Weight of offset ``d = j − (m − 1)``.
    m : int
        Number of grid levels.

    Returns
    -------
    (ndarray, ndarray)
        ``max_x W[x, y]`` and ``min_x W[x, y]`` for ``y = 0 … m − 1``, equal
        to :func:`ldp.mechanisms.numeric.calibration.column_extremes` of the
        clamped channel without building its ``m × m`` weights.

    Notes
    -----
    An inner column ``0 < y < m − 1`` holds ``K[j]`` for ``j = y … y + m − 1``,
    a window that always contains the centre ``j = m − 1``; its maximum is
    the larger of ``max K[y … m−1]`` and ``max K[m−1 … y+m−1]``, read from a
    running maximum outwards from the centre (the same for the minimum).
    The end columns are the tail sums ``C[m−1−x]`` and ``S − C[2m−3−x]``
    (``C`` the cumulative sum), increasing and decreasing in ``x``.

    References
    ----------
    .. [1] docs/maths.md, section 5.
    """
    kernel = np.asarray(kernel, dtype=np.int64)
    cumulative = np.cumsum(kernel)
    total = int(cumulative[-1])
    high = np.empty(m, dtype=np.int64)
    low = np.empty(m, dtype=np.int64)
    if m > 2:
        left = kernel[:m][::-1]  # from the centre leftwards: K[m−1], K[m−2], …
        right = kernel[m - 1 :]  # from the centre rightwards
        left_max = np.maximum.accumulate(left)[::-1]  # max K[j … m−1]
        left_min = np.minimum.accumulate(left)[::-1]
        right_max = np.maximum.accumulate(right)  # max K[m−1 … m−1+i]
        right_min = np.minimum.accumulate(right)
        y = np.arange(1, m - 1)
        high[1:-1] = np.maximum(left_max[y], right_max[y])
        low[1:-1] = np.minimum(left_min[y], right_min[y])
    high[0], low[0] = cumulative[m - 1], cumulative[0]
    high[-1], low[-1] = total - cumulative[m - 2], total - cumulative[2 * m - 3]
    return high, low


class KernelMechanism(GridMechanism):
    """Report ``clamp(x + d)`` with an integer kernel over offsets ``d``.

    Notes
    -----
    Weights ``{"kernel": [2m − 1 ints], "total": S}``; kernel index ``j`` is
    the offset ``d = j − (m − 1)``.  Sampling:
    ``d = cumulative(kernel, uniform_below(S)) − (m − 1)``,
    ``y = min(max(x + d, 0), m − 1)``.

    References
    ----------
    .. [1] docs/maths.md, section 5; ldp/spec/README.md.
    """

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """Column max/min of the clamped channel of the spec's kernel."""
        kernel = np.asarray(spec["weights"]["kernel"], dtype=np.int64)
        return matrix_ratio(clamped_channel(kernel, (kernel.size + 1) // 2))

    def report_words(self, report: Any) -> Words:
        """The grid value reported (the true number plus clamped noise)."""
        words = gettext_noop("a number with noise added, %(value)s")
        return Words(words, {"value": GridValue(report)})

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The reported value on the grid."""
        return (ExportColumn(label="reported value: {question}", measure=SCALE),)

    def export_cells(self, report: Any) -> list[Any]:
        """``low + y·step``, as a number."""
        return [float(self.low + int(report) * self.step)]

    def r_arguments(self) -> dict[str, Any]:
        """The channel's constants, and the grid that maps a reported value
        back to its output index (``y = (x − low)/step``)."""
        return {
            **super().r_arguments(),
            "low": float(self.low),
            "step": float(self.step),
        }

    def _real_kernel(self, parameter: float) -> AnyArray:
        raise NotImplementedError

    def _kernel_row(self, parameter: float) -> AnyArray:
        """The integer kernel (one row of weights) at a noise parameter."""
        row: AnyArray = round_rows(self._real_kernel(parameter)[None, :], ROW_SUM_MAX)[
            0
        ]
        return row

    def _row_extremes(self, row: AnyArray) -> Extremes:
        return clamped_extremes(row, self.k)

    def _bracket(self, epsilon: float) -> tuple[float, float]:
        """Noise parameters ``(less, more)`` the calibration bisects between."""
        raise NotImplementedError

    def _derive_weights(self) -> dict[str, Any]:
        return self._calibrated(*self._bracket(float(self._params["epsilon"])))

    @classmethod
    def noise_exhausted(cls, params: dict[str, Any], epsilon: float) -> bool | None:
        """Whether even the most noise calibration may use delivers more than ε.

        Parameters
        ----------
        params : dict
            A validated spec of this family.
        epsilon : float
            A request.

        Returns
        -------
        bool
            True when the integer kernel at the noisiest end of the bracket
            already has an exact ε above the request: calibration refuses it
            before bisecting.

        Notes
        -----
        One kernel instead of a compile; the search for the nearest
        expressible ε bisects on it (:mod:`ldp.mechanisms.smallest`).

        References
        ----------
        .. [1] docs/maths.md, section 1.4.
        """
        probe = cls.__new__(cls)
        probe._params = dict(params, epsilon=epsilon)
        probe.k = probe._input_size()
        try:
            row = probe._kernel_row(probe._bracket(epsilon)[1])
        except UndeliverableEpsilon:
            return True
        return extremes_epsilon(probe._row_extremes(row)) > Decimal(epsilon)

    def _calibrated(self, low: float, high: float) -> dict[str, Any]:
        epsilon = float(self._params["epsilon"])

        def compute() -> tuple[float, list[int], Decimal | None]:
            found = calibrate(self._kernel_row, epsilon, low, high, self._row_extremes)
            return found.parameter, [int(w) for w in found.weights], found.above

        self.parameter, kernel, self.epsilon_above = cached(
            (self.name, self.k, epsilon), compute
        )
        return {"kernel": kernel, "total": ROW_SUM_MAX}

    @property
    def outputs(self) -> int:  # documented in the base class
        return self.k

    @property
    def row_sum(self) -> int:  # documented in the base class
        return int(self.weights["total"])

    def channel_weights(self) -> AnyArray:  # documented in the base class
        return clamped_channel(np.asarray(self.weights["kernel"]), self.k)

    def output_values(self) -> AnyArray:
        """Each report is a grid level: its value ``low + y·step``.

        Returns
        -------
        ndarray of float, shape (m,)
            The grid values.

        Notes
        -----
        Clamping piles tail mass on the ends, so the plain average of the
        reported values is biased; :meth:`estimate_mean` uses the scores.

        References
        ----------
        .. [1] docs/maths.md, section 5.
        """
        return self.input_values()

    def _sample(self, x: int, v: int) -> int:
        d = cumulative_index(self.weights["kernel"], v) - (self.k - 1)
        return min(max(x + d, 0), self.k - 1)

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        cumulative = np.cumsum(np.asarray(self.weights["kernel"], dtype=np.int64))
        d = np.searchsorted(cumulative, v, side="right") - (self.k - 1)
        return np.clip(x + d, 0, self.k - 1)


class Geometric(KernelMechanism):
    """Discrete Laplace (geometric) noise in level units, clamped to the grid.

    Notes
    -----
    Kernel ``K[d] ∝ α^{|d|}`` for ``|d| < m − 1`` and
    ``K[±(m−1)] ∝ α^{m−1}/(1 − α)`` (the folded tails of the two-sided
    geometric), so clamping gives exactly the channel of an untruncated
    geometric with ``ε = (m − 1) ln(1/α)``: the sensitivity is the whole
    range, ``m − 1`` levels, and ``α = e^{−ε/(m−1)}``.  α is then fine-tuned by
    bisection so the exact ε of the *integer* channel is the requested ε
    (never above).  Unbiased mean by the score vector (:meth:`scores`).

    References
    ----------
    .. [1] C. Dwork, A. Roth, "The algorithmic foundations of differential
       privacy", 2014, section 3.3 (Laplace mechanism).
    .. [2] A. Ghosh, T. Roughgarden, M. Sundararajan, "Universally
       utility-maximizing privacy mechanisms", STOC 2009 (geometric).
    .. [3] I. Mironov, "On significance of the least significant bits for
       differential privacy", CCS 2012 (no floating-point noise).
    .. [4] docs/maths.md, section 5.
    """

    name = "geometric"
    label = gettext_noop("Discrete Laplace (geometric)")

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device shifts the number by a random number of steps, small "
                "shifts being more likely, and keeps it within the range "
                "(discrete Laplace)."
            )
        )

    def _real_kernel(self, parameter: float) -> AnyArray:
        m = self.k
        distance = np.abs(np.arange(-(m - 1), m)).astype(float)
        kernel: AnyArray = np.power(parameter, distance)
        kernel[[0, -1]] /= 1 - parameter
        return kernel

    def _bracket(self, epsilon: float) -> tuple[float, float]:
        span = self.k - 1
        return float(np.exp(-2 * epsilon / span)), float(np.exp(-epsilon / (2 * span)))

    @property
    def alpha(self) -> float:
        """The calibrated decay ``α`` per level (about ``e^{−ε/(m−1)}``).

        Returns
        -------
        float
            ``0 < α < 1``.

        Notes
        -----
        ``K[d] ∝ α^{|d|}``.

        References
        ----------
        .. [1] docs/maths.md, section 5.
        """
        return float(self.parameter)
