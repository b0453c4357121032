"""The R estimator of finite-channel mechanisms (ordinal scales, numeric grids).

An export's R script recomputes, from the reports alone, what
:meth:`ChannelEstimation.estimate` gives: the per-level shares
``f̂ = A c/n`` (``A = (Qᵀ)⁺``) with the sandwich covariance
``A [diag(λ̂) − λ̂λ̂ᵀ] Aᵀ/n``, their Norm-Sub projection, and the mean (the
score mean ``Σ c_y s_y/n`` with ``SE = sqrt(S²/n)``, or ``vᵀ f̂`` with
``SE = sqrt(vᵀ Cov v)`` on a scale) with its t interval widened by the bias
bound, floored by the smallest per-answer variance and held within the
answer range (docs/maths.md, sections 5, 6 and 6.8).  The constants (``A``,
``s``, ``v``, the floor) are the compiled spec's, written into the script.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ldp.estimators.intervals import KEPT_INSIDE
from ldp.mechanisms.about import REstimator

# Inversion matrices above this many entries are not written into a script
# (a 1,001-level grid's would be 20 MB of text); its shares are then left to
# ldp and the script estimates the mean only.
R_MATRIX_CELLS_MAX = 250_000

CHANNEL = REstimator(
    "estimate_channel",
    f"""bounded_interval <- function(centre, half, bounds) {{
  if (is.null(bounds)) return(c(centre - half, centre + half))
  reach <- (1 - {KEPT_INSIDE!r}) * half
  centre <- min(max(centre, bounds[1] - reach), bounds[2] + reach)
  c(max(centre - half, bounds[1]), min(centre + half, bounds[2]))
}}
channel_em <- function(channel, count, tol = 1e-10, max_iter = 10000L) {{
  shares <- count / sum(count)
  used <- shares > 0
  a <- channel[, used, drop = FALSE]; s <- shares[used]
  f <- rep(1 / nrow(channel), nrow(channel)); previous <- -Inf
  for (i in seq_len(max_iter)) {{
    predicted <- as.vector(f %*% a)
    likelihood <- sum(s * log(predicted))
    if (likelihood - previous < tol) break
    previous <- likelihood
    f <- f * as.vector(a %*% (s / predicted)); f <- f / sum(f)
  }}
  f
}}
estimate_channel <- function(d, column, labels, outputs, values, inversion = NULL,
                             identifiable = FALSE, scores = NULL,
                             variance_floor = 0, bias_bound = 0, bounds = NULL,
                             low = 0, step = 1, title = column,
                             revision_column = NA, revision = NA,
                             channel = NULL) {{
  keep <- keep_rows(d, column, revision_column, revision)
  x <- d[[column]][keep]
  y <- if (is.factor(x)) as.integer(x) - 1L else round((x - low) / step)
  n <- length(y)
  count <- tabulate(y + 1L, nbins = outputs)
  lambda <- count / n
  out <- list(n = n, count = count)
  if (!is.null(inversion)) {{
    a <- matrix(inversion, nrow = length(values), byrow = TRUE)
    shares <- as.vector(a %*% lambda)
    covariance <- a %*% (diag(lambda, nrow = outputs) - outer(lambda, lambda)) %*%
      t(a) / n
  }}
  if (identifiable) {{
    out$estimate <- shares
    out$standard_error <- sqrt(pmax(diag(covariance), 0))
    out$consistent <- if (consistent_method == "mle" && !is.null(channel)) {{
      channel_em(matrix(channel, nrow = length(values), byrow = TRUE), count)
    }} else project_simplex(shares)
  }}
  if (is.null(scores)) {{
    out$mean <- sum(values * shares)
    se <- sqrt(max(as.numeric(values %*% covariance %*% values), 0))
  }} else {{
    out$mean <- sum(count * scores) / n
    se <- sqrt(sum(count * (scores - out$mean)^2) / (n - 1) / n)
  }}
  out$mean_standard_error <- se
  half <- qt(0.975, n - 1) * sqrt(max(se^2, variance_floor / n)) + bias_bound
  out$mean_interval <- bounded_interval(out$mean, half, bounds)
  cat("\\n", title, " (n = ", n, ")\\n", sep = "")
  if (identifiable) {{
    print(data.frame(answer = labels, estimate = out$estimate,
                     standard_error = out$standard_error,
                     consistent = out$consistent))
  }} else if (length(labels) > 0) {{
    cat("per-level shares: not identifiable here (estimate them with ldp)\\n")
  }}
  cat(sprintf("mean %.6g (SE %.6g), 95%% interval %.6g to %.6g\\n", out$mean, se,
              out$mean_interval[1], out$mean_interval[2]))
  invisible(out)
}}""",
    one_column=True,
)
"""Shares, the mean and its interval from a report column (a factor of
levels, an output index, or a grid value ``low + y·step``)."""


def channel_r_arguments(mechanism: Any) -> dict[str, Any]:
    """The constants :data:`CHANNEL` needs for one compiled spec.

    Parameters
    ----------
    mechanism : ChannelEstimation
        An ordinal or numeric mechanism.

    Returns
    -------
    dict
        ``outputs``, ``values``, ``inversion`` (rows of ``A``, or None),
        ``identifiable``, ``scores`` (None when the mean is ``vᵀ f̂``),
        ``variance_floor``, ``bias_bound`` and ``bounds``.

    Notes
    -----
    The floor is ``min_x Var(s[Y] | x)`` for the score ``s`` of the mean:
    the mechanism's scores, or ``Aᵀ v`` for ``vᵀ f̂`` (law of total variance,
    docs/maths.md, section 6.8).
    """
    inversion, identifiable = mechanism._inversion
    values = np.asarray(mechanism.input_values(), dtype=float)
    from_shares = bool(mechanism.mean_from_shares)
    if inversion is not None and inversion.size > R_MATRIX_CELLS_MAX:
        if from_shares:
            raise ValueError("a scale's channel is too large for an R script")
        inversion, identifiable = None, False
    if not identifiable and not from_shares:
        inversion = None  # neither shares nor the mean use it
    channel = mechanism.channel_matrix()
    if from_shares:
        score = values @ inversion
        variance = channel @ (score * score) - (channel @ score) ** 2
        floor = float(max(variance.min(), 0.0))
        bias = 0.0
    else:
        floor = float(mechanism.mean_variance().min())
        bias = float(mechanism.score_bias)
    return {
        "outputs": int(mechanism.outputs),
        "values": values.tolist(),
        "inversion": None if inversion is None else inversion.tolist(),
        "identifiable": bool(identifiable),
        "scores": None if from_shares else mechanism.scores().tolist(),
        "variance_floor": floor,
        "bias_bound": bias,
        "bounds": [float(values.min()), float(values.max())],
    }
