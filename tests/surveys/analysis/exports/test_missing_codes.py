"""Unanswered questions in the per-respondent files: not shown, left blank,
declined and unknown told apart (``surveys.collection.missing``).

CSV and R: an empty cell (R's NA) and the reason in ``q<n>_missing``; SPSS:
the code (−1, −2, −3, −9) declared user-missing with its label; Stata: the
extended missing values .a, .b, .c, .d with their labels.  Each file is read
back with pyreadstat, and (slow) with R's haven.
"""

from __future__ import annotations

import csv
import io
import subprocess
import uuid
from collections import Counter

import numpy as np
import pyreadstat
import pytest

import ldp
from surveys.analysis.exports import dataset_r, datasets
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import missing
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk
from tests.surveys.analysis.conftest import release

pytestmark = pytest.mark.django_db

NOT_SHOWN, BLANK, DECLINED, UNKNOWN = (
    missing.NOT_SHOWN,
    missing.BLANK,
    missing.DECLINED,
    missing.UNKNOWN,
)
# (drives, how the optional protected question was left, how the optional
# unprotected one was): None is answered.  The follow-up (q3) is shown only
# to drivers.
PEOPLE = [
    (1, None, None),
    (1, DECLINED, BLANK),
    (0, None, DECLINED),
    (0, BLANK, None),
    (0, UNKNOWN, UNKNOWN),
]
# What each person's row says for q3, q4, q5 (None: answered).
EXPECTED = Counter(
    (None if drove else NOT_SHOWN, speed, age) for drove, speed, age in PEOPLE
)
REASON_COLUMNS = ("q3_missing", "q4_missing", "q5_missing")
STATA_LETTERS = {NOT_SHOWN: "a", BLANK: "b", DECLINED: "c", UNKNOWN: "d"}


@pytest.fixture
def branching(ada) -> Survey:
    survey = authoring.survey_create(owner=ada, title="Driving")
    authoring.question_create(
        survey=survey, text="Ever late?", privacy=PrivacyConfig(kind="yes_no")
    )
    drives = authoring.question_create(
        survey=survey,
        text="Do you drive?",
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="Driven after drinking?",
        privacy=PrivacyConfig(kind="yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
    )
    authoring.question_create(
        survey=survey,
        text="Speeding?",
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text="Age band?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Young", "Old")
        ),
        not_private_acknowledged=True,
        optional=True,
    )
    survey = authoring.survey_publish(survey=survey, user=ada)
    late, drives, follow, speeding, band = survey.questions.order_by("position")
    rng = np.random.default_rng(5)

    def report(question):
        payload = ldp.build(question.spec).randomize(np.array([1]), rng).tolist()[0]
        return SentReport(1, payload)

    responses = []
    for drove, speed, age in PEOPLE:
        reports = {late.pk: report(late)}
        if drove:
            reports[follow.pk] = report(follow)
        if speed is None:
            reports[speeding.pk] = report(speeding)
        left = {pk: how for pk, how in ((speeding.pk, speed), (band.pk, age)) if how}
        responses.append(
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports=reports,
                plain_answers={drives.pk: drove, **({} if age else {band.pk: 0})},
                skipped=frozenset(left),
                skip_reasons={pk: how for pk, how in left.items() if how != UNKNOWN},
            )
        )
    submissions_ingest_bulk(survey=survey, responses=responses)
    release(survey)
    return survey


def _written(writer, survey, path):
    with path.open("wb") as fileobj:
        writer(survey, fileobj)
    return path


def test_csv_leaves_unanswered_cells_empty_and_names_the_reason(branching):
    text = "".join(datasets.wide_csv_lines(branching))
    rows = list(csv.DictReader(io.StringIO(text)))
    by_label = {label: reason for reason, label in missing.LABELS.items()}
    seen = Counter(tuple(by_label.get(row[c]) for c in REASON_COLUMNS) for row in rows)
    assert seen == EXPECTED
    for row in rows:
        for column, question in zip(REASON_COLUMNS, ("q3", "q4", "q5"), strict=True):
            assert (row[column] == "") == (row[question] != "")
    assert "q1_missing" not in rows[0] and "q2_missing" not in rows[0]


def test_sav_writes_user_missing_codes_with_their_labels(branching, tmp_path):
    path = _written(datasets.write_sav, branching, tmp_path / "wide.sav")
    frame, meta = pyreadstat.read_sav(str(path), user_missing=True)
    by_code = {float(code): reason for reason, code in missing.CODES.items()}
    seen = Counter(
        tuple(by_code.get(frame.loc[i, q]) for q in ("q3", "q4", "q5"))
        for i in frame.index
    )
    assert seen == EXPECTED
    for name in ("q3", "q4", "q5"):
        assert meta.missing_ranges[name] == [{"lo": -9.0, "hi": -1.0}]
        for code in set(frame[name]) & set(by_code):
            assert (
                meta.variable_value_labels[name][code] == missing.LABELS[by_code[code]]
            )
    assert "q1" not in meta.missing_ranges
    plain, _ = pyreadstat.read_sav(str(path))
    assert plain["q4"].isna().sum() == sum(s is not None for _, s, _ in PEOPLE)


def test_dta_writes_extended_missing_values_with_their_labels(branching, tmp_path):
    path = _written(datasets.write_dta, branching, tmp_path / "wide.dta")
    frame, meta = pyreadstat.read_dta(str(path), user_missing=True)
    by_letter = {letter: reason for reason, letter in STATA_LETTERS.items()}
    seen = Counter(
        tuple(by_letter.get(frame.loc[i, q]) for q in ("q3", "q4", "q5"))
        for i in frame.index
    )
    assert seen == EXPECTED
    for name in ("q3", "q4", "q5"):
        letters = set(frame[name]) & set(by_letter)
        assert set(meta.missing_user_values[name]) == letters
        for letter in letters:
            assert (
                meta.variable_value_labels[name][letter]
                == missing.LABELS[by_letter[letter]]
            )


HAVEN = r"""
suppressPackageStartupMessages(library(haven))
dta <- read_dta("wide.dta")
sav <- read_sav("wide.sav", user_na = TRUE)
source("wide.R")
for (q in c("q3", "q4", "q5")) {
  tags <- ifelse(is.na(na_tag(dta[[q]])), "-", na_tag(dta[[q]]))
  cat("DTA", q, tags[order(dta$respondent)], "\n")
  cat("SAV", q, as.numeric(sav[[q]])[order(sav$respondent)], "\n")
  reason <- as.character(d[[paste0(q, "_missing")]])
  cat("R", q, is.na(d[[q]])[order(d$respondent)], "\n")
  cat("WHY", q, !is.na(reason)[order(d$respondent)], "\n")
  cat("LABEL", q, names(attr(sav[[q]], "labels")), "\n", sep = "|")
}
"""


@pytest.mark.slow
def test_haven_and_the_r_script_read_every_missing_value_back(branching, tmp_path):
    _written(datasets.write_dta, branching, tmp_path / "wide.dta")
    _written(datasets.write_sav, branching, tmp_path / "wide.sav")
    csv_name = f"survey-{branching.pk}-wide.csv"
    _written(datasets.write_wide_csv_bom, branching, tmp_path / csv_name)
    (tmp_path / "wide.R").write_text(dataset_r.r_script(branching), encoding="utf-8")
    (tmp_path / "read.R").write_text(HAVEN, encoding="utf-8")
    run = subprocess.run(
        ["Rscript", "--vanilla", "read.R"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    lines = {
        (parts[0], parts[1]): parts[2:]
        for parts in (line.split() for line in run.stdout.splitlines())
        if parts and parts[0] in {"DTA", "SAV", "R", "WHY"}
    }
    letters = {v: k for k, v in STATA_LETTERS.items()}
    codes = {str(c): reason for reason, c in missing.CODES.items()}
    for index, question in enumerate(("q3", "q4", "q5")):
        from_dta = [letters.get(tag) for tag in lines["DTA", question]]
        from_sav = [codes.get(value) for value in lines["SAV", question]]
        assert from_dta == from_sav
        assert Counter(from_dta) == Counter(row[index] for row in EXPECTED.elements())
        assert lines["R", question] == lines["WHY", question]
        assert lines["R", question] == [
            "TRUE" if reason else "FALSE" for reason in from_dta
        ]
    labels = [line for line in run.stdout.splitlines() if line.startswith("LABEL|q4|")]
    assert missing.LABELS[DECLINED] in labels[0].split("|")


def _codebook_rows(survey) -> dict[str, dict[str, str]]:
    text = "".join(datasets.codebook_csv_lines(survey))
    return {row["name"]: row for row in csv.DictReader(io.StringIO(text))}


SPSS_CODES = "SPSS: " + ", ".join(
    f"{missing.CODES[r]} {missing.LABELS[r]}" for r in missing.CODES
)
STATA_CODES = "Stata: " + ", ".join(
    f".{STATA_LETTERS[r]} {missing.LABELS[r]}" for r in missing.CODES
)


@pytest.mark.parametrize(
    ("column", "reason_column"),
    [("q1", None), ("q3", "q3_missing"), ("q4", "q4_missing"), ("q5", "q5_missing")],
)
def test_codebook_lists_each_files_missing_value_codes_and_the_reason_column(
    branching, column, reason_column
):
    said = _codebook_rows(branching)[column]["missing_values"]
    assert said.startswith(SPSS_CODES + " (user-missing); " + STATA_CODES + "; ")
    assert "-1 not shown" in said and "-3 declined" in said and ".b left blank" in said
    reason = f", the reason in {reason_column}" if reason_column else ""
    assert said.endswith("CSV/R: empty (NA)" + reason)


@pytest.mark.parametrize("column", ["respondent", "q3_missing"])
def test_codebook_gives_no_missing_value_codes_to_id_and_reason_columns(
    branching, column
):
    assert _codebook_rows(branching)[column]["missing_values"] == ""


def test_codebook_json_has_the_same_missing_values_as_the_csv(branching):
    document = datasets.codebook_document(branching)
    rows = _codebook_rows(branching)
    for variable in document["variables"]:
        assert variable["missing_values"] == rows[variable["name"]]["missing_values"]
