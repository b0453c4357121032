"""Linear regression of a protected number on plain covariates, via its scores.

Every numeric (and ordinal) mechanism has a score ``s_y`` per report with
``E[s[Y] | x] = v_x``, the true value (docs/maths.md, section 5.6).  So
``E[s[Y_i] | z_i] = E[v_{X_i} | z_i]``: least squares of the scores on the
covariates estimates the regression of the true values without bias, and a
heteroskedasticity-robust covariance accounts for noise whose variance
depends on the true value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import FloatArray
from ldp.estimators.intervals import ConfidenceInterval, check_method
from ldp.regression.design import as_design, check_full_rank
from ldp.regression.table import CoefficientFit, RegressionTable, wald_interval

HC_TYPES = ("HC1", "HC0")
"""Sandwich covariance types :func:`score_regression` offers (first: default)."""


@dataclass(frozen=True, eq=False)
class LinearRegressionResult(CoefficientFit):
    """Least squares of per-report scores on covariates, with a sandwich covariance.

    ``coef`` is ``β̂ = (XᵀX)⁻¹Xᵀs``, in the question's value units, and
    ``covariance`` the HC0 or HC1 sandwich ``(XᵀX)⁻¹ Xᵀ diag(e²) X (XᵀX)⁻¹``
    (HC1 times ``n/(n − k)``); the other shared fields are
    :class:`ldp.regression.table.CoefficientFit`'s.

    Attributes
    ----------
    hc : str
        ``"HC1"`` or ``"HC0"``.
    bias_bound : float
        The score residual ``b = max_x |(Q s)_x − v_x|``: the most any
        report's score can be biased by (0 up to rounding for a regular
        channel).
    coef_bias_bound : ndarray
        ``b · ||row j of (XᵀX)⁻¹Xᵀ||₁``: the most each coefficient can be
        biased by; the intervals are widened by it.

    Examples
    --------
    >>> fit = score_regression([1.0, 3.0, 2.0, 6.0],
    ...                        np.column_stack([np.ones(4), [0, 1, 0, 1]]))
    >>> fit.coef
    array([1.5, 3. ])
    """

    hc: str
    bias_bound: float = 0.0
    coef_bias_bound: FloatArray | None = None

    @property
    def df_resid(self) -> int:
        """Residual degrees of freedom ``n − k``.

        Returns
        -------
        int
            Reports minus coefficients.

        See Also
        --------
        LinearRegressionResult.confidence_interval : Uses it for ``"t"``.

        Examples
        --------
        >>> fit = score_regression([1.0, 3.0, 2.0, 6.0],
        ...                        np.column_stack([np.ones(4), [0, 1, 0, 1]]))
        >>> fit.df_resid
        2
        """
        return self.n - len(self.names)

    def confidence_interval(
        self, level: float = 0.95, method: str = "normal"
    ) -> ConfidenceInterval[FloatArray]:
        """Wald intervals ``β̂_j ± q SE_j`` widened by the bias bound.

        Parameters
        ----------
        level : float, optional
            Confidence level ``1 − α``.
        method : {"normal", "t"}, optional
            Normal quantile (default; the sandwich is asymptotic) or Student t
            with ``n − k`` degrees of freedom.

        Returns
        -------
        ConfidenceInterval
            ``low`` and ``high`` arrays.

        Raises
        ------
        ValueError
            For a level outside (0, 1) or an unknown method.

        Notes
        -----
        A bias bound ``b`` on the fitted values bounds the bias of each
        coefficient by ``b · ||row j of (XᵀX)⁻¹Xᵀ||₁``; the interval adds it.

        References
        ----------
        .. [1] H. White, "A heteroskedasticity-consistent covariance matrix
           estimator and a direct test for heteroskedasticity",
           Econometrica 48(4), 1980.

        Examples
        --------
        >>> fit = score_regression([1.0, 3.0, 2.0, 6.0],
        ...                        np.column_stack([np.ones(4), [0, 1, 0, 1]]))
        >>> fit.confidence_interval(0.95).low.round(3)
        array([ 0.52 , -0.099])
        """
        check_method(method, ("normal", "t"))
        interval = wald_interval(
            self.coef,
            self.standard_error,
            level,
            method,
            df=self.df_resid if method == "t" else None,
        )
        if self.coef_bias_bound is None:
            return interval
        return ConfidenceInterval(
            interval.low - self.coef_bias_bound, interval.high + self.coef_bias_bound
        )

    def summary(self, level: float = 0.95) -> RegressionTable:
        """The coefficient table with robust z tests and intervals.

        Parameters
        ----------
        level : float, optional
            Confidence level of the intervals.

        Returns
        -------
        RegressionTable
            Columns ``term``, ``estimate``, ``std_error``, ``statistic`` (z),
            ``p_value``, ``ci_low``, ``ci_high``.

        Raises
        ------
        ValueError
            For a level outside (0, 1).

        Notes
        -----
        ``z_j = β̂_j/SE_j`` with the sandwich SE; normal p-values.

        References
        ----------
        .. [1] White, Econometrica 48(4), 1980.

        Examples
        --------
        >>> fit = score_regression([1.0, 3.0, 2.0, 6.0],
        ...                        np.column_stack([np.ones(4), [0, 1, 0, 1]]))
        >>> fit.summary().column("estimate")
        [1.5, 3.0]
        """
        return self.coefficient_table(level)

    def to_dict(self, level: float = 0.95) -> dict[str, Any]:
        """Return a JSON-able dict of the table and the fit's settings.

        Parameters
        ----------
        level : float, optional
            Confidence level of the table's intervals.

        Returns
        -------
        dict
            ``model``, ``mechanism``, ``n``, ``hc``, ``level``,
            ``coefficients`` (the :meth:`summary` rows), ``bias_bound``.

        Notes
        -----
        Plain Python numbers only.

        References
        ----------
        .. [1] docs/maths.md, section 6.5.

        Examples
        --------
        >>> fit = score_regression([1.0, 3.0, 2.0, 6.0],
        ...                        np.column_stack([np.ones(4), [0, 1, 0, 1]]))
        >>> fit.to_dict()["hc"]
        'HC1'
        """
        return {
            "model": "linear regression on unbiased scores",
            "mechanism": self.mechanism,
            "n": self.n,
            "hc": self.hc,
            "level": level,
            "coefficients": self.summary(level).to_records(),
            "bias_bound": self.bias_bound,
        }


def _scores(reports: Any, mechanism: Any, n: int) -> tuple[FloatArray, str, float]:
    if mechanism is None:
        scores = np.asarray(reports, dtype=float)
        if scores.ndim != 1 or scores.size != n:
            raise ValueError(
                f"scores must be one number per design row ({n}), got shape "
                f"{scores.shape}"
            )
        if not np.all(np.isfinite(scores)):
            raise ValueError("scores must be finite numbers")
        return scores, "given", 0.0
    if not hasattr(mechanism, "scores"):
        raise ValueError(
            f"the outcome's mechanism is {getattr(mechanism, 'name', mechanism)!r}; "
            "allowed: a numeric or ordinal mechanism (one with per-report scores)"
        )
    array = np.asarray(reports)
    if array.ndim != 1 or array.size != n:
        raise ValueError(
            f"reports must be one per design row ({n}), got shape {array.shape}"
        )
    if array.size and (
        array.dtype.kind not in "iu"
        or array.min() < 0
        or array.max() >= mechanism.outputs
    ):
        raise ValueError(
            f"{mechanism.name} reports must be integers in [0, {mechanism.outputs})"
        )
    table = mechanism.scores()
    return (
        table[array.astype(np.int64)],
        str(mechanism.name),
        float(mechanism.score_bias),
    )


def score_regression(
    reports: Any,
    design: Any,
    mechanism: Any = None,
    *,
    hc: str = "HC1",
    names: Any = None,
) -> LinearRegressionResult:
    """Regress a protected number on covariates through its unbiased scores.

    Parameters
    ----------
    reports : array_like, shape (n,)
        The reports of a numeric or ordinal mechanism (integers in
        ``[0, outputs)``); or, with no mechanism, the per-report scores.
    design : DesignMatrix or array_like, shape (n, k)
        Plain covariates; include a constant column for an intercept
        (:func:`ldp.design_matrix` does).
    mechanism : Mechanism, optional
        The compiled mechanism whose ``scores()`` turn reports into unbiased
        per-report values.
    hc : {"HC1", "HC0"}, optional
        Sandwich type; HC1 scales HC0 by ``n/(n − k)``.
    names : sequence of str, optional
        Column names for a bare array.

    Returns
    -------
    LinearRegressionResult
        Coefficients in value units, sandwich standard errors, intervals.

    Raises
    ------
    ValueError
        For reports outside the mechanism's outputs, a length mismatch, a
        rank-deficient design (naming the redundant columns), an unknown
        ``hc``, or a mechanism without scores.

    Notes
    -----
    With ``s_i = s[y_i]``, ``E[s_i | z_i] = E[v_{X_i} | z_i]``, so under the
    linear model ``E[v_X | z] = zᵀβ`` the least-squares
    ``β̂ = (ZᵀZ)⁻¹Zᵀs`` is unbiased.  ``Var(s_i | z_i)`` mixes the spread of
    the true values and the mechanism's noise, which depends on the true
    value, so the errors are heteroskedastic by construction; the covariance
    is White's sandwich ``(ZᵀZ)⁻¹ Zᵀ diag(e_i²) Z (ZᵀZ)⁻¹`` with residuals
    ``e = s − Zβ̂`` (HC0), times ``n/(n − k)`` for HC1.

    References
    ----------
    .. [1] H. White, "A heteroskedasticity-consistent covariance matrix
       estimator and a direct test for heteroskedasticity",
       Econometrica 48(4), 817–838, 1980.
    .. [2] J. G. MacKinnon, H. White, "Some heteroskedasticity-consistent
       covariance matrix estimators with improved finite sample properties",
       Journal of Econometrics 29(3), 305–325, 1985 (HC1).
    .. [3] J. C. Duchi, M. I. Jordan, M. J. Wainwright, JASA 113(521), 2018
       (unbiased per-report values).
    .. [4] docs/maths.md, sections 5.6 and 6.5.

    Examples
    --------
    >>> import ldp
    >>> hours = ldp.build({"mechanism": "duchi", "low": "0", "high": "40",
    ...                    "step": "1", "epsilon": 2.0})
    >>> rng = np.random.default_rng(5)
    >>> group = rng.integers(0, 2, 6000)
    >>> truth = np.clip(np.round(rng.normal(15 + 10 * group, 5)), 0, 40)
    >>> reports = hours.randomize(truth.astype(int), rng)
    >>> design = ldp.design_matrix({"group": group}, numeric=["group"])
    >>> fit = score_regression(reports, design, hours)
    >>> fit.coef.round(0)
    array([16., 10.])
    """
    matrix = as_design(design, names)
    x = matrix.matrix
    n, k = x.shape
    if hc not in HC_TYPES:
        raise ValueError(f"hc is {hc!r}; allowed: {list(HC_TYPES)}")
    s, name, bias = _scores(reports, mechanism, n)
    check_full_rank(matrix)
    if n <= k:
        raise ValueError(f"{n} reports for {k} coefficients; more reports are needed")
    bread = np.linalg.inv(x.T @ x)
    coef = bread @ (x.T @ s)
    resid = s - x @ coef
    meat = x.T @ ((resid * resid)[:, None] * x)
    covariance = bread @ meat @ bread
    if hc == "HC1":
        covariance = covariance * (n / (n - k))
    covariance = (covariance + covariance.T) / 2
    return LinearRegressionResult(
        names=matrix.names,
        coef=coef,
        standard_error=np.sqrt(np.diag(covariance)),
        covariance=covariance,
        n=n,
        hc=hc,
        mechanism=name,
        bias_bound=bias,
        coef_bias_bound=bias * np.abs(bread @ x.T).sum(axis=1) if bias > 0 else None,
    )
