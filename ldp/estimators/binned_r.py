"""The binned distribution in R: the same constrained maximum likelihood.

An export's R script recomputes, from the reports alone, the point estimates
of :func:`ldp.estimators.binned.binned_distribution`: the level distribution
``f̂ = argmax_{f ∈ simplex} ℓ(f; c)`` by the same algorithm from the same
start (a short EM warm-up accelerated by SQUAREM, then projected Newton
steps to the KKT point, for a histogram channel,
``HistogramChannel.point_fit``; the KKT bisection of
:func:`ldp.estimators.consistency.binomial_mle` for unary encoding), the
bin shares ``Σ_{x in bin j} f̂_x`` and the lower median.  The intervals of
the bins (Wald) and of the median (Woodruff) are computed from the debiased
shares' covariance on the server; the script reads them from the estimates
file (docs/maths.md, section 11).

The constants (the channel with its identical columns merged, the level
values, the cut points) are the compiled spec's, written into the script by
:func:`binned_r_arguments`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldp.estimators.level_channels import (
    MAX_ITERATIONS,
    POLISH_STEPS,
    POLISH_TOLERANCE,
    TOLERANCE,
    WARM_UP_ITERATIONS,
    HistogramChannel,
    level_channel,
)
from ldp.estimators.simplex_newton import (
    ACTIVE_MARGIN,
    ARMIJO,
    BACKTRACKS,
    DAMPING,
    KKT_TOLERANCE,
    NEWTON_STEPS,
    RIDGE,
    RIDGE_GROWTH,
    RIDGE_TRIES,
)

UNARY_BISECTION_STEPS = 80
"""Bisection steps of ``UnaryChannel.fit`` (its ``binomial_mle`` call)."""

BINNED_R = f"""# squarem_fit and newton_fit mirror the Python reference,
# HistogramChannel.point_fit in ldp.estimators.level_channels, step for step:
# the same uniform start, EM step, SQUAREM extrapolation and fallback and
# stop (a log-likelihood gain below tol, or warm_up iterations), then the
# same projected Newton steps (ldp.estimators.simplex_newton: ε-active set,
# Cholesky solve with a ridge when it fails, Armijo arc search) until the
# KKT residual is at most kkt_tol; where they do not get there, the same
# fallback (SQUAREM, then plain EM steps until no share moves by
# polish_tol).  Change the two together.
squarem_fit <- function(channel, count, n, tol = {TOLERANCE!r},
                        max_iter = {WARM_UP_ITERATIONS}L) {{
  shares <- count / n
  predicted <- function(f) pmax(as.vector(f %*% channel), 1e-300)
  step <- function(f) {{
    updated <- f * as.vector(channel %*% (shares / predicted(f)))
    updated / sum(updated)
  }}
  loglik <- function(f) sum(shares * log(predicted(f)))
  f <- rep(1 / nrow(channel), nrow(channel))
  current <- loglik(f)
  for (i in seq_len(max_iter)) {{
    f1 <- step(f); f2 <- step(f1)
    r <- f1 - f; v <- f2 - 2 * f1 + f
    v_norm <- sqrt(sum(v^2))
    alpha <- min(if (v_norm > 0) -sqrt(sum(r^2)) / v_norm else -1, -1)
    jump <- pmax(f - 2 * alpha * r + alpha^2 * v, 1e-12)
    candidate <- step(jump / sum(jump))
    gained <- loglik(candidate); plain <- loglik(f2)
    if (gained < plain) {{ candidate <- f2; gained <- plain }}
    f <- candidate
    done <- gained - current < tol
    current <- gained
    if (done) break
  }}
  f
}}
newton_direction <- function(hessian, gradient) {{
  jitter <- 0
  scale <- max(diag(hessian))
  for (i in seq_len({RIDGE_TRIES}L)) {{
    factor <- tryCatch(chol(hessian + diag(jitter, nrow(hessian))),
                       error = function(e) NULL)
    if (!is.null(factor)) {{
      return(-backsolve(factor, backsolve(factor, gradient, transpose = TRUE)))
    }}
    jitter <- if (jitter == 0) {RIDGE!r} * scale else jitter * {RIDGE_GROWTH!r}
  }}
  -gradient / diag(hessian)
}}
newton_fit <- function(channel, shares, start, kkt_tol = {KKT_TOLERANCE!r},
                       steps = {NEWTON_STEPS}L, margin = {ACTIVE_MARGIN!r},
                       armijo = {ARMIJO!r}, backtracks = {BACKTRACKS}L) {{
  used <- shares > 0
  q <- channel[, used, drop = FALSE]
  s <- shares[used]
  x <- start
  for (i in seq_len(steps)) {{
    predicted <- as.vector(x %*% q)
    ratio <- s / predicted
    gradient <- 1 - as.vector(q %*% ratio)
    residual <- max(abs(pmin(x, gradient)))
    if (residual <= kkt_tol) return(x / sum(x))
    bound <- (x <= min(margin, residual)) & (gradient > 0)
    free <- !bound
    direction <- ifelse(bound, -x, 0)
    slope <- 0
    if (any(free)) {{
      root <- q[free, , drop = FALSE] * rep(sqrt(s) / predicted, each = sum(free))
      hessian <- tcrossprod(root)
      diag(hessian) <- diag(hessian) + {DAMPING!r} * residual
      direction[free] <- newton_direction(hessian, gradient[free])
      slope <- -sum(gradient[free] * direction[free])
    }}
    alpha <- 1
    moved <- FALSE
    for (j in seq_len(backtracks)) {{
      trial <- pmax(x + alpha * direction, 0)
      change <- trial - x
      if (!any(change != 0)) break
      gain <- suppressWarnings(
        sum(s * log1p(as.vector(change %*% q) / predicted))) - sum(change)
      wanted <- armijo * (alpha * slope +
                          sum(gradient[bound] * (x[bound] - trial[bound])))
      if (is.finite(gain) && gain >= wanted) {{
        x <- trial
        moved <- TRUE
        break
      }}
      alpha <- alpha / 2
    }}
    if (!moved) return(NULL)
  }}
  NULL
}}
polished_fit <- function(channel, count, n, polish_tol = {POLISH_TOLERANCE!r},
                         polish_steps = {POLISH_STEPS}L) {{
  shares <- count / n
  f <- squarem_fit(channel, count, n, max_iter = {MAX_ITERATIONS}L)
  for (i in seq_len(polish_steps)) {{
    predicted <- pmax(as.vector(f %*% channel), 1e-300)
    updated <- f * as.vector(channel %*% (shares / predicted))
    updated <- updated / sum(updated)
    moved <- max(abs(updated - f))
    f <- updated
    if (moved < polish_tol) break
  }}
  f
}}
point_fit <- function(channel, count, n) {{
  fitted <- newton_fit(channel, count / n, squarem_fit(channel, count, n))
  if (is.null(fitted)) polished_fit(channel, count, n) else fitted
}}
support_root <- function(mu, count, n, p, q) {{
  d <- p - q; m <- mu / d; total <- m + n
  root <- sqrt(pmax(total^2 - 4 * m * count, 0))
  denominator <- total + root
  empty <- (count == 0) & (total < 0)
  safe <- ifelse(denominator > 0, denominator, 1)
  lambda <- ifelse(denominator > 0, 2 * count / safe, 0)
  lambda <- ifelse(empty, 1 + n / ifelse(empty, m, -1), lambda)
  pmin(pmax((lambda - q) / d, 0), 1)
}}
binomial_mle <- function(count, n, p, q, steps = {UNARY_BISECTION_STEPS}L) {{
  bound <- max((p - q) * n / pmin(q, 1 - p)) + 1
  low <- -bound; high <- bound
  for (i in seq_len(steps)) {{
    mu <- (low + high) / 2
    if (sum(support_root(mu, count, n, p, q)) > 1) low <- mu else high <- mu
  }}
  project_simplex(support_root((low + high) / 2, count, n, p, q))
}}
estimate_bins <- function(count, n, values, cuts = NULL, channel = NULL,
                          groups = NULL, p = NULL, q = NULL) {{
  if (n < 1) return(list())
  k <- length(values)
  if (is.null(channel)) {{
    levels <- binomial_mle(count, n, rep(p, k), rep(q, k))
  }} else {{
    a <- matrix(channel, nrow = k, byrow = TRUE)
    merged <- if (is.null(groups)) count else
      as.vector(tapply(count, factor(groups, levels = seq_len(ncol(a)) - 1L), sum))
    levels <- point_fit(a, merged, n)
  }}
  if (is.null(cuts)) {{
    index <- seq_len(k) - 1L
  }} else {{
    inner <- cuts[cuts > values[1] & cuts < values[k]]
    index <- findInterval(values, inner)
  }}
  bins <- as.vector(tapply(levels, factor(index, levels = sort(unique(index))), sum))
  median <- values[which(cumsum(levels) >= 0.5 - 1e-12)[1]]
  cat(sprintf("bins (constrained maximum likelihood): %s; median %.6g\\n",
              paste(sprintf("%.4f", bins), collapse = ", "), median))
  cat("their Wald and Woodruff intervals: in the estimates file\\n")
  list(bin_shares = bins, median = median)
}}"""
"""R's ``estimate_bins(count, n, values, cuts, channel, groups, p, q)``: the
count is the reports' sufficient statistic as the question's estimator
counted it (a histogram of outputs, or the support counts of unary bits)."""


def binned_r_arguments(
    mechanism: Any, values: Any, cuts: list[float] | None
) -> dict[str, Any]:
    """The constants ``estimate_bins`` needs for one compiled spec.

    Parameters
    ----------
    mechanism : ldp.Mechanism
        A mechanism with a level channel (:func:`level_channel` not None).
    values : array_like
        The answer value of each level.
    cuts : list of float or None
        The cut points the binned distribution uses (None: a bin per level).

    Returns
    -------
    dict
        ``values`` and ``cuts``, then ``channel`` (the merged channel's rows)
        with ``groups`` (each output's merged column, 0-based; None when none
        merged) for a histogram channel, or ``p`` and ``q`` for unary bits.

    Raises
    ------
    ValueError
        For a mechanism without a level channel.
    """
    channel = level_channel(mechanism)
    if channel is None:
        raise ValueError(f"{mechanism.name} has no level channel to fit bins on")
    fixed: dict[str, Any] = {
        "values": np.asarray(values, dtype=float).tolist(),
        "cuts": None if cuts is None else [float(c) for c in cuts],
    }
    if isinstance(channel, HistogramChannel):
        groups = channel.groups
        return fixed | {
            "channel": np.asarray(channel.channel, dtype=float).tolist(),
            "groups": None if groups is None else groups.tolist(),
        }
    return fixed | {"p": float(channel.p), "q": float(channel.q)}
