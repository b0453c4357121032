"""Projected Newton steps to the maximum-likelihood level shares of a channel.

The constrained maximum likelihood of a histogram channel,
``f̃ = argmax_{f ∈ simplex} Σ_y s_y ln (Qᵀf)_y`` with ``s = c/n``
(``Σ_y s_y = 1``), is the minimiser over the non-negative orthant of

    φ(x) = −Σ_y s_y ln (Qᵀx)_y + Σ_x x_x.

For ``x ≥ 0`` with total ``t = Σ x``, ``φ(x) = φ(x/t) − ln t + t``, which is
smallest at ``t = 1``; so the two problems have the same maximisers, and the
simplex's equality constraint is gone (Kim, Carbonetto, Stephens & Anitescu
2020, section 2).  With ``g = Q (s/λ)`` and ``λ = Qᵀx`` the gradient is
``∇φ = 1 − g`` and the Hessian ``H = Q diag(s/λ²) Qᵀ`` (positive
semi-definite: ``φ`` is convex).  The KKT conditions of the optimum are
``g_x = 1`` where ``x_x > 0`` and ``g_x ≤ 1`` where ``x_x = 0``: a share stays
at zero only if moving mass onto it cannot raise the likelihood.

:func:`newton_fit` runs Bertsekas's projected Newton method (1982) on
``x ≥ 0`` from a start on the simplex (the EM/SQUAREM warm-up of
``HistogramChannel.point_fit``):

1. residual ``w = max_x |min(x_x, ∇φ_x)|`` (zero exactly at a KKT point);
   stop once ``w ≤`` :data:`KKT_TOLERANCE`;
2. the ε-active set ``B = {x : x_x ≤ min(ε, w), ∇φ_x > 0}`` (shares at or
   near zero that the gradient pushes to zero), ``ε`` = :data:`ACTIVE_MARGIN`;
   every other share is free (``F``);
3. direction ``d_F = −(H_FF + μ I)⁻¹ ∇φ_F`` with ``μ = DAMPING · w``, a
   regularised Newton step whose damping vanishes at the optimum (Li,
   Fukushima, Qi & Yamashita 2004; a Cholesky solve, and should it fail, a
   ridge growing from :data:`RIDGE` times the largest diagonal entry), and
   ``d_B = −x_B`` (the diagonal scaling ``x_x/∇φ_x`` of Bertsekas's rule,
   which takes those shares to zero at ``α = 1``);
4. arc search: ``x(α) = max(x + α d, 0)`` for ``α = 1, 1/2, 1/4, …`` (at most
   :data:`BACKTRACKS` times) until the Armijo condition
   ``φ(x) − φ(x(α)) ≥ σ [α ∇φ_Fᵀ H_FF⁻¹ ∇φ_F + ∇φ_Bᵀ (x_B − x(α)_B)]``,
   ``σ`` = :data:`ARMIJO`; ``φ(x) − φ(x(α))`` is computed as
   ``Σ_y s_y ln1p((Qᵀ(x(α) − x))_y / λ_y) − Σ_x (x(α) − x)_x``, without the
   cancellation of two values of ``φ``.  No acceptable ``α``, or
   :data:`NEWTON_STEPS` steps without reaching the tolerance: None (the
   caller falls back to EM).

The shares in ``B`` reach exactly zero (the projection), several at a step,
and once the zero shares are found (finitely many steps under strict
complementarity) the steps are Newton's on the positive shares and converge
quadratically (Bertsekas 1982, propositions 2–4), so the stop lands on the
maximum to rounding, not somewhere along a flat direction as a first-order
method's does.  The fit is returned divided by its total (1 at the optimum).

References
----------
.. [1] D. P. Bertsekas, "Projected Newton methods for optimization problems
   with simple constraints", SIAM J. Control Optim. 20(2), 221–246, 1982.
.. [2] Y. Kim, P. Carbonetto, M. Stephens, M. Anitescu, "A fast algorithm
   for maximum likelihood estimation of mixture proportions using
   sequential quadratic programming", J. Comput. Graph. Statist. 29(2),
   261–273, 2020 (the orthant form of the simplex-constrained likelihood).
.. [3] D.-H. Li, M. Fukushima, L. Qi, N. Yamashita, "Regularized Newton
   methods for convex minimization problems with singular solutions",
   Comput. Optim. Appl. 28(2), 131–147, 2004.
.. [4] docs/maths.md, section 11.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

from ldp.arrays import AnyArray, FloatArray

KKT_TOLERANCE = 1e-12
"""Stop once ``max_x |min(x_x, 1 − g_x)|`` is at most this."""
NEWTON_STEPS = 40
"""At most this many projected Newton steps."""
ACTIVE_MARGIN = 1e-6
"""``ε`` of the ε-active set: shares at most ``min(ε, w)`` may be held at 0."""
ARMIJO = 1e-4
"""``σ`` of the Armijo condition of the arc search."""
BACKTRACKS = 40
"""At most this many halvings of the step length."""
RIDGE = 1e-12
"""First ridge, relative to ``max diag H_FF``, added when Cholesky fails."""
RIDGE_GROWTH = 100.0
"""Factor by which the ridge grows per failed Cholesky factorisation."""
RIDGE_TRIES = 8
"""At most this many ridges before the diagonal Newton step."""
DAMPING = 1.0
"""``μ = DAMPING · w`` is added to the free Hessian's diagonal."""


def kkt_residual(x: FloatArray, gradient: FloatArray) -> float:
    """``max_x |min(x_x, ∇φ_x)|``: zero exactly at the optimum's KKT point."""
    return float(np.max(np.abs(np.minimum(x, gradient))))


def newton_direction(hessian: FloatArray, gradient: FloatArray) -> FloatArray:
    """``−H⁻¹ ∇φ`` by Cholesky, with a growing ridge when ``H`` is singular.

    The ridge ``δ I``, ``δ = RIDGE · max diag H`` times
    :data:`RIDGE_GROWTH` per failed try (at most :data:`RIDGE_TRIES`), is a
    Levenberg–Marquardt step; it only arises where the likelihood is flat
    along some free direction.  If every try fails, the diagonal Newton step
    ``−∇φ_x / H_xx``.
    """
    jitter = 0.0
    scale = float(np.max(np.diag(hessian)))
    for _ in range(RIDGE_TRIES):
        try:
            factor = linalg.cho_factor(
                hessian + jitter * np.eye(hessian.shape[0]), check_finite=False
            )
        except linalg.LinAlgError:
            jitter = RIDGE * scale if jitter == 0.0 else jitter * RIDGE_GROWTH
            continue
        solved: FloatArray = linalg.cho_solve(factor, gradient, check_finite=False)
        return -solved
    diagonal: FloatArray = -gradient / np.diag(hessian)
    return diagonal


def newton_fit(
    channel: FloatArray, shares: FloatArray, start: FloatArray
) -> FloatArray | None:
    """Minimise ``φ(x) = −Σ_y s_y ln (Qᵀx)_y + Σ_x x_x`` over ``x ≥ 0``.

    Parameters
    ----------
    channel : ndarray, shape (levels, outputs)
        ``Q[x, y] = P(report y | level x)``, every entry positive.
    shares : ndarray, shape (outputs,)
        ``s = c/n`` (summing to 1).
    start : ndarray, shape (levels,)
        A start on the simplex with ``Qᵀ start > 0``.

    Returns
    -------
    ndarray or None
        The maximum-likelihood level shares, on the simplex, once the KKT
        residual is at most :data:`KKT_TOLERANCE`; None when
        :data:`NEWTON_STEPS` steps do not get there or no step gains.

    Notes
    -----
    Bertsekas's projected Newton method on the orthant form of the
    likelihood (module docstring); outputs with ``s_y = 0`` add nothing to
    ``φ``, its gradient or its Hessian and are left out.
    """
    used = shares > 0
    q = np.asarray(channel, dtype=float)[:, used]
    s = np.asarray(shares, dtype=float)[used]
    x = np.asarray(start, dtype=float).copy()
    for _ in range(NEWTON_STEPS):
        predicted = x @ q
        ratio = s / predicted
        gradient = 1.0 - q @ ratio
        residual = kkt_residual(x, gradient)
        if residual <= KKT_TOLERANCE:
            fitted: FloatArray = x / x.sum()
            return fitted
        bound = (x <= min(ACTIVE_MARGIN, residual)) & (gradient > 0)
        free = ~bound
        direction = np.where(bound, -x, 0.0)
        slope = 0.0
        if free.any():
            # H_FF = R Rᵀ with R = Q_F diag(√s/λ): one symmetric product.
            root = q[free] * (np.sqrt(s) / predicted)
            hessian = root @ root.T
            hessian[np.diag_indices_from(hessian)] += DAMPING * residual
            direction[free] = newton_direction(hessian, gradient[free])
            slope = -float(gradient[free] @ direction[free])
        step = _arc_search(q, s, x, predicted, gradient, direction, bound, slope)
        if step is None:
            return None
        x = step
    return None


def _arc_search(
    q: FloatArray,
    s: FloatArray,
    x: FloatArray,
    predicted: FloatArray,
    gradient: FloatArray,
    direction: FloatArray,
    bound: AnyArray,
    slope: float,
) -> FloatArray | None:
    """The first ``x(α) = max(x + α d, 0)``, ``α = 1, 1/2, …``, that meets
    Armijo's condition along the projection arc (Bertsekas 1982), or None (none does, or
    the step no longer moves any share)."""
    alpha = 1.0
    for _ in range(BACKTRACKS):
        trial = np.maximum(x + alpha * direction, 0.0)
        change = trial - x
        if not change.any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = float(s @ np.log1p((change @ q) / predicted)) - float(change.sum())
        wanted = ARMIJO * (
            alpha * slope + float(gradient[bound] @ (x[bound] - trial[bound]))
        )
        if np.isfinite(gain) and gain >= wanted:
            return trial
        alpha /= 2
    return None
