"""Report handling shared by every mechanism: validation and support counts."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.counts import SupportCounts
from ldp.spec.validation import is_int


class ReportHandling:
    """Turn validated reports into support counts.

    Mixed into :class:`ldp.mechanisms.base.Mechanism`, which provides ``name``
    and ``spec``.
    """

    name: ClassVar[str]
    one_answer_reports: ClassVar[bool] = False
    """True when a report is one answer, so the counts are a multinomial."""

    @property
    @abstractmethod
    def spec(self) -> dict[str, Any]:
        """The compiled spec that support counts are tagged with.

        Returns
        -------
        dict
            See :attr:`ldp.mechanisms.base.Mechanism.spec`.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec["mechanism"]
        'warner'
        """

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
        .. [1] docs/maths.md, section 10 (manipulation).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.validate_report(2)
        >>> grr.validate_report(3)
        Traceback (most recent call last):
        ...
        ValueError: grr report value is 3; allowed: an integer in [0, 3)
        """

    @abstractmethod
    def _array_from_reports(self, reports: list[Any]) -> AnyArray: ...

    @abstractmethod
    def _check_array(self, array: AnyArray) -> AnyArray: ...

    @abstractmethod
    def _support_counts(self, array: AnyArray) -> IntArray: ...

    def _int_in(self, what: str, value: Any, high: int) -> int:
        if not is_int(value) or not 0 <= value < high:
            raise ValueError(
                f"{self.name} report {what} is {value!r}; allowed: an integer in "
                f"[0, {high})"
            )
        return value

    def reports_to_array(self, reports: list[Any]) -> AnyArray:
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
        .. [1] docs/maths.md, section 10 (validate every report).

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.reports_to_array([0, 2, 1])
        array([0, 2, 1])
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

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> stat = grr.aggregate([0, 2, 2, 1, 2])
        >>> stat.n, stat.counts
        (5, array([1, 1, 3]))
        """
        if isinstance(reports, (list, tuple)):
            array = self.reports_to_array(list(reports))
        else:
            array = self._check_array(np.asarray(reports))
        counts = self._support_counts(array).astype(np.int64)
        return SupportCounts(int(array.shape[0]), counts, self.spec)
