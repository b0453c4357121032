"""R runs the export's binned fit (``ldp.estimators.binned_r``) on random
cases and lands on Python's level shares to 1e-9 (``slow``: it starts R).

The cases are the fit tests' (tests/ldp/estimators/fit_cases.py):
201 levels at ε = 0.5 and 1 among them, where EM and SQUAREM alone stop
far apart.  ``Rscript`` comes from scripts/ensure-services.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from ldp.estimators.binned_r import BINNED_R
from tests.ldp.estimators.fit_cases import CASES, FALLBACK_CASES, fit_case

pytestmark = pytest.mark.slow

RUN_CASE = """
a <- matrix(scan("channel{i}.txt", quiet = TRUE), nrow = {levels}, byrow = TRUE)
count <- scan("counts{i}.txt", quiet = TRUE)
f <- point_fit(a, count, {n})
cat("FIT", {i}, sprintf("%.17g", f), "\\n")
"""


def test_r_lands_on_pythons_level_shares_to_1e_9_where_newton_converges(tmp_path):
    expected = {}
    script = [BINNED_R]
    for i, case in enumerate(CASES + FALLBACK_CASES):
        channel, counts, n = fit_case(*case)
        expected[i] = channel.point_fit(counts, n)
        (tmp_path / f"channel{i}.txt").write_text(
            "\n".join(repr(float(v)) for v in channel.channel.ravel()) + "\n"
        )
        (tmp_path / f"counts{i}.txt").write_text(
            "\n".join(repr(float(v)) for v in counts) + "\n"
        )
        script.append(RUN_CASE.format(i=i, levels=channel.levels, n=n))
    (tmp_path / "fit.R").write_text("\n".join(script), encoding="utf-8")
    run = subprocess.run(
        ["Rscript", "--vanilla", "fit.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    fitted = {
        int(parts[1]): np.array([float(v) for v in parts[2:]])
        for parts in (line.split() for line in run.stdout.splitlines())
        if parts and parts[0] == "FIT"
    }
    assert sorted(fitted) == sorted(expected)
    gaps = {i: float(np.abs(fitted[i] - expected[i]).max()) for i in expected}
    print("largest |R − Python| per case:", {i: f"{g:.1e}" for i, g in gaps.items()})
    # Where the Newton steps converge: the same maximum to 1e-9.  The
    # fallback (SQUAREM and plain EM, docs/maths.md section 11) stops along a
    # flat direction, a few 1e-9 apart.
    assert max(gaps[i] for i in range(len(CASES))) <= 1e-9
    assert max(gaps.values()) <= 1e-8
