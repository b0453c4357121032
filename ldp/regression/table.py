"""Coefficient tables shared by the regression results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from ldp.arrays import FloatArray
from ldp.estimators.intervals import ConfidenceInterval, check_level, critical_value


@dataclass(frozen=True)
class RegressionTable:
    """A table: column names and one row per coefficient.

    Attributes
    ----------
    columns : tuple of str
        Column names; the first is ``"term"``.
    rows : tuple of tuple
        One row per coefficient, values in the order of ``columns``.

    Examples
    --------
    >>> table = RegressionTable(("term", "estimate"), (("a", 1.5),))
    >>> table.to_records()
    [{'term': 'a', 'estimate': 1.5}]
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def to_records(self) -> list[dict[str, Any]]:
        """Return the rows as a list of dicts keyed by column name.

        Returns
        -------
        list of dict
            One dict per row (JSON-able: plain str and float).

        See Also
        --------
        RegressionTable.column : One column as a list.

        Examples
        --------
        >>> RegressionTable(("term", "z"), (("a", 2.0), ("b", -1.0))).to_records()
        [{'term': 'a', 'z': 2.0}, {'term': 'b', 'z': -1.0}]
        """
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def column(self, name: str) -> list[Any]:
        """Return one column's values, top to bottom.

        Parameters
        ----------
        name : str
            A name in :attr:`columns`.

        Returns
        -------
        list
            The values of that column.

        Raises
        ------
        KeyError
            For a name not in :attr:`columns`.

        See Also
        --------
        RegressionTable.to_records : The rows as dicts.

        Examples
        --------
        >>> RegressionTable(("term", "z"), (("a", 2.0), ("b", -1.0))).column("z")
        [2.0, -1.0]
        """
        if name not in self.columns:
            raise KeyError(f"column {name!r} not in {list(self.columns)}")
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def __str__(self) -> str:
        def cell(value: Any) -> str:
            return f"{value:.4g}" if isinstance(value, float) else str(value)

        text = [list(self.columns)] + [[cell(v) for v in row] for row in self.rows]
        widths = [max(len(line[j]) for line in text) for j in range(len(self.columns))]
        return "\n".join(
            "  ".join(
                value.rjust(width) for value, width in zip(line, widths, strict=True)
            )
            for line in text
        )


def wald_interval(
    coef: FloatArray,
    standard_error: FloatArray,
    level: float,
    method: str = "normal",
    df: int | None = None,
) -> ConfidenceInterval[FloatArray]:
    """Wald intervals ``β̂_j ± q · SE_j`` for every coefficient.

    Parameters
    ----------
    coef, standard_error : ndarray
        Estimates and standard errors.
    level : float
        Confidence level ``1 − α``.
    method : {"normal", "t"}, optional
        The quantile ``q``: standard normal, or Student t with ``df``.
    df : int, optional
        Degrees of freedom for ``"t"``.

    Returns
    -------
    ConfidenceInterval
        ``low`` and ``high`` arrays.

    Notes
    -----
    ``q = z_{1−α/2}`` (or ``t_{df, 1−α/2}``); asymptotically exact for
    maximum-likelihood and sandwich estimators.

    References
    ----------
    .. [1] A. Wald, "Tests of statistical hypotheses concerning several
       parameters when the number of observations is large", Trans. AMS 54,
       1943.

    Examples
    --------
    >>> ci = wald_interval(np.array([1.0]), np.array([0.5]), 0.95)
    >>> ci.low.round(3), ci.high.round(3)
    (array([0.02]), array([1.98]))
    """
    q = critical_value(level, method, df=df)
    return ConfidenceInterval(coef - q * standard_error, coef + q * standard_error)


def coefficient_rows(
    names: tuple[str, ...],
    coef: FloatArray,
    standard_error: FloatArray,
    interval: ConfidenceInterval[FloatArray],
    df: int | None = None,
) -> tuple[tuple[Any, ...], ...]:
    """Rows ``(term, estimate, std_error, statistic, p_value, ci_low, ci_high)``.

    Parameters
    ----------
    names : tuple of str
        Coefficient names.
    coef, standard_error : ndarray
        Estimates and standard errors.
    interval : ConfidenceInterval
        The intervals to show.
    df : int, optional
        Degrees of freedom of a t test; ``None``: normal (z) test.

    Returns
    -------
    tuple of tuple
        One row per coefficient, plain Python floats.

    Notes
    -----
    Statistic ``β̂_j/SE_j``; two-sided p-value ``2 (1 − F(|statistic|))`` with
    ``F`` the normal or t distribution function.

    References
    ----------
    .. [1] Wald 1943 (see :func:`wald_interval`).

    Examples
    --------
    >>> ci = wald_interval(np.array([1.0]), np.array([0.5]), 0.95)
    >>> row = coefficient_rows(("a",), np.array([1.0]), np.array([0.5]), ci)[0]
    >>> row[0], row[3], round(row[4], 4)
    ('a', 2.0, 0.0455)
    """
    statistic = coef / standard_error
    if df is None:
        p_value = 2 * stats.norm.sf(np.abs(statistic))
    else:
        p_value = 2 * stats.t.sf(np.abs(statistic), df)
    return tuple(
        (
            names[j],
            float(coef[j]),
            float(standard_error[j]),
            float(statistic[j]),
            float(p_value[j]),
            float(interval.low[j]),
            float(interval.high[j]),
        )
        for j in range(len(names))
    )


COEFFICIENT_COLUMNS = (
    "term",
    "estimate",
    "std_error",
    "statistic",
    "p_value",
    "ci_low",
    "ci_high",
)
"""Columns of every regression result's ``summary()``."""


@dataclass(frozen=True, eq=False)
class CoefficientFit:
    """What every regression result holds, and its coefficient table.

    The linear (:class:`ldp.regression.linear.LinearRegressionResult`) and
    logistic (:class:`ldp.regression.logistic_result.LogisticRegressionResult`)
    results add their own statistics and intervals to these.

    Attributes
    ----------
    names : tuple of str
        Coefficient names (design columns).
    coef : ndarray
        The estimates ``β̂``.
    standard_error : ndarray
        Square roots of the diagonal of :attr:`covariance`.
    covariance : ndarray
        The estimated covariance of ``β̂``.
    n : int
        Number of reports.
    mechanism : str
        The outcome's mechanism (``"given"`` for bare scores or rates).

    Examples
    --------
    >>> fit = CoefficientFit(("a",), np.array([1.0]), np.array([0.5]),
    ...                      np.array([[0.25]]), 10, "given")
    >>> fit.coefficient_table(0.95).column("statistic")
    [2.0]
    """

    names: tuple[str, ...]
    coef: FloatArray
    standard_error: FloatArray
    covariance: FloatArray
    n: int
    mechanism: str

    def confidence_interval(
        self, level: float = 0.95
    ) -> ConfidenceInterval[FloatArray]:
        """Wald intervals ``β̂_j ± z_{1−α/2} SE_j``.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays, one entry per coefficient.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        Maximum-likelihood and sandwich estimators are asymptotically normal
        with the covariance the fit holds (:func:`wald_interval`).

        References
        ----------
        .. [1] Blair, Imai and Zhou, JASA 110(511), 2015, section 3.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> fit.confidence_interval(0.95).low.round(2)
        array([-3.27, -7.42])
        """
        return wald_interval(self.coef, self.standard_error, level)

    def coefficient_table(self, level: float) -> RegressionTable:
        """Return the coefficient table: z tests and this fit's intervals.

        Parameters
        ----------
        level : float
            Confidence level of the intervals.

        Returns
        -------
        RegressionTable
            The ``COEFFICIENT_COLUMNS``: ``term``, ``estimate``,
            ``std_error``, ``statistic`` (z), ``p_value``, ``ci_low``,
            ``ci_high``.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        ``z_j = β̂_j/SE_j`` with normal p-values (:func:`coefficient_rows`);
        the intervals are the fit's own :meth:`confidence_interval`.

        References
        ----------
        .. [1] Wald 1943 (see :func:`wald_interval`).

        Examples
        --------
        >>> fit = CoefficientFit(("a",), np.array([1.0]), np.array([0.5]),
        ...                      np.array([[0.25]]), 10, "given")
        >>> fit.coefficient_table(0.95).columns[:2]
        ('term', 'estimate')
        """
        check_level(level)
        return RegressionTable(
            COEFFICIENT_COLUMNS,
            coefficient_rows(
                self.names,
                self.coef,
                self.standard_error,
                self.confidence_interval(level),
            ),
        )
