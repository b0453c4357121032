"""Typed words (open text, "Other, please specify") in every per-respondent
file, and in the tallies only as "answered"."""

from __future__ import annotations

import csv
import io
import json
import uuid

import pyreadstat
import pytest

from surveys.analysis.exports import dataset_r, datasets, raw_reports
from surveys.analysis.models import PlainAnswerTally
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk
from tests.surveys.analysis.conftest import release

pytestmark = pytest.mark.django_db

ANSWERS = [
    ("Lyon", "Fine.\nThanks", 2, "Teal"),
    ("=cmd()", "", 0, ""),
    ("Zürich", "Ça va", 1, ""),
]


@pytest.fixture
def survey(researcher):
    survey = authoring.survey_create(owner=researcher, title="Words")
    made = [
        authoring.question_create(
            survey=survey,
            text=text,
            privacy=config,
            not_private_acknowledged=True,
            optional=optional,
        )
        for text, config, optional in (
            ("Your town?", PrivacyConfig(kind="short_text", is_private=False), False),
            ("Anything else?", PrivacyConfig(kind="long_text", is_private=False), True),
            (
                "Colour?",
                PrivacyConfig(
                    kind="single_choice",
                    is_private=False,
                    options=("Red", "Green"),
                    other_option=True,
                ),
                False,
            ),
            ("Cheated?", PrivacyConfig(kind="yes_no", epsilon=1.0), False),
        )
    ]
    survey = authoring.survey_publish(survey=survey, user=researcher)
    town, comment, colour, cheated = made
    cheated.refresh_from_db()
    responses = [
        ResponseIn(
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
            reports={cheated.pk: SentReport(cheated.spec_revision, 1)},
            plain_answers={
                town.pk: t,
                colour.pk: c,
                **({comment.pk: words} if words else {}),
            },
            other_texts={colour.pk: other} if other else {},
            skipped=frozenset() if words else frozenset({comment.pk}),
        )
        for t, words, c, other in ANSWERS
    ]
    submissions_ingest_bulk(survey=survey, responses=responses)
    release(survey)
    return survey


def _bytes(writer, survey) -> bytes:
    buffer = io.BytesIO()
    writer(survey, buffer)
    return buffer.getvalue()


def _expected() -> list[dict[str, str]]:
    colours = ["Red", "Green", "Other"]
    return sorted(
        ({"q1": t, "q2": w, "q3": colours[c], "q3_other": o} for t, w, c, o in ANSWERS),
        key=lambda row: row["q1"],
    )


def test_the_wide_csv_carries_typed_words_as_strings_neutralised(survey):
    text = _bytes(datasets.write_wide_csv, survey).decode("utf-8")
    rows = [
        {k: row[k] for k in ("q1", "q2", "q3", "q3_other")}
        for row in csv.DictReader(io.StringIO(text))
    ]
    expected = _expected()
    expected[0]["q1"] = "'=cmd()"  # a formula is never run by a spreadsheet
    assert sorted(rows, key=lambda row: row["q1"]) == expected


@pytest.mark.parametrize(
    ("writer", "reader"),
    [
        (datasets.write_sav, pyreadstat.read_sav),
        (datasets.write_dta, pyreadstat.read_dta),
    ],
    ids=["spss", "stata"],
)
def test_spss_and_stata_files_carry_typed_words_as_string_variables(
    survey, tmp_path, writer, reader
):
    path = tmp_path / f"{uuid.uuid4().hex}.bin"
    path.write_bytes(_bytes(writer, survey))
    frame, _ = reader(str(path))
    got = sorted(
        zip(frame["q1"], frame["q2"], frame["q3_other"], strict=True),
        key=lambda row: row[0],
    )
    assert got == sorted((t, w, o) for t, w, _, o in ANSWERS)


def test_the_r_script_reads_typed_words_as_character_columns(survey):
    script = dataset_r.r_script(survey)
    for name in ("q1", "q2", "q3_other"):
        assert f'"{name}" = "character"' in script
    book = {v.name: v for v in datasets.variables(survey)}
    assert "can identify the respondent" in book["q3_other"].label


def test_raw_reports_json_carries_the_words_beside_other(survey):
    document = json.loads("".join(raw_reports.reports_json(survey)))
    others = [a["other_text"] for a in document["plain_answers"] if "other_text" in a]
    assert others == ["Teal"]


def test_typed_words_are_tallied_only_as_answered_never_copied(survey):
    tallied = set(PlainAnswerTally.objects.values_list("question__text", "value"))
    assert ("Your town?", True) in tallied and ("Anything else?", True) in tallied
    words = {t for t, _, _, _ in ANSWERS} | {w for _, w, _, _ in ANSWERS if w}
    assert not {value for _, value in tallied} & words
    counts = dict(
        PlainAnswerTally.objects.filter(question__text="Your town?").values_list(
            "value", "count"
        )
    )
    assert counts == {True: 3}
