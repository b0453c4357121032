"""Padding-and-sampling for multi-select questions: one padded slot by GRR."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Context, Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.exact import PRECISION, ROW_SUM_MAX, exp_decimal, floor_decimal, log_ratio
from ldp.mechanisms.about import ANSWERS, ExportColumn
from ldp.mechanisms.multiselect.base import CHUNK_CELLS, MultiSelectMechanism
from ldp.mechanisms.words import Number, Options, Words, gettext_noop
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.ratio import pair_ratio
from ldp.spec.validation import COMMON_FIELDS, is_int


def padding_weights(epsilon: float, k: int, ell: int) -> tuple[int, int]:
    """Integer GRR weights ``(P, Q)`` over the ``k + ℓ`` padded items.

    Parameters
    ----------
    epsilon : float
        Requested ε of the whole answer.
    k : int
        Number of options.
    ell : int
        Padding length ``ℓ``.

    Returns
    -------
    P, Q : int
        Keep weight and weight of each other item, ``P + (k + ℓ − 1) Q <= 2^32``.

    Notes
    -----
    Sampling one of ``ℓ`` slots before the GRR makes the answer's channel
    ``P(y | X) = (P + (ℓ − 1) Q)/(ℓ S)`` if ``y`` is one of ``X``'s padded
    items, else ``Q/S``, so its exact ε is ``ln((P + (ℓ − 1) Q)/(ℓ Q))``.  We
    aim the GRR at ``r = ℓ (e^ε − 1) + 1``: ``Q = floor(2^32/(r + k + ℓ − 1))``,
    ``P = floor(Q r)``, which gives ``(P + (ℓ − 1) Q)/(ℓ Q) <= e^ε``.  For
    ``ℓ = 1`` this is the plain GRR calibration.

    References
    ----------
    .. [1] T. Wang, N. Li, S. Jha, "Locally differentially private frequent
       itemset mining", IEEE S&P 2018, section 4.
    .. [2] docs/maths.md, section 1 (exact ε of a finite channel).
    """
    with localcontext(Context(prec=PRECISION)):
        ratio = ell * (exp_decimal(epsilon) - 1) + 1
        other = floor_decimal(Decimal(ROW_SUM_MAX) / (ratio + k + ell - 1))
        keep = floor_decimal(other * ratio)
    if other < 1:
        raise ValueError(
            f"epsilon={epsilon!r} with k={k}, ell={ell} would need a weight of 0"
        )
    return keep, other


class PaddingAndSampling(MultiSelectMechanism):
    """Pad the selection to ℓ items, sample one slot, report it by GRR.

    Options are ``0 … k − 1``, dummy items ``k … k + ℓ − 1``.  A selection
    ``X`` (``|X| <= ℓ``) is padded with the dummies ``k + |X| … k + ℓ − 1``;
    one of the ℓ slots is chosen uniformly and reported by generalized
    randomized response over the ``k + ℓ`` items.

    Notes
    -----
    With GRR weights ``P``, ``Q``, ``S = P + (k + ℓ − 1) Q``, ``p = P/S``,
    ``q = Q/S``: ``P(report v) = q + (p − q) f_v/ℓ`` for option ``v``, so
    ``f̂_v = ℓ (C_v/n − q)/(p − q)`` and
    ``Var f̂_v = ℓ² λ_v (1 − λ_v)/(n (p − q)²)``.
    The answer's channel takes two values, ``(P + (ℓ − 1) Q)/(ℓ S)`` and
    ``Q/S``, so the delivered ε is exactly
    ``ε' = ln((P + (ℓ − 1) Q)/(ℓ Q))`` (the GRR alone has ``ln(P/Q)``, larger
    for ``ℓ > 1``: the secret slot choice amplifies privacy, and the weights
    are calibrated to the whole channel, see :func:`padding_weights`).
    Changing whether one option is selected can cost the whole ε, so the
    per-option ε equals the total.

    References
    ----------
    .. [1] T. Wang, N. Li, S. Jha, "Locally differentially private frequent
       itemset mining", IEEE S&P 2018, section 4 (padding-and-sampling).
    .. [2] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017, section 4.1.
    .. [3] docs/maths.md, section 3 (multi-select).
    """

    name = "padding_sampling"
    one_answer_reports = True
    label = gettext_noop("Padding and sampling")
    spec_fields = COMMON_FIELDS | {"epsilon", "ell"}
    receipt_why = gettext_noop(
        "Your device picked one item at random (one of your choices, or a "
        "padding item when you chose fewer than the most allowed) and then "
        "randomized it, so it does not show which options you chose."
    )

    @classmethod
    def validate_fields(cls, spec: Mapping[str, Any]) -> dict[str, Any]:
        fields = super().validate_fields(spec)
        k = fields["k"]
        if "ell" not in spec:
            raise ValueError(
                "spec field 'ell' is missing; required for padding_sampling "
                f"(the most options one answer may select, 1 <= ell <= k = {k})"
            )
        ell = spec["ell"]
        if not is_int(ell) or not 1 <= ell <= k:
            raise ValueError(
                f"spec field 'ell' is {ell!r}; allowed: integers 1 <= ell <= k = {k}"
            )
        return fields | {"ell": ell}

    @classmethod
    def request(
        cls,
        answers: Mapping[str, Any],
        epsilon: float,
        *,
        max_selections: int | None = None,
        design: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Pads to ``ℓ = max_selections`` (every option when None)."""
        spec = super().request(answers, epsilon, design=design)
        return spec | {"ell": max_selections or spec["k"]}

    @classmethod
    def selection_limit(cls, spec: Mapping[str, Any]) -> int | None:
        """``ℓ``: the reports are built for at most ``ℓ`` selections."""
        ell = spec.get("ell")
        return ell if is_int(ell) else None

    @classmethod
    def counts_layout(cls, params: dict[str, Any], weights: Any) -> tuple[int, bool]:
        """``(k + ℓ, True)``: a histogram of the reported items."""
        return int(params["k"]) + int(params["ell"]), True

    @classmethod
    def weights_ratio(cls, spec: Mapping[str, Any]) -> Fraction:
        """``(P + (ℓ − 1) Q)/(ℓ Q)``: the slot choice amplifies the GRR's."""
        keep, other, ell = (
            spec["weights"]["keep"],
            spec["weights"]["other"],
            spec["ell"],
        )
        return pair_ratio(keep + (ell - 1) * other, ell * other)

    def describe(self) -> Words:
        return Words(
            gettext_noop(
                "The device pads the ticked options to %(ell)s slots, picks one "
                "slot at random and reports it with randomized response over "
                "%(items)s items (padding and sampling: one short report)."
            ),
            {"ell": Number(self.ell), "items": Number(self.items)},
        )

    def report_words(self, report: Any) -> Words:
        if report < self.k:
            return Words(
                gettext_noop("one randomly picked option, randomized: %(option)s"),
                {"option": Options((report,))},
            )
        return Words(gettext_noop("a randomized blank (it stands for no option)"))

    def export_columns(self) -> tuple[ExportColumn, ...]:
        """The reported item: an option's label, or a padding item."""
        padding = {self.k + j: f"(padding item {j + 1})" for j in range(self.ell)}
        return (
            ExportColumn(
                answers=self.k, value_labels=padding, measure=ANSWERS, factor=True
            ),
        )

    def __init__(self, params: dict[str, Any], weights: Any = None) -> None:
        self.ell: int = params["ell"]
        self.scale = self.ell
        super().__init__(params, weights)

    @property
    def max_selections(self) -> int:  # documented in the base class
        return self.ell

    @property
    def items(self) -> int:
        """Number of padded items ``k + ℓ`` (the GRR's outputs).

        Returns
        -------
        int
            ``k + ℓ``.

        Notes
        -----
        Reports are integers in ``[0, k + ℓ)``; ``k …`` are dummies.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        return self.k + self.ell

    @property
    def row_sum(self) -> int:
        """``S = P + (k + ℓ − 1) Q``, the bound of the GRR draw.

        Returns
        -------
        int
            ``S <= 2^32``.

        Notes
        -----
        Equal for every item, so the words consumed never depend on the answer.

        References
        ----------
        .. [1] docs/maths.md, section 9.
        """
        return self.weights["keep"] + (self.items - 1) * self.weights["other"]

    @property
    def epsilon_grr_exact(self) -> Decimal:
        """ε of the inner GRR alone, ``ln(P/Q)`` (an upper bound on ε').

        Returns
        -------
        Decimal
            ``ln(P/Q)``.

        Notes
        -----
        What the sampled item alone would cost if the slot were public.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        return log_ratio(self.weights["keep"], self.weights["other"])

    def _derive_weights(self) -> dict[str, int]:
        keep, other = padding_weights(self._params["epsilon"], self.k, self.ell)
        return {"keep": keep, "other": other}

    def _exact_epsilon(self) -> Decimal:
        keep, other = self.weights["keep"], self.weights["other"]
        return log_ratio(keep + (self.ell - 1) * other, self.ell * other)

    def _support_probabilities(self) -> tuple[AnyArray, AnyArray]:
        s = self.row_sum
        p = np.full(self.items, self.weights["keep"] / s)
        q = np.full(self.items, self.weights["other"] / s)
        return p, q

    def _grr(self, t: AnyArray, v: AnyArray) -> AnyArray:
        keep, other = self.weights["keep"], self.weights["other"]
        i = np.maximum(v - keep, 0) // other
        return np.where(v < keep, t, np.where(i < t, i, i + 1))

    def randomize_one(self, selected: Any, draw: Draw | None = None) -> int:
        """Randomize one answer: pick a padded slot, then GRR over k + ℓ items.

        Parameters
        ----------
        selected : list of int
            The selected options (distinct, in ``[0, k)``, at most ℓ; may be
            empty).
        draw : callable, optional
            Source of uniform 32-bit words; default: the OS CSPRNG.

        Returns
        -------
        int
            The report, in ``[0, k + ℓ)``.

        Notes
        -----
        ``j = uniform_below(ℓ)``; ``t = sorted(selected)[j]`` if
        ``j < |selected|`` else ``k + j``; ``v = uniform_below(S)``; ``v < P``
        → ``t``, else ``i = floor((v − P)/Q)`` and ``i`` if ``i < t`` else
        ``i + 1`` (``ldp/spec/README.md``, word for word).

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4; ldp/spec/README.md.
        """
        items = self._check_selection(selected)
        draw = secure_words() if draw is None else draw
        j = uniform_below(self.ell, draw)
        t = items[j] if j < len(items) else self.k + j
        v = uniform_below(self.row_sum, draw)
        keep, other = self.weights["keep"], self.weights["other"]
        if v < keep:
            return t
        i = (v - keep) // other
        return i if i < t else i + 1

    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
        """Randomize answers into one GRR report per respondent.

        Parameters
        ----------
        values : list of lists of int, or array_like of shape (n, k)
            Selections per respondent (at most ℓ each), or a 0/1 selection
            matrix (see :meth:`selection_matrix`).
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray of int64, shape (n,)
            Reports in ``[0, k + ℓ)``.

        Notes
        -----
        ``j ~ Uniform[0, ℓ)``; the ``j``-th selected option in increasing
        order if ``j < |X|``, else dummy ``k + j``; then GRR with
        ``v ~ Uniform[0, S)`` mapped as in ``randomize_one``.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        matrix = self.selection_matrix(values)
        n = matrix.shape[0]
        out = np.empty(n, dtype=np.int64)
        rows = max(1, CHUNK_CELLS // self.k)
        for start in range(0, n, rows):
            chunk = matrix[start : start + rows]
            m = int(chunk.shape[0])
            j = rng.integers(0, self.ell, size=m)
            rank = np.cumsum(chunk, axis=1)
            hit = chunk & (rank == (j + 1)[:, None])
            t = np.where(j < rank[:, -1], hit.argmax(axis=1), self.k + j)
            v = rng.integers(0, self.row_sum, size=m, dtype=np.int64)
            out[start : start + m] = self._grr(t, v)
        return out

    def validate_report(self, report: Any) -> None:
        """Accept an integer in ``[0, k + ℓ)``; raise ValueError otherwise.

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
        Reports ``k …`` are dummy items; every item is a possible output.

        References
        ----------
        .. [1] docs/maths.md, section 10; ldp/spec/README.md.
        """
        self._int_in("value", report, self.items)

    def _array_from_reports(self, reports: list[Any]) -> AnyArray:
        return np.asarray(reports, dtype=np.int64).reshape(-1)

    def _check_array(self, array: AnyArray) -> AnyArray:
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError(f"{self.name} reports must be a 1-d integer array")
        if array.size and (array.min() < 0 or array.max() >= self.items):
            raise ValueError(f"{self.name} reports must lie in [0, {self.items})")
        return array.astype(np.int64)

    def _support_counts(self, array: AnyArray) -> IntArray:
        return np.bincount(array, minlength=self.items)
