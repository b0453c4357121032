"""Logistic regression of a randomized yes/no report on plain covariates.

The report of respondent i is 1 with probability
``λ_i = q + (p − q) · σ(x_iᵀβ)``, where ``p = P(report 1 | true 1)`` and
``q = P(report 1 | true 0)`` are the mechanism's known channel and σ the
logistic function.  β is fitted by maximum likelihood through that channel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg, optimize, special

from ldp.arrays import FloatArray
from ldp.mechanisms.about import LOGISTIC
from ldp.regression.design import as_design, check_full_rank
from ldp.regression.logistic_result import LogisticRegressionResult

LINEAR_PREDICTOR_MAX = 25.0
"""A fitted ``|xᵀβ|`` above this puts σ within ``1.4·10⁻¹¹`` of 0 or 1: the
likelihood keeps rising toward infinity and the fit is refused."""

RELATIVE_INFORMATION_MIN = 1e-6
"""Below this, the information in some direction of β is a millionth of what
the same design carries at σ = 1/2: a fit drifting to a boundary (σ = 0 or 1),
refused as not identifiable."""

ITERATIONS_MAX = 200
"""Most trust-region iterations :func:`logistic_regression` allows."""


class NotIdentifiable(ValueError):
    """The model's coefficients cannot be recovered from these reports.

    Examples
    --------
    >>> import numpy as np
    >>> logistic_regression([0, 1], np.ones((2, 1)), p=0.5, q=0.5)
    Traceback (most recent call last):
    ...
    ldp.regression.logistic.NotIdentifiable: p = q = 0.5: ...
    """


class ConvergenceError(RuntimeError):
    """The maximisation stopped without meeting its convergence criterion.

    Examples
    --------
    >>> issubclass(ConvergenceError, RuntimeError)
    True
    """


def channel_of(mechanism: Any) -> tuple[float, float]:
    """``(p, q) = (P(report 1 | true 1), P(report 1 | true 0))`` of a binary mechanism.

    Parameters
    ----------
    mechanism : Mechanism
        A compiled forced-response or Warner mechanism (the unrelated-question
        design is a forced-response spec).

    Returns
    -------
    tuple of float
        The realised probabilities of the integer weights.

    Raises
    ------
    ValueError
        For a mechanism that is not binary.

    Notes
    -----
    Forced response ``(T, A, B)`` over ``S``: ``p = (T + A)/S``, ``q = A/S``;
    Warner: ``p = P/S``, ``q = F/S``.

    References
    ----------
    .. [1] docs/maths.md, section 2.

    Examples
    --------
    >>> import ldp
    >>> coin = ldp.build({"mechanism": "forced_response", "design": {
    ...     "truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}})
    >>> channel_of(coin)
    (0.75, 0.25)
    """
    if getattr(mechanism, "regression", None) != LOGISTIC:
        raise ValueError(
            f"the outcome's mechanism is {getattr(mechanism, 'name', mechanism)!r}; "
            "allowed: a binary mechanism (a yes/no answer)"
        )
    return float(mechanism.p_star[1]), float(mechanism.q_star[1])


def _parts(
    beta: FloatArray, x: FloatArray, y: FloatArray, p: float, q: float
) -> tuple[float, FloatArray, FloatArray]:
    """Log-likelihood, gradient and Hessian at ``beta`` (see Notes above)."""
    eta = x @ beta
    s = special.expit(eta)
    lam = q + (p - q) * s
    one_minus = (1 - q) - (p - q) * s
    loglik = float(np.sum(y * np.log(lam) + (1 - y) * np.log(one_minus)))
    var = lam * one_minus
    d = (p - q) * s * (1 - s)
    r = (y - lam) / var
    gradient = x.T @ (r * d)
    dr = -1 / var - (y - lam) * (1 - 2 * lam) / var**2
    h = dr * d * d + r * d * (1 - 2 * s)
    hessian = x.T @ (h[:, None] * x)
    return loglik, gradient, hessian


def loglik_gradient_hessian(
    beta: Any, design: Any, reports: Any, p: float, q: float
) -> tuple[float, FloatArray, FloatArray]:
    """Log-likelihood of the randomized logistic model, its gradient and Hessian.

    Parameters
    ----------
    beta : array_like, shape (k,)
        Coefficients.
    design : array_like, shape (n, k)
        Covariates ``x_i``.
    reports : array_like, shape (n,)
        Reports ``y_i`` in {0, 1}.
    p, q : float
        ``P(report 1 | true 1)`` and ``P(report 1 | true 0)``.

    Returns
    -------
    loglik : float
        ``ℓ(β) = Σ_i y_i ln λ_i + (1 − y_i) ln(1 − λ_i)``.
    gradient : ndarray, shape (k,)
        ``Σ_i r_i d_i x_i``.
    hessian : ndarray, shape (k, k)
        ``Σ_i h_i x_i x_iᵀ``.

    Notes
    -----
    With ``σ_i = σ(x_iᵀβ)``, ``λ_i = q + (p − q) σ_i``,
    ``d_i = ∂λ_i/∂η_i = (p − q) σ_i (1 − σ_i)`` and
    ``r_i = (y_i − λ_i)/(λ_i (1 − λ_i))``:
    ``h_i = r'_i d_i² + r_i d_i (1 − 2σ_i)`` where
    ``r'_i = ∂r_i/∂λ_i = −1/(λ_i(1 − λ_i)) − (y_i − λ_i)(1 − 2λ_i)/(λ_i(1 − λ_i))²``.
    The observed information is ``−hessian``.

    References
    ----------
    .. [1] G. S. Maddala, "Limited-Dependent and Qualitative Variables in
       Econometrics", Cambridge University Press 1983 (likelihood of a binary
       outcome with known misclassification).
    .. [2] G. Blair, K. Imai, Y.-Y. Zhou, "Design and analysis of the
       randomized response technique", JASA 110(511), 2015, section 3.
    .. [3] docs/maths.md, section 6.4.

    Examples
    --------
    >>> ll, g, h = loglik_gradient_hessian(
    ...     [0.0], np.ones((2, 1)), [1, 0], 0.75, 0.25)
    >>> round(ll, 4), g, h.round(4)
    (-1.3863, array([0.]), array([[-0.125]]))
    """
    x = np.asarray(design, dtype=float)
    return _parts(
        np.asarray(beta, dtype=float), x, np.asarray(reports, dtype=float), p, q
    )


def _null_loglik(y: FloatArray, p: float, q: float) -> float:
    """Maximum of the intercept-only likelihood: ``λ̂ = ȳ`` clipped to [q, p]."""
    lam = float(np.clip(y.mean(), min(p, q), max(p, q)))
    ones = float(y.sum())
    n = y.size
    return float(special.xlogy(ones, lam) + special.xlogy(n - ones, 1 - lam))


def _relative_information(beta: FloatArray, x: FloatArray, p: float, q: float) -> float:
    """Smallest ``vᵀXᵀWXv / (vᵀXᵀXv)`` over v, divided by the largest weight.

    ``W = diag(d_i²/(λ_i(1 − λ_i)))`` are the expected-information weights;
    the largest a weight can be is at σ = 1/2.  Scale-free in the columns.
    """
    s = special.expit(x @ beta)
    lam = q + (p - q) * s
    weight = ((p - q) * s * (1 - s)) ** 2 / (lam * (1 - lam))
    centre = q + (p - q) / 2
    top = ((p - q) / 4) ** 2 / (centre * (1 - centre))
    gram = x.T @ x
    weighted = x.T @ (weight[:, None] * x)
    values = linalg.eigh(weighted, gram, eigvals_only=True)
    return float(values[0]) / top


def _intercept_column(x: FloatArray) -> int | None:
    for j in range(x.shape[1]):
        if np.all(x[:, j] == 1.0):
            return j
    return None


def _reports(reports: Any, n: int) -> FloatArray:
    y = np.asarray(reports)
    if y.ndim != 1 or y.size != n:
        raise ValueError(
            f"reports must be one 0/1 value per design row ({n}), got shape {y.shape}"
        )
    if y.dtype == np.bool_:
        return y.astype(float)
    if y.size and (y.dtype.kind not in "iuf" or not np.all((y == 0) | (y == 1))):
        raise ValueError("reports must be 0 (no) or 1 (yes)")
    return y.astype(float)


def _channel(
    mechanism: Any, p: float | None, q: float | None
) -> tuple[float, float, str]:
    if mechanism is not None:
        if p is not None or q is not None:
            raise ValueError("give either a mechanism or p and q, not both")
        p, q = channel_of(mechanism)
        return p, q, str(mechanism.name)
    if p is None or q is None:
        raise ValueError("give the outcome's mechanism, or both p and q")
    if not (0 <= q <= 1 and 0 <= p <= 1):
        raise ValueError(f"p = {p!r} and q = {q!r} must be probabilities in [0, 1]")
    return float(p), float(q), "given"


def _start(x: FloatArray, y: FloatArray, p: float, q: float) -> FloatArray:
    beta = np.zeros(x.shape[1])
    j = _intercept_column(x)
    if j is not None:
        share = float(np.clip((y.mean() - q) / (p - q), 0.05, 0.95))
        beta[j] = float(special.logit(share))
    return beta


def logistic_regression(
    reports: Any,
    design: Any,
    mechanism: Any = None,
    *,
    p: float | None = None,
    q: float | None = None,
    names: Any = None,
) -> LogisticRegressionResult:
    """Fit ``P(report 1 | x) = q + (p − q) σ(xᵀβ)`` by maximum likelihood.

    Parameters
    ----------
    reports : array_like of {0, 1}, shape (n,)
        The randomized yes/no reports.
    design : DesignMatrix or array_like, shape (n, k)
        Plain covariates, one row per report; include a constant column for
        an intercept (:func:`ldp.design_matrix` does).
    mechanism : Mechanism, optional
        The outcome's compiled binary mechanism: forced response (including
        the unrelated-question design) or Warner.  p and q come from its
        integer weights.
    p, q : float, optional
        ``P(report 1 | true 1)`` and ``P(report 1 | true 0)``, instead of a
        mechanism (``p = 1, q = 0`` is ordinary logistic regression).
    names : sequence of str, optional
        Column names for a bare array.

    Returns
    -------
    LogisticRegressionResult
        Coefficients, observed-information standard errors, intervals, odds
        ratios, the likelihood-ratio test and convergence diagnostics.

    Raises
    ------
    ValueError
        For reports that are not 0/1, a length mismatch, a rank-deficient
        design (naming the redundant columns), or a mechanism that is not
        binary.
    NotIdentifiable
        When ``p == q`` (the reports carry no information), or the likelihood
        rises toward a fitted probability of exactly 0 or 1 (for example a
        group whose debiased share is at or below 0), or the observed
        information is not positive definite.
    ConvergenceError
        When the trust-region maximisation stops without converging.

    Notes
    -----
    ``ℓ(β) = Σ_i y_i ln λ_i + (1 − y_i) ln(1 − λ_i)``,
    ``λ_i = q + (p − q) σ(x_iᵀβ)``, maximised by scipy's exact trust-region
    method with the analytic gradient and Hessian of
    :func:`loglik_gradient_hessian`, started at the debiased overall share.
    ``Cov(β̂) = I(β̂)⁻¹`` with the observed information ``I = −∇²ℓ``.  The
    likelihood is not concave in general (misclassification), so the fit
    checks that ``I(β̂)`` is positive definite.

    References
    ----------
    .. [1] G. S. Maddala, "Limited-Dependent and Qualitative Variables in
       Econometrics", Cambridge University Press 1983.
    .. [2] A. van den Hout, P. G. M. van der Heijden, "Randomized response,
       statistical disclosure control and misclassification: a review",
       International Statistical Review 70(2), 2002.
    .. [3] G. Blair, K. Imai, Y.-Y. Zhou, "Design and analysis of the
       randomized response technique", JASA 110(511), 2015.
    .. [4] docs/maths.md, section 6.4.

    Examples
    --------
    >>> import ldp
    >>> rng = np.random.default_rng(3)
    >>> coin = ldp.build({"mechanism": "forced_response", "design": {
    ...     "truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}})
    >>> age = rng.uniform(-1, 1, 4000)
    >>> truth = rng.random(4000) < 1 / (1 + np.exp(-(-0.5 + 1.0 * age)))
    >>> reports = coin.randomize(truth.astype(int), rng)
    >>> design = ldp.design_matrix({"age": age}, numeric=["age"])
    >>> fit = logistic_regression(reports, design, coin)
    >>> fit.coef.round(1)
    array([-0.5,  1.3])
    """
    matrix = as_design(design, names)
    x = matrix.matrix
    y = _reports(reports, x.shape[0])
    p_, q_, name = _channel(mechanism, p, q)
    if p_ == q_:
        raise NotIdentifiable(
            f"p = q = {p_!r}: the reports do not depend on the true answer, so no "
            "coefficient is identifiable"
        )
    check_full_rank(matrix)
    n = x.shape[0]

    def objective(beta: FloatArray) -> tuple[float, FloatArray]:
        loglik, gradient, _ = _parts(beta, x, y, p_, q_)
        return -loglik / n, -gradient / n

    def hessian(beta: FloatArray) -> FloatArray:
        curvature: FloatArray = -_parts(beta, x, y, p_, q_)[2] / n
        return curvature

    result = optimize.minimize(
        objective,
        _start(x, y, p_, q_),
        jac=True,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-9, "maxiter": ITERATIONS_MAX},
    )
    beta = np.asarray(result.x, dtype=float)
    loglik, gradient, hess = _parts(beta, x, y, p_, q_)
    predictor = np.abs(x @ beta).max() if n else 0.0
    if predictor > LINEAR_PREDICTOR_MAX:
        raise NotIdentifiable(
            "the likelihood rises toward a fitted probability of exactly 0 or 1 "
            f"(|xᵀβ| reached {predictor:.3g}): some group's debiased share is at "
            "or beyond 0 or 1, so its coefficients are infinite; merge small "
            "groups, drop covariates or collect more reports"
        )
    information = -hess / n
    eigenvalues = np.linalg.eigvalsh(information)
    smallest = float(eigenvalues[0])
    if not np.isfinite(smallest) or smallest <= 0:
        raise NotIdentifiable(
            "the observed information is not positive definite at the fit "
            f"(smallest eigenvalue {smallest:.3g}): the likelihood is flat or "
            "curving up in some direction; merge small groups, drop covariates or "
            "collect more reports"
        )
    if _relative_information(beta, x, p_, q_) < RELATIVE_INFORMATION_MIN:
        raise NotIdentifiable(
            "the likelihood rises toward a fitted probability of exactly 0 or 1: "
            "some group's debiased share is at or beyond 0 or 1, so its "
            "coefficients are infinite; merge small groups, drop covariates or "
            "collect more reports"
        )
    gradient_norm = float(np.max(np.abs(gradient))) / n
    if not result.success and gradient_norm > 1e-6:
        raise ConvergenceError(
            f"the maximisation did not converge after {result.nit} iterations "
            f"({result.message}; max |gradient|/n = {gradient_norm:.3g})"
        )
    covariance = np.linalg.inv(-hess)
    covariance = (covariance + covariance.T) / 2
    return LogisticRegressionResult(
        names=matrix.names,
        coef=beta,
        standard_error=np.sqrt(np.diag(covariance)),
        covariance=covariance,
        n=n,
        loglik=loglik,
        null_loglik=_null_loglik(y, p_, q_),
        p=p_,
        q=q_,
        mechanism=name,
        has_intercept=_intercept_column(x) is not None,
        iterations=int(result.nit),
        gradient_norm=gradient_norm,
        min_information_eigenvalue=smallest,
    )
