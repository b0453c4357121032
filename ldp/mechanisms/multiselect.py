"""Multi-select (checkbox) questions: per-option RR and padding-and-sampling.

An answer is a set of distinct option indices in ``[0, k)``, written as a list
(``[]`` when nothing is selected).  The estimate is, per option, the share of
respondents who selected it; shares need not sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Context, Decimal, localcontext
from typing import Any

import numpy as np

from ldp.estimators import multiselect
from ldp.estimators.multiselect import MultiSelectEstimate
from ldp.exact import (
    PRECISION,
    ROW_SUM_MAX,
    ceil_ratio,
    exp_decimal,
    floor_decimal,
    log_ratio,
    round_up_float,
)
from ldp.mechanisms.base import Mechanism
from ldp.results import SupportCounts
from ldp.sampling import Draw, secure_words, uniform_below
from ldp.spec.validation import is_int

_CHUNK_CELLS = 2**22


class MultiSelectMechanism(Mechanism):
    """Common handling of multi-select answers, estimates and variances.

    Subclasses set ``scale`` (``L``) and ``max_selections`` and provide the
    option support probabilities ``p``, ``q`` with
    ``E[C_v/n] = q + (p − q) f_v/L``.
    """

    scale: int = 1

    @property
    def max_selections(self) -> int:
        """Most options one answer may select.

        Returns
        -------
        int
            ``k`` for per-option RR, ``ℓ`` for padding-and-sampling.

        Notes
        -----
        Larger answers are refused (padding-and-sampling's estimator assumes
        ``|X| <= ℓ``).

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        return self.k

    @property
    def epsilon_per_option(self) -> float:
        """Delivered ε spent on any one option, rounded up to a float.

        Returns
        -------
        float
            ``min{x in float64 : x >= ε'_option}``.

        Notes
        -----
        The privacy loss about whether one given option is selected, all
        other selections fixed.

        References
        ----------
        .. [1] Deniable LDP primer, section 3 ("Multi-select").
        """
        return round_up_float(self.epsilon_per_option_exact)

    @property
    def epsilon_per_option_exact(self) -> Decimal:
        """Delivered per-option ε, exact (60 digits).

        Returns
        -------
        Decimal
            See :attr:`epsilon_per_option`.

        Notes
        -----
        Computed from the integer weights.

        References
        ----------
        .. [1] Deniable LDP primer, section 1.
        """
        return self.epsilon_exact

    # --- answers --------------------------------------------------------------
    def _check_selection(self, selected: Any) -> list[int]:
        allowed = (
            f"a list of distinct integers in [0, {self.k}), at most "
            f"{self.max_selections} of them"
        )
        if isinstance(selected, np.ndarray):
            selected = selected.tolist()
        if not isinstance(selected, (list, tuple, set, frozenset)):
            raise ValueError(f"answer is {selected!r}; allowed: {allowed}")
        items = []
        for value in selected:
            if isinstance(value, np.integer):
                value = int(value)
            if not is_int(value) or not 0 <= value < self.k:
                raise ValueError(
                    f"answer option is {value!r} (in {selected!r}); allowed: {allowed}"
                )
            items.append(value)
        if len(set(items)) != len(items) or len(items) > self.max_selections:
            raise ValueError(f"answer is {selected!r}; allowed: {allowed}")
        return sorted(items)

    def selection_matrix(self, values: Any) -> np.ndarray:
        """Turn answers into an ``(n, k)`` boolean selection matrix.

        Parameters
        ----------
        values : list of lists of int, or array_like of shape (n, k)
            Either one selection (list of distinct option indices) per
            respondent, or a 0/1 (or boolean) matrix whose row ``r`` marks the
            options respondent ``r`` selected.

        Returns
        -------
        ndarray of bool, shape (n, k)
            ``M[r, v]`` is True iff respondent ``r`` selected option ``v``.

        Raises
        ------
        ValueError
            For an option outside ``[0, k)``, a repeated option, an entry that
            is not 0/1, or a row with more than ``max_selections`` selections.

        Notes
        -----
        A 2-d numpy array is read as a matrix; anything else as a list of
        selections.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        if isinstance(values, np.ndarray) and values.ndim == 2:
            if values.shape[1] != self.k:
                raise ValueError(
                    f"selection matrix has shape {values.shape}; allowed: (n, {self.k})"
                )
            if values.size and (
                values.dtype.kind not in "biu" or values.min() < 0 or values.max() > 1
            ):
                raise ValueError("selection matrix entries must be 0 or 1")
            matrix = values.astype(bool)
        else:
            if not isinstance(values, Iterable) or isinstance(values, (str, bytes)):
                raise ValueError(
                    "values must be a list of selections or an (n, k) matrix"
                )
            rows = [self._check_selection(selected) for selected in values]
            matrix = np.zeros((len(rows), self.k), dtype=bool)
            for r, row in enumerate(rows):
                matrix[r, row] = True
        if matrix.size and matrix.sum(axis=1).max() > self.max_selections:
            raise ValueError(
                f"a row selects more than {self.max_selections} options; allowed: "
                f"at most {self.max_selections}"
            )
        return matrix

    # --- estimation -----------------------------------------------------------
    @property
    def option_support(self) -> tuple[float, float]:
        """Realised support probabilities ``(p, q)`` of an option.

        Returns
        -------
        p, q : float
            ``E[C_v/n] = q + (p − q) f_v/L``.

        Notes
        -----
        From the integer weights, not the requested ε.

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        return float(self.p_star[0]), float(self.q_star[0])

    def estimate(self, stat: SupportCounts) -> MultiSelectEstimate:  # type: ignore[override]
        """Unbiased estimates of each option's share of respondents selecting it.

        Parameters
        ----------
        stat : SupportCounts
            Output of :meth:`aggregate` for this mechanism's spec.

        Returns
        -------
        MultiSelectEstimate
            ``f̂_v``, standard errors and intervals for the k options.

        Notes
        -----
        ``f̂_v = L (C_v/n − q)/(p − q)``,
        ``SE = L sqrt(λ̂(1 − λ̂)/n)/(p − q)``; ``L = 1`` (``multi_rr``) or
        ``ℓ`` (``padding_sampling``).

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        .. [2] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014.
        """
        if stat.spec != self.spec:
            raise ValueError("support counts were made under a different spec")
        if stat.n <= 0:
            raise ValueError("cannot estimate from zero reports")
        counts = np.asarray(stat.counts[: self.k], dtype=np.int64)
        p, q = self.p_star[: self.k], self.q_star[: self.k]
        return MultiSelectEstimate(
            n=stat.n,
            estimate=multiselect.unbiased_shares(counts, stat.n, p, q, self.scale),
            standard_error=multiselect.share_standard_error(
                counts, stat.n, p, q, self.scale
            ),
            counts=counts.copy(),
            mechanism=self.name,
            epsilon=self.epsilon,
            epsilon_per_option=self.epsilon_per_option,
            scale=self.scale,
            p_star=p.copy(),
            q_star=q.copy(),
        )

    def share_variance(self, f: Any, n: int = 1) -> np.ndarray:
        """Exact variance of ``f̂_v`` at true shares ``f``.

        Parameters
        ----------
        f : array_like
            True shares in [0, 1].
        n : int, optional
            Number of reports (default 1: the per-report variance).

        Returns
        -------
        ndarray
            ``L² λ (1 − λ)/(n (p − q)²)``, ``λ = q + (p − q) f/L``.

        Notes
        -----
        ``C_v`` is exactly Binomial(n, λ_v).

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4.
        """
        p, q = self.option_support
        return multiselect.share_variance(f, n, p, q, self.scale)

    def worst_case_variance(self) -> float:
        """Per-report variance of an option's share, worst case over its share.

        Returns
        -------
        float
            ``max_{f in [0, 1]} n · Var f̂_v``.

        Notes
        -----
        ``λ(1 − λ)`` is largest where ``λ`` is closest to 1/2.

        References
        ----------
        .. [1] Deniable LDP primer, section 7.
        """
        p, q = self.option_support
        return multiselect.worst_case_share_variance(p, q, self.scale)

    def variance_at_zero(self) -> float:
        """Per-report variance of an option's share when nobody selects it.

        Returns
        -------
        float
            ``L² q (1 − q)/(p − q)²``.

        Notes
        -----
        The variance of rare options, the usual comparison point.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        """
        return float(self.share_variance(0.0))


class MultiRandomizedResponse(MultiSelectMechanism):
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
    .. [4] Deniable LDP primer, section 3 ("Multi-select").
    """

    name = "multi_rr"

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

    def _support_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
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
        For ``i = 0 … k − 1`` in order: ``v_i = uniform_below(S)``, exactly the
        spec contract, so k draws whatever the answer.

        References
        ----------
        .. [1] Erlingsson et al., CCS 2014; the spec contract.
        """
        chosen = set(self._check_selection(selected))
        draw = secure_words() if draw is None else draw
        a1, a0 = self.weights["one_if_one"], self.weights["one_if_zero"]
        s = self.weights["total"]
        return [
            int(uniform_below(s, draw) < (a1 if i in chosen else a0))
            for i in range(self.k)
        ]

    def randomize(self, values: Any, rng: np.random.Generator) -> np.ndarray:
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
        rows = max(1, _CHUNK_CELLS // self.k)
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
        .. [1] Deniable LDP primer, section 10; the spec contract.
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

    def _array_from_reports(self, reports: list[Any]) -> np.ndarray:
        return np.asarray(reports, dtype=np.uint8).reshape(-1, self.k)

    def _check_array(self, array: np.ndarray) -> np.ndarray:
        if array.ndim != 2 or array.shape[1] != self.k:
            raise ValueError(f"{self.name} reports must have shape (n, {self.k})")
        if array.size and (
            array.dtype.kind not in "iub" or array.min() < 0 or array.max() > 1
        ):
            raise ValueError(f"{self.name} reports must be bits")
        return array

    def _support_counts(self, array: np.ndarray) -> np.ndarray:
        return array.sum(axis=0, dtype=np.int64)


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
    .. [2] Deniable LDP primer, section 1 (exact ε of a finite channel).
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
    .. [3] Deniable LDP primer, section 3 ("Multi-select").
    """

    name = "padding_sampling"
    one_answer_reports = True

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
        .. [1] Deniable LDP primer, section 9.
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

    def _support_probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        s = self.row_sum
        p = np.full(self.items, self.weights["keep"] / s)
        q = np.full(self.items, self.weights["other"] / s)
        return p, q

    def _grr(self, t: np.ndarray, v: np.ndarray) -> np.ndarray:
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
        ``i + 1`` (the spec contract, word for word).

        References
        ----------
        .. [1] Wang et al., IEEE S&P 2018, section 4; the spec contract.
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

    def randomize(self, values: Any, rng: np.random.Generator) -> np.ndarray:
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
        rows = max(1, _CHUNK_CELLS // self.k)
        for start in range(0, n, rows):
            chunk = matrix[start : start + rows]
            m = chunk.shape[0]
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
        .. [1] Deniable LDP primer, section 10; the spec contract.
        """
        self._int_in("value", report, self.items)

    def _array_from_reports(self, reports: list[Any]) -> np.ndarray:
        return np.asarray(reports, dtype=np.int64).reshape(-1)

    def _check_array(self, array: np.ndarray) -> np.ndarray:
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError(f"{self.name} reports must be a 1-d integer array")
        if array.size and (array.min() < 0 or array.max() >= self.items):
            raise ValueError(f"{self.name} reports must lie in [0, {self.items})")
        return array.astype(np.int64)

    def _support_counts(self, array: np.ndarray) -> np.ndarray:
        return np.bincount(array, minlength=self.items)
