"""Report handling shared by every mechanism: validation, counts, estimates."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.estimators import frequency
from ldp.results import FrequencyEstimate, SupportCounts
from ldp.spec.validation import is_int


class ReportHandling:
    """Turn validated reports into support counts and frequency estimates.

    Mixed into :class:`ldp.mechanisms.base.Mechanism`, which provides ``name``,
    ``k``, ``spec``, ``epsilon``, ``p_star`` and ``q_star``.
    """

    name: ClassVar[str]
    one_answer_reports: ClassVar[bool] = False
    """True when a report is one answer, so the counts are a multinomial."""
    k: int
    p_star: np.ndarray
    q_star: np.ndarray
    spec: Any
    epsilon: Any

    @abstractmethod
    def validate_report(self, report: Any) -> None:
        """Raise ValueError unless ``report`` is a possible output (JSON form).

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
        Only possible outputs of the randomizer are accepted, which limits what
        a fake respondent can inject.

        References
        ----------
        .. [1] Deniable LDP primer, section 10 (manipulation).
        """

    @abstractmethod
    def _array_from_reports(self, reports: list[Any]) -> np.ndarray: ...

    @abstractmethod
    def _check_array(self, array: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def _support_counts(self, array: np.ndarray) -> np.ndarray: ...

    def _int_in(self, what: str, value: Any, high: int) -> int:
        if not is_int(value) or not 0 <= value < high:
            raise ValueError(
                f"{self.name} report {what} is {value!r}; allowed: an integer in "
                f"[0, {high})"
            )
        return value

    def reports_to_array(self, reports: list[Any]) -> np.ndarray:
        """Validate JSON reports and stack them into the array form of ``randomize``.

        Parameters
        ----------
        reports : list
            JSON reports as received.

        Returns
        -------
        ndarray
            The same layout ``randomize`` returns.

        Notes
        -----
        Each report is checked by :meth:`validate_report`; one bad report
        rejects the batch.

        References
        ----------
        .. [1] Deniable LDP primer, section 10 (validate every report).
        """
        if not isinstance(reports, (list, tuple)):
            raise ValueError(f"reports must be a list, got {type(reports).__name__}")
        for report in reports:
            self.validate_report(report)
        return self._array_from_reports(list(reports))

    def aggregate(self, reports: Any) -> SupportCounts:
        """Count, for every answer v, the reports that support v.

        Parameters
        ----------
        reports : ndarray or list
            Output of ``randomize`` or a list of JSON reports.

        Returns
        -------
        SupportCounts
            ``n`` and ``C_v``; aggregates of disjoint batches add up.

        Notes
        -----
        ``C_v = Σ_i 1[report i supports v] ~ Binomial(n, λ_v)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 3 (pure protocols).
        """
        if isinstance(reports, (list, tuple)):
            array = self.reports_to_array(list(reports))
        else:
            array = self._check_array(np.asarray(reports))
        counts = self._support_counts(array).astype(np.int64)
        return SupportCounts(int(array.shape[0]), counts, self.spec)

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

        Notes
        -----
        ``f̂_v = (C_v/n − q*_v)/(p*_v − q*_v)``,
        ``SE = sqrt(λ̂(1 − λ̂)/n)/(p*_v − q*_v)``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 4.
        .. [2] Deniable LDP primer, section 3.
        """
        if stat.spec != self.spec:
            raise ValueError("support counts were made under a different spec")
        if stat.n <= 0:
            raise ValueError("cannot estimate from zero reports")
        return FrequencyEstimate(
            n=stat.n,
            estimate=frequency.unbiased(stat.counts, stat.n, self.p_star, self.q_star),
            standard_error=frequency.standard_error(
                stat.counts, stat.n, self.p_star, self.q_star
            ),
            counts=stat.counts.copy(),
            mechanism=self.name,
            epsilon=self.epsilon,
            p_star=self.p_star,
            q_star=self.q_star,
            multinomial=self.one_answer_reports,
        )
