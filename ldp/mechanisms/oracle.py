"""Mechanisms whose support counts are Binomial(n, λ_v): frequency oracles.

:class:`SupportMechanism` holds what single-answer frequency oracles and the
multi-select mechanisms share (the realised support probabilities);
:class:`FrequencyOracle` adds the single-answer estimates and variances.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np

from ldp.arrays import FloatArray
from ldp.counts import SupportCounts
from ldp.estimators import frequency
from ldp.estimators.frequency import FrequencyEstimate
from ldp.mechanisms.base import Mechanism


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

    def __init__(self, params: dict[str, Any], weights: Any = None) -> None:
        super().__init__(params, weights)
        self.p_star, self.q_star = self._support_probabilities()

    @abstractmethod
    def _support_probabilities(self) -> tuple[FloatArray, FloatArray]: ...

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
