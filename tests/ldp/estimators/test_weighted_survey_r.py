"""Post-stratified estimates and standard errors against R's ``survey`` package.

``ldp.weighted_estimate`` and ``ldp.weighted_mean`` with the post-strata must
give what ``svymean`` gives on ``postStratify``'s design (Lumley 2010, §7.2):
the same ratio, and the residual-from-the-cell variance.  R (``Rscript`` with
``survey``, installed by scripts/ensure-services) runs on the same reports.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import ldp
from ldp.estimators.weighted import support_rows

pytestmark = pytest.mark.slow

N = 400
POPULATION = {"north": 0.2, "south": 0.5, "east": 0.3}
R_SCRIPT = r"""
suppressPackageStartupMessages(library(survey))
d <- read.csv("reports.csv", colClasses = c(cell = "character"))
pop <- read.csv("population.csv", colClasses = c(cell = "character"))
design <- postStratify(svydesign(ids = ~1, weights = ~d, data = d), ~cell, pop)
ys <- grep("^y", names(d), value = TRUE)
m <- svymean(reformulate(ys), design)
cat("ESTIMATE", sprintf("%.17g", coef(m)), "\n")
cat("SE", sprintf("%.17g", SE(m)), "\n")
"""


def _sample(seed: int, design_weights: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    cells = rng.choice(list(POPULATION), N, p=[0.5, 0.2, 0.3])
    base = rng.uniform(0.5, 2.0, N) if design_weights else np.ones(N)
    return cells, base


def _run_r(tmp_path: Path, cells, base, columns: np.ndarray) -> dict[str, list]:
    lines = ["cell,d," + ",".join(f"y{v}" for v in range(columns.shape[1]))]
    lines += [
        f"{cell},{float(weight)!r}," + ",".join(repr(float(y)) for y in row)
        for cell, weight, row in zip(cells, base, columns, strict=True)
    ]
    (tmp_path / "reports.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "population.csv").write_text(
        "cell,Freq\n" + "".join(f"{c},{s!r}\n" for c, s in POPULATION.items())
    )
    (tmp_path / "run.R").write_text(R_SCRIPT)
    run = subprocess.run(
        ["Rscript", "--vanilla", "run.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return {
        parts[0]: [float(v) for v in parts[1:]]
        for parts in (line.split() for line in run.stdout.splitlines())
        if parts
    }


@pytest.mark.parametrize("design_weights", [False, True])
@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "warner", "epsilon": 1.0},
        {"mechanism": "grr", "k": 4, "epsilon": 1.5},
        {"mechanism": "oue", "k": 3, "epsilon": 1.0},
    ],
)
def test_post_stratified_shares_and_errors_equal_r_survey_svymean(
    tmp_path, spec, design_weights
):
    mechanism = ldp.build(spec)
    cells, base = _sample(7, design_weights)
    truth = np.random.default_rng(8).integers(0, mechanism.k, N)
    reports = mechanism.randomize(truth, rng=np.random.default_rng(9))
    fit = ldp.post_stratify(cells, POPULATION, base)
    ours = ldp.weighted_estimate(mechanism, reports, fit.weights, fit.cells)
    support = support_rows(mechanism, reports).astype(float)
    r = _run_r(tmp_path, cells, base, support)
    p = np.asarray(mechanism.p_star, dtype=float)[: mechanism.k]
    q = np.asarray(mechanism.q_star, dtype=float)[: mechanism.k]
    np.testing.assert_allclose(ours.support, r["ESTIMATE"], rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(
        ours.standard_error, np.asarray(r["SE"]) / (p - q), rtol=1e-12
    )
    fixed = ldp.weighted_estimate(mechanism, reports, fit.weights)
    assert np.all(fixed.standard_error != ours.standard_error)


@pytest.mark.parametrize("design_weights", [False, True])
def test_post_stratified_mean_and_error_equal_r_survey_svymean(
    tmp_path, design_weights
):
    mechanism = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "40", "step": "1", "epsilon": 2.0}
    )
    cells, base = _sample(11, design_weights)
    truth = np.random.default_rng(12).integers(0, 41, N)
    reports = mechanism.randomize(truth, rng=np.random.default_rng(13))
    fit = ldp.post_stratify(cells, POPULATION, base)
    ours = ldp.weighted_mean(mechanism, reports, fit.weights, fit.cells)
    scores = mechanism.scores()[np.asarray(reports, dtype=np.int64)]
    r = _run_r(tmp_path, cells, base, scores[:, None])
    assert ours.estimate == pytest.approx(r["ESTIMATE"][0], rel=1e-14)
    assert ours.standard_error == pytest.approx(r["SE"][0], rel=1e-12)
