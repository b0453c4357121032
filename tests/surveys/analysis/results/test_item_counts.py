"""Item counts: every question's answered, not shown (display logic), left
blank and declined, counted by the tallies and shown alike by the dashboard,
the API and the estimates CSV."""

from __future__ import annotations

import csv
import io
import json
import uuid

import numpy as np
import pytest
from django.urls import reverse

import ldp
from surveys.analysis.models import TallyWatermark
from surveys.analysis.results import answer_counts, selectors
from surveys.analysis.results.objects import ItemCounts
from surveys.analysis.tallies import answers, services, snapshots
from surveys.api_tokens.services import api_token_create
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import missing
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submissions_ingest_bulk

pytestmark = pytest.mark.django_db


@pytest.fixture
def branching(ada) -> Survey:
    """A required protected question, a required unprotected "Do you
    drive?", a protected follow-up shown on "Yes", an optional protected
    question and an optional unprotected one."""
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
    return authoring.survey_publish(survey=survey, user=ada)


# (drives, speeding left how, age band left how): None is answered.
PEOPLE = [
    (1, None, None),
    (1, missing.DECLINED, missing.BLANK),
    (0, None, missing.DECLINED),
    (0, missing.BLANK, None),
    (0, missing.UNKNOWN, missing.UNKNOWN),
]
EXPECTED = {
    "Ever late?": ItemCounts(0, 5, 0, 0, 0, 0),
    "Do you drive?": ItemCounts(0, 5, 0, 0, 0, 0),
    "Driven after drinking?": ItemCounts(0, 2, 3, 0, 0, 0),
    "Speeding?": ItemCounts(0, 2, 0, 1, 1, 1),
    "Age band?": ItemCounts(0, 2, 0, 1, 1, 1),
}


def submit(survey: Survey) -> None:
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
        left = {pk: how for pk, how in ((speeding.pk, speed), (band.pk, age)) if how}
        if speed is None:
            reports[speeding.pk] = report(speeding)
        plain = {drives.pk: drove, **({} if age else {band.pk: 0})}
        responses.append(
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports=reports,
                plain_answers=plain,
                skipped=frozenset(left),
                skip_reasons={
                    pk: how for pk, how in left.items() if how != missing.UNKNOWN
                },
            )
        )
    submissions_ingest_bulk(survey=survey, responses=responses)


def counts_by_text(survey: Survey, results) -> dict[str, ItemCounts]:
    texts = dict(survey.questions.values_list("pk", "text"))
    return {
        texts[i.question_id]: ItemCounts(0, *list(vars(i).values())[1:])
        for i in results.item_counts
    }


@pytest.fixture
def counted(branching) -> Survey:
    submit(branching)
    services.tallies_refresh(survey_id=branching.pk)
    snapshots.snapshot_refresh(survey_id=branching.pk, force=True)
    return branching


def test_the_snapshot_counts_answered_not_shown_blank_and_declined(counted):
    results = selectors.latest_results(survey=counted).results
    assert counts_by_text(counted, results) == EXPECTED


def test_skip_tallies_by_reason_equal_a_recount(counted):
    stored = answer_counts.stored_counts(survey_id=counted.pk).skip_reasons()
    recount = answers.counts_up_to(
        survey_id=counted.pk,
        last_submission_id=TallyWatermark.objects.get(
            survey_id=counted.pk
        ).last_submission_id,
    ).skip_reasons()
    assert stored == recount
    assert sorted(stored.values(), key=str)[0] == {
        "declined": 1,
        "blank": 1,
        "unknown": 1,
    }


def test_the_dashboard_shows_every_questions_four_counts(counted, ada_client):
    html = ada_client.get(reverse("analysis:dashboard", args=[counted.pk])).content
    page = html.decode()
    for question in counted.questions.all():
        expected = EXPECTED[question.text]
        start = page.index(f'data-item-counts="{question.pk}"')
        line = page[start : page.index("</p>", start)]
        for name in ("answered", "not_shown", "left_blank", "declined"):
            assert f'data-field="{name}">{getattr(expected, name)}<' in line
        # The unknown (declined or blank) count only where there is one.
        assert ('data-field="unknown"' in line) == bool(expected.unknown)


def test_the_api_gives_every_questions_four_counts(client, ada, counted):
    secret = api_token_create(user=ada, name="script").secret
    document = client.get(
        reverse("analysis:api_survey", args=[counted.pk]),
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    ).json()
    found = {
        q["text"]: q["item_counts"]
        for q in document["questions"] + document["not_protected"]
    }
    assert found == {
        text: {k: v for k, v in vars(c).items() if k != "question_id"}
        for text, c in EXPECTED.items()
    }


def test_the_estimates_csv_gives_every_questions_four_counts(ada_client, counted):
    url = reverse("analysis:export_estimates_csv", args=[counted.pk])
    body = ada_client.get(url).content
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    found = {
        row["question"]: ItemCounts(
            0,
            *(
                int(row[k])
                for k in ("answered", "not_shown", "left_blank", "declined", "unknown")
            ),
        )
        for row in rows
    }
    assert found == EXPECTED


@pytest.mark.parametrize("file", ["reports_csv", "reports_json"])
def test_the_raw_export_codes_every_unanswered_question(ada_client, counted, file):
    texts = dict(counted.questions.values_list("pk", "text"))
    name = "export_" + file
    body = ada_client.get(reverse(f"analysis:{name}", args=[counted.pk]))
    text = b"".join(body.streaming_content).decode()
    if file == "reports_csv":
        rows = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        found = [
            (texts[int(r["question_id"])], int(r["value"]))
            for r in rows
            if r["record"] == "missing"
        ]
    else:
        document = json.loads(text)
        assert [c["code"] for c in document["missing_codes"]] == [-1, -2, -3, -9]
        found = [(texts[m["question_id"]], m["code"]) for m in document["missing"]]
    assert sorted(found) == sorted(
        [("Driven after drinking?", -1)] * 3
        + [("Speeding?", code) for code in (-3, -2, -9)]
        + [("Age band?", code) for code in (-2, -3, -9)]
    )
