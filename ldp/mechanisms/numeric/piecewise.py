"""Wang et al.'s piecewise mechanism on a discretised output grid."""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.exact import ROW_SUM_MAX, exp_decimal, floor_decimal
from ldp.mechanisms.numeric.grid import GridMechanism
from ldp.mechanisms.words import Number, Words, gettext_noop
from ldp.spec.ratio import matrix_ratio
from ldp.spec.validation import is_int

MIN_CELLS = 64
"""The output grid has at least about this many cells."""


def piecewise_layout(epsilon: float, m: int) -> tuple[int, int, int]:
    """Return ``(M, w, r)``: output cells, band width and start stride.

    Parameters
    ----------
    epsilon : float
        Requested ε.
    m : int
        Number of input levels.

    Returns
    -------
    M, w, r : int
        ``M = r(m − 1) + w`` cells, band of ``w`` cells starting at ``r·x``.

    Notes
    -----
    ``C = (e^{ε/2} + 1)/(e^{ε/2} − 1)``; in the continuous mechanism the band
    ``[ℓ(t), r(t)]`` has length ``C − 1`` out of ``2C``, a fraction
    ``ρ = (C − 1)/(2C)``.  With stride ``r = max(2, ceil(64/(m − 1)))`` (so
    ``M >= 2m`` and at least about 64 cells) and
    ``w = max(1, round(r(m − 1) ρ/(1 − ρ)))`` the band covers the fraction
    ``w/M ≈ ρ`` and slides from cell 0 to cell ``M − w`` as ``x`` goes from
    0 to ``m − 1``.

    References
    ----------
    .. [1] N. Wang et al., "Collecting and analyzing multidimensional data
       with local differential privacy", ICDE 2019, section III-B.
    """
    half = math.exp(epsilon / 2)
    c = (half + 1) / (half - 1)
    rho = (c - 1) / (2 * c)
    stride = max(2, math.ceil(MIN_CELLS / (m - 1)))
    width = max(1, round(stride * (m - 1) * rho / (1 - rho)))
    return stride * (m - 1) + width, width, stride


class Piecewise(GridMechanism):
    """Report a cell: inside the answer's band w.p. ∝ H, elsewhere ∝ Lo.

    Notes
    -----
    Weights ``{"outputs": M, "width": w, "high": H, "low": Lo,
    "starts": [m ints]}``; row ``x`` puts ``H`` on cells
    ``starts[x] … starts[x] + w − 1`` and ``Lo`` elsewhere, ``S = wH + (M−w)Lo``;
    ``Lo = floor(2^32/(w e^ε + M − w))``, ``H = floor(Lo e^ε)`` so
    ``ε' = ln(H/Lo) <= ε`` (within ``1/H``).  Sampling: ``v = uniform_below(S)``;
    if ``v < wH`` then ``y = starts[x] + floor(v/H)``, else
    ``i = floor((v − wH)/Lo)`` and ``y = i`` if ``i < starts[x]`` else
    ``i + w``.  Continuous variance (unit scale)
    ``t²/(e^{ε/2} − 1) + (e^{ε/2} + 3)/(3(e^{ε/2} − 1)²)``; it beats Duchi
    for ε above about 1.29.

    References
    ----------
    .. [1] N. Wang et al., "Collecting and analyzing multidimensional data
       with local differential privacy", ICDE 2019.
    .. [2] docs/maths.md, section 5.
    """

    name = "piecewise"
    label = gettext_noop("Piecewise mechanism")

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(M, True)``: a histogram of the ``outputs`` cells of the weights."""
        outputs = weights.get("outputs") if isinstance(weights, Mapping) else None
        if not is_int(outputs) or outputs < 1:
            raise ValueError(
                "a piecewise spec's counts need its compiled weights "
                f"('outputs'), got weights {weights!r}"
            )
        return outputs, True

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """Column max/min of the banded channel: ``H/Lo``."""
        w = spec["weights"]
        cells = np.arange(w["outputs"])[None, :]
        starts = np.asarray(w["starts"])[:, None]
        band = (cells >= starts) & (cells < starts + w["width"])
        return matrix_ratio(np.where(band, w["high"], w["low"]).astype(np.int64))

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device usually reports a value close to the true number and "
                "otherwise one anywhere in a wider range (piecewise mechanism)."
            )
        )

    def report_words(self, report: Any) -> Words:
        value = float(self.output_values()[report])
        words = gettext_noop("a number with noise added, about %(value)s")
        return Words(words, {"value": Number(value, decimals=1)})

    def _derive_weights(self) -> dict[str, Any]:
        epsilon = float(self._params["epsilon"])
        cells, width, stride = piecewise_layout(epsilon, self.k)
        e = exp_decimal(epsilon)
        low = floor_decimal(Decimal(ROW_SUM_MAX) / (width * e + cells - width))
        high = floor_decimal(low * e)
        return {
            "outputs": cells,
            "width": width,
            "high": high,
            "low": low,
            "starts": [stride * x for x in range(self.k)],
        }

    @property
    def outputs(self) -> int:  # documented in the base class
        return int(self.weights["outputs"])

    @property
    def row_sum(self) -> int:  # documented in the base class
        w = self.weights
        return int(w["width"] * w["high"] + (w["outputs"] - w["width"]) * w["low"])

    def channel_weights(self) -> AnyArray:  # documented in the base class
        w = self.weights
        cells = np.arange(w["outputs"])[None, :]
        starts = np.asarray(w["starts"])[:, None]
        band = (cells >= starts) & (cells < starts + w["width"])
        weights: AnyArray = np.where(band, w["high"], w["low"]).astype(np.int64)
        return weights

    def output_values(self) -> AnyArray:
        """Centre of each output cell, mapped from ``[−C, C]`` to the range.

        Returns
        -------
        ndarray of float, shape (M,)
            ``t_y = −C + (y + 1/2)·2C/M`` scaled to ``[low, high]``.

        Notes
        -----
        Descriptive; the unbiased estimate uses :meth:`scores`.

        References
        ----------
        .. [1] N. Wang et al., ICDE 2019.
        """
        half = math.exp(float(self._params["epsilon"]) / 2)
        c = (half + 1) / (half - 1)
        cells = self.outputs
        t = -c + (np.arange(cells) + 0.5) * 2 * c / cells
        return np.array([self._scale(float(value)) for value in t])

    def _sample(self, x: int, v: int) -> int:
        w = self.weights
        if v < w["width"] * w["high"]:
            return int(w["starts"][x] + v // w["high"])
        i = int((v - w["width"] * w["high"]) // w["low"])
        return i if i < w["starts"][x] else int(i + w["width"])

    def _output(self, x: AnyArray, v: AnyArray) -> AnyArray:
        w = self.weights
        starts = np.asarray(w["starts"], dtype=np.int64)[x]
        band = w["width"] * w["high"]
        inside = starts + v // w["high"]
        i = np.maximum(v - band, 0) // w["low"]
        outside = np.where(i < starts, i, i + w["width"])
        reports: AnyArray = np.where(v < band, inside, outside)
        return reports
