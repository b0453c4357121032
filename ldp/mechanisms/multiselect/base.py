"""Multi-select (checkbox) questions: answers, estimates and variances.

An answer is a set of distinct option indices in ``[0, k)``, written as a list
(``[]`` when nothing is selected).  The estimate is, per option, the share of
respondents who selected it; shares need not sum to 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import numpy as np

from ldp.arrays import AnyArray
from ldp.counts import SupportCounts
from ldp.estimators import multiselect
from ldp.estimators.multiselect import MultiSelectEstimate
from ldp.exact import round_up_float
from ldp.mechanisms.about import MULTI_SELECT
from ldp.mechanisms.oracle import SupportMechanism
from ldp.spec.validation import is_int

CHUNK_CELLS = 2**22
"""Cells of the selection matrix randomized per numpy call (bounds memory)."""


class MultiSelectMechanism(SupportMechanism):
    """Common handling of multi-select answers, estimates and variances.

    Subclasses set ``scale`` (``L``) and ``max_selections`` and provide the
    option support probabilities ``p``, ``q`` with
    ``E[C_v/n] = q + (p − q) f_v/L``.
    """

    scale: int = 1
    kinds = (MULTI_SELECT,)

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
        .. [1] docs/maths.md, section 3 (multi-select).
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
        .. [1] docs/maths.md, section 1.
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

    def selection_matrix(self, values: Any) -> AnyArray:
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

    def estimate(self, stat: SupportCounts) -> MultiSelectEstimate:
        """Unbiased estimates of each option's share of respondents selecting it.

        Parameters
        ----------
        stat : SupportCounts
            Output of :meth:`aggregate` for this mechanism's spec.

        Returns
        -------
        MultiSelectEstimate
            ``f̂_v``, standard errors and intervals for the k options.

        Raises
        ------
        ValueError
            For counts of another spec, or zero reports.

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
        self._check_stat(stat)
        counts = np.asarray(stat.counts[: self.k], dtype=np.int64)
        return multiselect.multiselect_estimate(
            counts,
            stat.n,
            self.p_star[: self.k],
            self.q_star[: self.k],
            scale=self.scale,
            mechanism=self.name,
            epsilon=self.epsilon,
            epsilon_per_option=self.epsilon_per_option,
        )

    def share_variance(self, f: Any, n: int = 1) -> AnyArray:
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
        .. [1] docs/maths.md, section 7.
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

    def manipulation_bound(self, share: float) -> float:
        """How far a ``share`` of fake respondents can move one option's share.

        Parameters
        ----------
        share : float
            Fraction of the reports that are fake.

        Returns
        -------
        float
            ``share · L · max_v (1 − q_v)/(p_v − q_v)``.

        Notes
        -----
        As for a frequency oracle, scaled by ``L`` (``ℓ`` for
        padding-and-sampling, whose shares are ``ℓ`` times the GRR's).

        References
        ----------
        .. [1] A. Cheu, A. Smith, J. Ullman, "Manipulation attacks in local
           differential privacy", IEEE S&P 2021.
        .. [2] docs/maths.md, section 10.

        Examples
        --------
        >>> import ldp
        >>> m = ldp.build({"mechanism": "padding_sampling", "k": 5, "ell": 2,
        ...                "epsilon": 1.0})
        >>> round(m.manipulation_bound(0.01), 4)
        0.0549
        """
        p, q = np.asarray(self.p_star), np.asarray(self.q_star)
        return share * float(self.scale) * float(np.max((1 - q) / (p - q)))
