"""Mechanisms whose support counts are Binomial(n, λ_v): frequency oracles.

:class:`SupportMechanism` holds what single-answer frequency oracles and the
multi-select mechanisms share (the realised support probabilities);
:class:`FrequencyOracle` adds the single-answer estimates and variances.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, FloatArray
from ldp.counts import SupportCounts
from ldp.estimators import frequency
from ldp.estimators.frequency import FrequencyEstimate
from ldp.mechanisms.about import REstimator
from ldp.mechanisms.base import Mechanism

LEVELS = REstimator(
    "estimate_levels",
    """support_levels <- function(rows, columns, k, ...) {
  y <- as.integer(rows[[columns[1]]]) - 1L
  matrix(as.numeric(outer(y, seq_len(k) - 1L, "==")), nrow = length(y))
}
estimate_levels <- function(d, column, labels, p, q, scale = 1, title = column,
                            revision_column = NA, revision = NA,
                          simplex = FALSE, multinomial = FALSE) {
  keep <- keep_rows(d, column, revision_column, revision)
  count <- as.numeric(table(d[[column]][keep]))[seq_along(labels)]
  show(title, labels, count, sum(keep), p, q, scale, simplex, multinomial)
}""",
    one_column=True,
    support="support_levels",
)
"""Shares from a report that is one answer (a factor column): its table."""


class SupportMechanism(Mechanism):
    """A mechanism whose report supports answers with known probabilities.

    Every report supports answer ``v`` with probability ``p*_v`` if ``v`` is
    the true answer (or selected) and ``q*_v`` otherwise, so
    ``C_v ~ Binomial(n, λ_v)``.

    Attributes
    ----------
    p_star, q_star : ndarray
        Realised support probabilities of the integer weights.

    Examples
    --------
    >>> import ldp
    >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    >>> warner.p_star.round(4), warner.q_star.round(4)
    (array([0.7311, 0.7311]), array([0.2689, 0.2689]))
    """

    weights: dict[str, int]
    support_words: ClassVar[str] = "reports equal to v"
    """Which reports support answer v, in words (English, for codebooks)."""
    r_estimator: ClassVar[REstimator | None] = LEVELS

    def r_arguments(self) -> dict[str, Any]:
        """``scale``: ``L`` of the shares (``ℓ`` for padding-and-sampling);
        ``simplex``: whether the shares have a consistent form;
        ``multinomial``: whether a report is one answer (its maximum-likelihood
        consistent shares are then exact, by water-filling)."""
        return {
            "scale": getattr(self, "scale", 1),
            "simplex": isinstance(self, FrequencyOracle),
            "multinomial": bool(getattr(self, "one_answer_reports", False)),
        }

    def __init__(self, params: dict[str, Any], weights: Any = None) -> None:
        super().__init__(params, weights)
        self.p_star, self.q_star = self._support_probabilities()

    @abstractmethod
    def _support_probabilities(self) -> tuple[FloatArray, FloatArray]: ...

    def support_rows(self, reports: AnyArray) -> AnyArray:
        """The 0/1 support matrix ``S[i, v]`` of validated reports.

        Parameters
        ----------
        reports : ndarray
            Reports in the layout ``randomize`` returns.

        Returns
        -------
        ndarray of bool, shape (n, k)
            ``S[i, v]``: report i supports answer (or option) v.

        Notes
        -----
        By default a report is one answer (or padding-and-sampling's item)
        and supports it: ``S[i, v] = [y_i = v]``; unary and bit reports,
        OLH and Hadamard define their own.  Column sums equal ``aggregate``'s
        counts.

        References
        ----------
        .. [1] T. Wang, J. Blocki, N. Li, S. Jha, USENIX Security 2017,
           section 3 (support).
        .. [2] docs/maths.md, section 3.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.support_rows(np.array([2, 0])).astype(int)
        array([[0, 0, 1],
               [1, 0, 0]])
        """
        values = np.arange(self.k, dtype=np.int64)
        rows: AnyArray = np.asarray(reports)[:, None] == values[None, :]
        return rows

    def support_constants(self) -> tuple[float | list[float], float | list[float]]:
        """``(p*, q*)`` as a codebook or a script writes them.

        Returns
        -------
        p, q : float or list of float
            One number each when every answer has the same, else one per
            answer (forced response with unequal forced parts).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> [round(x, 4) for x in grr.support_constants()]
        [0.5761, 0.2119]
        """
        k = self.k
        p = [float(v) for v in self.p_star[:k]]
        q = [float(v) for v in self.q_star[:k]]
        if len(set(p)) == 1 and len(set(q)) == 1:
            return p[0], q[0]
        return p, q

    def debias_note(self) -> str:
        """How to debias the reports by hand: ``f̂_v = (λ̂_v − q)/(p − q)``.

        Returns
        -------
        str
            An English sentence with ``p*``, ``q*`` (one number each, or one
            per answer when they differ) and, for multi-select, the scale.

        Notes
        -----
        ``λ̂_v`` is the share of reports supporting v (:attr:`support_words`).

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "warner", "epsilon": 1.0}).debias_note()[:48]
        'Share of answer v = (share of reports equal to v'
        """
        shown_p, shown_q = self.support_constants()
        each = not isinstance(shown_p, list)
        scale = getattr(self, "scale", 1)
        factor = f"{scale}·" if scale != 1 else ""
        return (
            f"Share of answer v = {factor}(share of {self.support_words} − q)/(p − q), "
            f"p = {shown_p!r}, q = {shown_q!r}{'' if each else ' (per answer)'} "
            "(Wang et al., USENIX Security 2017, section 4)."
        )

    @abstractmethod
    def variance_at_zero(self) -> float:
        """Per-report variance of a share whose true value is 0.

        Returns
        -------
        float
            ``n · Var f̂_v`` at ``f_v = 0``, worst case over v.

        Notes
        -----
        The variance of rare answers, the usual comparison point.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        """


class FrequencyOracle(SupportMechanism):
    """A frequency oracle for single-answer questions.

    ``λ_v = q*_v + f_v (p*_v − q*_v)`` and the answer shares sum to 1.

    Examples
    --------
    >>> import ldp
    >>> isinstance(ldp.build({"mechanism": "olh", "k": 9, "epsilon": 1.0}),
    ...            FrequencyOracle)
    True
    """

    def estimate(self, stat: SupportCounts) -> FrequencyEstimate:
        """Unbiased frequency estimates from support counts.

        Parameters
        ----------
        stat : SupportCounts
            Output of :meth:`aggregate` for this mechanism's spec.

        Returns
        -------
        FrequencyEstimate
            ``f̂_v``, standard errors, intervals and consistent estimates.

        Raises
        ------
        ValueError
            For counts of another spec, or zero reports.

        Notes
        -----
        ``f̂_v = (C_v/n − q*_v)/(p*_v − q*_v)``,
        ``SE = sqrt(λ̂(1 − λ̂)/n)/(p*_v − q*_v)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        .. [2] docs/maths.md, section 3.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 2.0})
        >>> est = grr.estimate(grr.aggregate([0, 0, 1, 2, 0, 0, 1, 0]))
        >>> est.estimate.round(3)
        array([0.762, 0.211, 0.027])
        """
        self._check_stat(stat)
        return frequency.frequency_estimate(
            stat.counts,
            stat.n,
            self.p_star,
            self.q_star,
            mechanism=self.name,
            epsilon=self.epsilon,
            multinomial=self.one_answer_reports,
        )

    def variance_at_zero(self) -> float:
        """Per-report variance of ``f̂_v`` at ``f_v = 0``, worst case over v.

        Returns
        -------
        float
            ``max_v q_v (1 − q_v)/(p_v − q_v)^2`` (``n · Var f̂_v`` at 0).

        Notes
        -----
        The criterion :func:`ldp.recommend` minimises.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        .. [2] docs/maths.md, section 3.

        Examples
        --------
        >>> import ldp
        >>> oue = ldp.build({"mechanism": "oue", "k": 8, "epsilon": 1.0})
        >>> round(oue.variance_at_zero(), 3)
        3.683
        """
        return frequency.variance_at_zero(self.p_star, self.q_star)

    def worst_case_variance(self) -> float:
        """Per-report variance of ``f̂_v``, worst case over the true share and v.

        Returns
        -------
        float
            ``max_v max_{λ in [q_v, p_v]} λ(1 − λ)/(p_v − q_v)^2``.

        Notes
        -----
        ``λ(1 − λ)`` is largest at the point of ``[q_v, p_v]`` closest to 1/2.

        References
        ----------
        .. [1] docs/maths.md, sections 2 and 7.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> round(warner.worst_case_variance(), 4)
        1.1707
        """
        return frequency.worst_case_variance(self.p_star, self.q_star)

    def manipulation_bound(self, share: float) -> float:
        """How far a ``share`` of fake respondents can move one answer's share.

        Parameters
        ----------
        share : float
            Fraction of the reports that are fake.

        Returns
        -------
        float
            ``share · max_v (1 − q_v)/(p_v − q_v)``.

        Notes
        -----
        Fakes that all support answer v raise ``C_v/n`` by up to
        ``share · (1 − q_v)``, which ``f̂_v`` scales by ``1/(p_v − q_v)``.

        References
        ----------
        .. [1] A. Cheu, A. Smith, J. Ullman, "Manipulation attacks in local
           differential privacy", IEEE S&P 2021.
        .. [2] docs/maths.md, section 10.

        Examples
        --------
        >>> import ldp
        >>> warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
        >>> round(warner.manipulation_bound(0.01), 4)
        0.0158
        """
        p, q = np.asarray(self.p_star), np.asarray(self.q_star)
        return share * float(np.max((1 - q) / (p - q)))
