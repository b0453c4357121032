"""R runs the exported script on the exported CSV and reads the SPSS and Stata
files with haven (``slow``: it starts R).

Every point estimate and analytic standard error of the estimates file (the
dashboard's numbers) is recomputed by R from the randomized reports alone:
per-answer shares and their standard errors for every question kind, the
Norm-Sub consistent shares, the mean of scales and numbers with its
standard error and interval, and their binned distribution's bin shares and
median (the constrained maximum likelihood; its Wald and Woodruff intervals are the
estimates file's).  ``Rscript`` comes from scripts/ensure-services.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from surveys.analysis.exports import dataset_r, datasets
from surveys.analysis.exports.estimates import estimates_document
from surveys.analysis.models import ResultsSettings
from surveys.analysis.reading import latest_results
from surveys.authoring import kinds
from tests.surveys.analysis import dashboard_support
from tests.surveys.analysis.conftest import make_survey, release, submit_bulk

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
TOLERANCE = 1e-9
# The binned distribution is an iterative fit: SQUAREM, then plain EM steps
# until no share moves by 1e-13, the same steps in R as in numpy; its bin
# shares agree to 1e-9 (absolute), the median (a level value) exactly.
BIN_TOLERANCE = 1e-9
# Mechanisms whose maximum-likelihood consistent shares are iterated by EM.
CHANNEL_MECHANISMS = {"ordinal", "geometric", "piecewise", "gaussian", "duchi"}
PRINT_EVERY_RESULT = r"""
for (name in names(estimates)) {
  e <- estimates[[name]]
  for (field in c("estimate", "standard_error", "consistent", "mean",
                  "mean_standard_error", "mean_interval", "bin_shares",
                  "median")) {
    if (!is.null(e[[field]])) {
      cat("RESULT", name, field, sprintf("%.17g", e[[field]]), "\n")
    }
  }
}
"""


@pytest.fixture
def families(researcher):
    survey = make_survey(researcher)
    submit_bulk(survey, 160)
    release(survey)
    return survey


@pytest.fixture
def student_life(ada):
    survey = dashboard_support.make_survey(ada)
    dashboard_support.simulate(survey, 250)
    return survey


def run_r(survey, tmp_path) -> dict[tuple[str, str], list[float]]:
    """(question's variable stem, field) -> the numbers R printed for it
    (``q4`` for a question whose first column is ``q4_opt1``)."""
    name = f"survey-{survey.pk}-wide.csv"
    buffer = (tmp_path / name).open("wb")
    datasets.write_wide_csv_bom(survey, buffer)
    buffer.close()
    script = dataset_r.r_script(survey) + PRINT_EVERY_RESULT
    (tmp_path / "wide.R").write_text(script, encoding="utf-8")
    run = subprocess.run(
        ["Rscript", "--vanilla", "wide.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return {
        (parts[1].split("_")[0], parts[2]): [float(v) for v in parts[3:]]
        for parts in (line.split() for line in run.stdout.splitlines())
        if parts and parts[0] == "RESULT"
    }


def expected_fields(question: dict) -> dict[str, list[float]]:
    """The estimates file's point estimates and analytic errors of a question."""
    fields: dict[str, list[float]] = {}
    if question["estimate"]:
        fields["estimate"] = question["estimate"]
        fields["standard_error"] = question["standard_error"]
    if question["consistent_method"] in {"norm-sub", "mle"}:
        fields["consistent"] = question["consistent"]
    if question["mean"] is not None:
        fields["mean"] = [question["mean"]]
        fields["mean_standard_error"] = [question["mean_standard_error"]]
        interval = question["mean_interval"]
        fields["mean_interval"] = [interval["low"], interval["high"]]
    if question.get("distribution"):
        fields["bin_shares"] = question["distribution"]["shares"]
        fields["median"] = [question["distribution"]["median"]]
    return fields


def largest_differences(ours: list[float], theirs: list[float]) -> tuple[float, float]:
    """(largest absolute difference, largest relative one where |theirs| ≥ 1e-6)."""
    a, b = np.asarray(ours), np.asarray(theirs)
    sizable = np.abs(b) >= 1e-6
    relative = np.abs(a - b)[sizable] / np.abs(b[sizable])
    return float(np.max(np.abs(a - b))), float(np.max(relative, initial=0.0))


@pytest.mark.parametrize("method", ["norm-sub", "mle"])
@pytest.mark.parametrize("fixture", ["families", "student_life"])
def test_rscript_recomputes_every_estimate_and_error_of_the_estimates_file(
    request, fixture, method, tmp_path
):
    survey = request.getfixturevalue(fixture)
    ResultsSettings.objects.update_or_create(
        survey=survey, defaults={"consistent_method": method}
    )
    printed = run_r(survey, tmp_path)
    document = estimates_document(latest_results(survey))
    assert method in {q["consistent_method"] for q in document["questions"]}
    compared: dict[str, tuple[float, float]] = {}
    for question in document["questions"]:
        name = f"q{question['position']}"
        expected = expected_fields(question)
        assert expected, question["mechanism"]
        for field, values in expected.items():
            assert (name, field) in printed, (name, question["mechanism"], field)
            # The maximum likelihood of a finite channel is iterated (EM) to a
            # stop, like the bins; of a frequency oracle it is exact.
            iterated = (
                field == "consistent"
                and method == "mle"
                and (
                    kinds.facts(question["kind"]).in_units
                    and question["mechanism"] in CHANNEL_MECHANISMS
                )
            )
            exact = field != "bin_shares" and not iterated
            np.testing.assert_allclose(
                printed[name, field],
                values,
                rtol=TOLERANCE if exact else 0,
                atol=1e-12 if exact else BIN_TOLERANCE,
            )
            worst = largest_differences(printed[name, field], values)
            before = compared.get(field, (0.0, 0.0))
            compared[field] = (max(before[0], worst[0]), max(before[1], worst[1]))
    print(f"\n{fixture}: R vs estimates file, (largest absolute, relative):")
    for field, (absolute, relative) in compared.items():
        print(f"  {field}: {absolute:.3g}, {relative:.3g}")
    printed_names = {name for name, _ in printed}
    assert printed_names == {f"q{q['position']}" for q in document["questions"]}


HAVEN_READ = r"""
suppressPackageStartupMessages(library(haven))
for (file in c("wide.sav", "wide.dta")) {
  d <- if (endsWith(file, ".sav")) read_sav(file) else read_dta(file)
  for (name in grep("_mean(_lo|_hi)?$", names(d), value = TRUE)) {
    cat("READ", file, name, sprintf("%.17g", unique(as.numeric(d[[name]]))),
        attr(d[[name]], "label"), "\n")
  }
}
"""


@pytest.mark.parametrize("fixture", ["families", "student_life"])
def test_haven_reads_each_scale_and_number_mean_with_its_interval_from_sav_and_dta(
    request, fixture, tmp_path
):
    survey = request.getfixturevalue(fixture)
    questions = estimates_document(latest_results(survey))["questions"]
    for writer, name in [
        (datasets.write_sav, "wide.sav"),
        (datasets.write_dta, "wide.dta"),
    ]:
        with (tmp_path / name).open("wb") as fileobj:
            writer(survey, fileobj)
    (tmp_path / "read.R").write_text(HAVEN_READ, encoding="utf-8")
    run = subprocess.run(
        ["Rscript", "--vanilla", "read.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    read = {
        (parts[1], parts[2]): (float(parts[3]), " ".join(parts[4:]))
        for parts in (line.split() for line in run.stdout.splitlines())
        if parts and parts[0] == "READ"
    }
    expected = {}
    for q in questions:
        if q["mean"] is not None and kinds.facts(q["kind"]).in_units:
            interval = q["mean_interval"]
            expected[f"q{q['position']}_mean"] = q["mean"]
            expected[f"q{q['position']}_mean_lo"] = interval["low"]
            expected[f"q{q['position']}_mean_hi"] = interval["high"]
    assert expected
    for file in ("wide.sav", "wide.dta"):
        got = {name: read[file, name] for f, name in read if f == file}
        assert set(got) == set(expected)
        for name, (value, label) in got.items():
            assert value == pytest.approx(expected[name], rel=1e-15)
            assert label.startswith(name.rsplit("_mean", 1)[0] + " debiased mean")
            assert label.endswith("(same in every row)")
