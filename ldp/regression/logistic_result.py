"""The result of a logistic regression through a randomized outcome's channel.

:class:`LogisticRegressionResult` carries ``β̂`` and its observed-information
covariance as :func:`ldp.regression.logistic.logistic_regression` fitted them,
and derives the Wald intervals, odds ratios, likelihood-ratio test
(:class:`LikelihoodRatioTest`) and predictions from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

from ldp.arrays import FloatArray
from ldp.regression.design import as_design
from ldp.regression.table import (
    COEFFICIENT_COLUMNS,
    CoefficientFit,
    RegressionTable,
)


@dataclass(frozen=True)
class LikelihoodRatioTest:
    """A likelihood-ratio test of nested models.

    Attributes
    ----------
    statistic : float
        ``2 (ℓ_full − ℓ_null)``.
    df : int
        Number of parameters the null model drops.
    pvalue : float
        ``P(χ²_df >= statistic)``.

    Examples
    --------
    >>> LikelihoodRatioTest(statistic=3.84, df=1, pvalue=0.05).df
    1
    """

    statistic: float
    df: int
    pvalue: float


@dataclass(frozen=True, eq=False)
class LogisticRegressionResult(CoefficientFit):
    """A logistic regression fitted through a randomized outcome's channel.

    ``coef`` is the maximum-likelihood ``β̂`` on the log-odds scale of the true
    answer and ``covariance`` is ``I(β̂)⁻¹``, ``I`` the observed information;
    the other shared fields are :class:`ldp.regression.table.CoefficientFit`'s
    (``mechanism`` is ``"given"`` when p and q were given).

    Attributes
    ----------
    loglik : float
        Maximised log-likelihood ``ℓ(β̂)``.
    null_loglik : float
        Maximised log-likelihood of the intercept-only model.
    p, q : float
        ``P(report 1 | true 1)``, ``P(report 1 | true 0)`` of the mechanism.
    has_intercept : bool
        True when the design has a constant column (the LR test needs one).
    iterations : int
        Trust-region iterations used.
    gradient_norm : float
        ``max_j |∂ℓ/∂β_j| / n`` at ``β̂`` (convergence diagnostic).
    min_information_eigenvalue : float
        Smallest eigenvalue of ``I(β̂)/n`` (positive: a strict local maximum).

    Examples
    --------
    >>> from ldp.regression import logistic_regression
    >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
    >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
    ...                           p=0.8, q=0.2, names=["(Intercept)", "g"])
    >>> fit.coef.round(4) + 0.0
    array([0.    , 2.3979])
    >>> round(fit.odds_ratios().column("odds_ratio")[1], 6)
    11.0
    """

    loglik: float
    null_loglik: float
    p: float
    q: float
    has_intercept: bool
    iterations: int
    gradient_norm: float
    min_information_eigenvalue: float

    def odds_ratios(self, level: float = 0.95) -> RegressionTable:
        """Return the odds ratios ``exp(β̂_j)`` with ``exp`` of the Wald bounds.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.

        Returns
        -------
        RegressionTable
            Columns ``term``, ``odds_ratio``, ``ci_low``, ``ci_high``.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        The interval is transformed, not recomputed: ``exp`` is increasing, so
        it keeps the coverage of the log-odds interval.

        References
        ----------
        .. [1] A. Agresti, "Categorical Data Analysis", 3rd ed., 2013,
           section 5.2.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> round(fit.odds_ratios().column("odds_ratio")[1], 3)
        11.0
        """
        interval = self.confidence_interval(level)
        return RegressionTable(
            ("term", "odds_ratio", "ci_low", "ci_high"),
            tuple(
                (
                    self.names[j],
                    float(np.exp(self.coef[j])),
                    float(np.exp(interval.low[j])),
                    float(np.exp(interval.high[j])),
                )
                for j in range(len(self.names))
            ),
        )

    def likelihood_ratio_test(self) -> LikelihoodRatioTest | None:
        """Test every coefficient but the intercept against zero.

        Returns
        -------
        LikelihoodRatioTest or None
            ``2(ℓ(β̂) − ℓ_0)`` against ``χ²`` with ``k − 1`` degrees of
            freedom; None when the design has no constant column or only
            that column.

        Notes
        -----
        The intercept-only maximum is closed-form: ``λ̂ = ȳ`` clipped to the
        reachable interval between q and p.

        References
        ----------
        .. [1] S. S. Wilks, "The large-sample distribution of the likelihood
           ratio for testing composite hypotheses", Ann. Math. Statist. 9(1),
           1938.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> fit.likelihood_ratio_test().df
        1
        """
        df = len(self.names) - 1
        if not self.has_intercept or df < 1:
            return None
        statistic = max(2 * (self.loglik - self.null_loglik), 0.0)
        return LikelihoodRatioTest(
            statistic=statistic, df=df, pvalue=float(stats.chi2.sf(statistic, df))
        )

    def predict(self, design: Any) -> FloatArray:
        """Probability that the true answer is "yes" for each row of ``design``.

        Parameters
        ----------
        design : DesignMatrix or array_like, shape (m, k)
            Covariates with the columns of the fit.

        Returns
        -------
        ndarray
            ``σ(x_jᵀβ̂)``.

        Raises
        ------
        ValueError
            For a design with another number of columns.

        Notes
        -----
        The true-answer probability, not the report probability
        ``q + (p − q) σ``.

        References
        ----------
        .. [1] docs/maths.md, section 6.4.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> fit.predict([[1, 0], [1, 1]]).round(3)
        array([0.5  , 0.917])
        """
        x = as_design(design).matrix
        if x.shape[1] != len(self.names):
            raise ValueError(
                f"design has {x.shape[1]} columns; the fit has {len(self.names)}"
            )
        result: FloatArray = special.expit(x @ self.coef)
        return result

    def summary(self, level: float = 0.95) -> RegressionTable:
        """The coefficient table with z tests, intervals and odds ratios.

        Parameters
        ----------
        level : float, optional
            Confidence level of the intervals.

        Returns
        -------
        RegressionTable
            Columns ``term``, ``estimate``, ``std_error``, ``statistic`` (z),
            ``p_value``, ``ci_low``, ``ci_high``, ``odds_ratio``,
            ``or_low``, ``or_high``.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        ``z_j = β̂_j/SE_j``, two-sided p-value from the normal law.

        References
        ----------
        .. [1] Blair, Imai and Zhou, JASA 110(511), 2015.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> fit.summary().columns[:3]
        ('term', 'estimate', 'std_error')
        """
        rows = self.coefficient_table(level).rows
        ratios = self.odds_ratios(level).rows
        return RegressionTable(
            (*COEFFICIENT_COLUMNS, "odds_ratio", "or_low", "or_high"),
            tuple((*row, *ratio[1:]) for row, ratio in zip(rows, ratios, strict=True)),
        )

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Return a JSON-able dict: the table, the fit statistics, the channel.

        Parameters
        ----------
        level : float, optional
            Confidence level of the table's intervals.

        Returns
        -------
        dict
            ``model``, ``mechanism``, ``p``, ``q``, ``n``, ``level``,
            ``coefficients`` (the :meth:`summary` rows), ``loglik``,
            ``null_loglik``, ``lr_test`` and the convergence diagnostics.

        Notes
        -----
        Plain Python numbers only.

        References
        ----------
        .. [1] docs/maths.md, section 6.4.

        Examples
        --------
        >>> from ldp.regression import logistic_regression
        >>> design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
        >>> fit = logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design,
        ...                           p=0.8, q=0.2)
        >>> fit.to_dict()["model"]
        'randomized-response logistic regression'
        """
        test = self.likelihood_ratio_test()
        return {
            "model": "randomized-response logistic regression",
            "mechanism": self.mechanism,
            "p": self.p,
            "q": self.q,
            "n": self.n,
            "level": level,
            "coefficients": self.summary(level).to_records(),
            "loglik": self.loglik,
            "null_loglik": self.null_loglik,
            "lr_test": None
            if test is None
            else {"statistic": test.statistic, "df": test.df, "pvalue": test.pvalue},
            "iterations": self.iterations,
            "gradient_norm": self.gradient_norm,
            "min_information_eigenvalue": self.min_information_eigenvalue,
        }
