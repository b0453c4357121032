"""An R script that rebuilds the weights page's weights and weighted estimates.

It is the dataset's R script (``dataset_r.r_script``: the wide CSV read back,
every unweighted estimate recomputed), followed by the weighting the weights
page ran for the margins it was given: the weights rebuilt from the answers
to the margin questions (post-stratification for one margin, raking for
several, as ``ldp.post_stratify`` and ``ldp.rake``), then every protected
question's weighted shares or mean with the post-stratified (residual)
standard errors, or with the weights held fixed after raking, and the
page's 95% intervals (``ldp.weighted_estimate``, ``ldp.weighted_mean``;
docs/maths.md, section 6.6).  Each question's support rows (or scores),
weights and cells are kept in ``weighted`` for R's ``survey`` package.
"""

from __future__ import annotations

import ldp
from ldp.estimators.intervals import KEPT_INSIDE
from ldp.mechanisms.oracle import SupportMechanism
from ldp.weighting import RAKING_ITERATIONS_MAX
from surveys.analysis.exports import dataset_r
from surveys.analysis.exports.dataset_columns import Block, blocks
from surveys.analysis.jobs import weights
from surveys.authoring.models import Question, Survey

R_WEIGHTS = f"""calibrate <- function(cells, margins, tolerance = 1e-10,
                      max_iterations = {RAKING_ITERATIONS_MAX}L) {{
  targets <- lapply(margins, function(t) t / sum(t))
  error <- function(w) max(unlist(lapply(names(targets), function(m) {{
    abs(vapply(names(targets[[m]]), function(l) sum(w[cells[[m]] == l]),
               numeric(1)) / sum(w) - targets[[m]])
  }})))
  w <- rep(1, length(cells[[1]]))
  if (length(targets) == 1) {{
    for (level in names(targets[[1]])) {{
      mask <- cells[[1]] == level
      share <- targets[[1]][[level]]
      if (any(mask)) w[mask] <- w[mask] * share / (sum(mask) / length(w))
    }}
  }} else {{
    iterations <- 0L
    while (error(w) > tolerance && iterations < max_iterations) {{
      for (m in names(targets)) {{
        total <- sum(w)
        for (level in names(targets[[m]])) {{
          mask <- cells[[m]] == level
          current <- sum(w[mask]) / total
          if (current > 0) w[mask] <- w[mask] * targets[[m]][[level]] / current
        }}
      }}
      iterations <- iterations + 1L
    }}
    if (error(w) > tolerance) stop("raking did not meet the margins")
  }}
  w * length(w) / sum(w)
}}
residuals_of <- function(y, w, strata) {{
  centre <- matrix(colSums(w * y) / sum(w), nrow(y), ncol(y), byrow = TRUE)
  if (!is.null(strata)) for (h in unique(strata)) {{
    rows <- strata == h
    cell <- sum(w[rows])
    mean_h <- if (cell > 0) colSums(w[rows] * y[rows, , drop = FALSE]) / cell else 0
    centre[rows, ] <- matrix(mean_h, sum(rows), ncol(y), byrow = TRUE)
  }}
  y - centre
}}
linearized_se <- function(y, w, strata) {{
  n <- nrow(y)
  z <- w * residuals_of(y, w, strata) / sum(w)
  sqrt(n / (n - 1) * colSums(z^2))
}}
within_range <- function(centre, half, low, high) {{
  reach <- (1 - {KEPT_INSIDE!r}) * half
  centre <- pmin(pmax(centre, low - reach), high + reach)
  list(low = pmax(centre - half, low), high = pmin(centre + half, high))
}}
too_few <- function(title, w) {{
  if (length(w) >= 2) return(FALSE)
  cat("\n", title, ": fewer than 2 weighted respondents answered it\n", sep = "")
  TRUE
}}
weighted_shares <- function(title, labels, y, w, strata, p, q, scale = 1) {{
  if (too_few(title, w)) return(invisible(NULL))
  lambda <- colSums(w * y) / sum(w)
  out <- list(estimate = scale * (lambda - q) / (p - q),
              standard_error = scale * linearized_se(y, w, strata) / (p - q),
              support = y, weights = w, strata = strata)
  interval <- within_range(out$estimate, qnorm(0.975) * out$standard_error, 0, 1)
  out$low <- interval$low; out$high <- interval$high
  cat("\\n", title, " (weighted, n = ", nrow(y), ")\\n", sep = "")
  print(data.frame(answer = labels, weighted = out$estimate,
                   standard_error = out$standard_error, low = out$low,
                   high = out$high))
  invisible(out)
}}
weighted_mean <- function(title, y, w, strata, bias_bound, bounds) {{
  if (too_few(title, w)) return(invisible(NULL))
  scores <- matrix(y, ncol = 1)
  out <- list(mean = sum(w * y) / sum(w),
              mean_standard_error = linearized_se(scores, w, strata),
              support = scores, weights = w, strata = strata)
  half <- qt(0.975, length(y) - 1) * out$mean_standard_error + bias_bound
  interval <- within_range(out$mean, half, bounds[1], bounds[2])
  out$low <- interval$low; out$high <- interval$high
  cat("\\n", title, sprintf(" (weighted, n = %d): mean %.6g (SE %.6g), 95%% ",
                            length(y), out$mean, out$mean_standard_error),
      sprintf("interval %.6g to %.6g\\n", out$low, out$high), sep = "")
  invisible(out)
}}
weighted <- list()  # each protected question's weighted estimates
"""


def _margin_lines(survey: Survey, margins: dict[int, list[float]]) -> list[str]:
    """The margins as R lists of targets by answer label, and the rows the
    weights page weighs: respondents with a report who answered every margin
    question (``weights.calibrate_units``)."""
    found = blocks(survey)
    questions = {q.pk: q for q in weights.margin_candidates(survey)}
    columns = {b.question.pk: b.variables[0].name for b in found}
    reported = [b.variables[0].name for b in found if b.variables[0].protected]
    lines = ["margins <- list("]
    entries = []
    for pk, shares in sorted(margins.items()):
        labels = weights.answer_labels(questions[pk])
        targets = ", ".join(
            f"{dataset_r._r_string(label)} = {share!r}"
            for label, share in zip(labels, shares, strict=True)
        )
        entries.append(f"  {dataset_r._r_string(columns[pk])} = c({targets})")
    lines.append(",\n".join(entries))
    lines += [
        ")",
        f"reported <- {dataset_r._r_vector(reported)}",
        "kept <- rowSums(!is.na(d[, reported, drop = FALSE])) > 0",
        "for (m in names(margins)) kept <- kept & !is.na(d[[m]])",
        "cells <- lapply(setNames(names(margins), names(margins)),",
        "                function(m) as.character(d[[m]])[kept])",
        "w_all <- rep(NA_real_, nrow(d))",
        "w_all[kept] <- calibrate(cells, margins)",
        "cell_all <- rep(NA_character_, nrow(d))",
        "if (length(margins) == 1) cell_all[kept] <- cells[[1]]",
        'cat("\\nweights: ", sum(kept), " respondents, ", ',
        'if (length(margins) == 1) "post-stratification" else "raking", "\\n", '
        'sep = "")',
    ]
    return lines


def _question_lines(block: Block) -> list[str]:
    """One protected question's weighted estimate, on the kept rows with a
    report of its current spec."""
    question: Question = block.question
    first = block.variables[0]
    if (
        not first.protected
        or block.spec is None
        or question.spec_revision not in block.revisions
    ):
        return []
    mechanism = ldp.build(block.spec)
    estimator = mechanism.r_estimator
    name = dataset_r._r_string(first.name)
    revision = (
        f"d[[{dataset_r._r_string(block.revision_column)}]] == {question.spec_revision}"
        if block.revision_column
        else "TRUE"
    )
    title = dataset_r._r_string(f"{first.name}: {question.text}")
    lines = [
        "",
        f"rows <- which(kept & !is.na(d[[{name}]]) & {revision})",
        "strata <- if (length(margins) == 1) cell_all[rows] else NULL",
    ]
    if isinstance(mechanism, SupportMechanism) and estimator and estimator.support:
        p, q = mechanism.support_constants()
        names = [v.name for v in block.variables]
        columns = name if estimator.one_column else dataset_r._r_vector(names)
        extra = "".join(
            f", {k} = {dataset_r._r_value(v)}"
            for k, v in mechanism.r_arguments().items()
        )
        labels = dataset_r._option_labels(question, mechanism.k)
        scale = getattr(mechanism, "scale", 1)
        lines += [
            f"y <- {estimator.support}(d[rows, , drop = FALSE], {columns}, "
            f"{mechanism.k}{extra})",
            f"weighted[[{name}]] <- weighted_shares({title}, "
            f"{dataset_r._r_vector(labels)}, y, w_all[rows], strata, "
            f"p = {dataset_r._r_value(p)}, q = {dataset_r._r_value(q)}, "
            f"scale = {dataset_r._r_value(scale)})",
        ]
        return lines
    if not hasattr(mechanism, "scores"):
        return [f"# {first.name}: no weighted estimator for this mechanism."]
    arguments = mechanism.r_arguments()
    values = arguments["values"]
    lines += [
        f"x <- d[[{name}]][rows]",
        "y <- if (is.factor(x)) as.integer(x) - 1L else round(x)",
        f"scores <- {dataset_r._r_vector(mechanism.scores().tolist())}",
        f"weighted[[{name}]] <- weighted_mean({title}, scores[y + 1L], "
        f"w_all[rows], strata, bias_bound = {float(mechanism.score_bias)!r}, "
        f"bounds = c({min(values)!r}, {max(values)!r}))",
    ]
    return lines


def weights_r_script(survey: Survey, margins: dict[int, list[float]]) -> str:
    """The dataset's R script, then the weights page's weights and weighted
    estimates for ``margins`` (question id → population shares, in the
    order of the question's answers)."""
    lines = [
        dataset_r.r_script(survey),
        "# Weighting: the weights page's margins, its weights rebuilt from the",
        "# answers to the margin questions, and every protected question's",
        "# weighted estimate with its standard error and 95% interval.",
        R_WEIGHTS,
        *_margin_lines(survey, margins),
    ]
    for block in blocks(survey):
        lines.extend(_question_lines(block))
    return "\n".join(lines) + "\n"
