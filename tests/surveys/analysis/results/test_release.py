"""The release rule: one released watermark, the same n on every surface."""

from __future__ import annotations

import csv
import io
import tempfile
import uuid

import pyreadstat
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from surveys.analysis.models import ResultSnapshot, TallyWatermark
from surveys.analysis.results import answer_counts, release, selectors
from surveys.analysis.tallies import answers, services, snapshots
from surveys.api_tokens.services import api_token_create
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.authoring.selectors import survey_released_count
from surveys.collection.models import Submission
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submission_withdraw, submissions_ingest_bulk
from tests.surveys.analysis.conftest import untallied
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db

HELD = "3 responses held back"


def _body(response) -> bytes:
    assert response.status_code == 200
    if isinstance(response, StreamingHttpResponse):
        return b"".join(response.streaming_content)
    return response.content


def _csv(client, name: str, survey) -> list[dict[str, str]]:
    body = _body(client.get(reverse(f"analysis:{name}", args=[survey.pk])))
    return list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))


def _stat_file_rows(client, name: str, survey, read) -> int:
    body = _body(client.get(reverse(f"analysis:{name}", args=[survey.pk])))
    with tempfile.NamedTemporaryFile() as spooled:
        spooled.write(body)
        spooled.flush()
        frame, _ = read(spooled.name)
    return len(frame)


def _surfaces(client, survey, secret: str) -> dict[str, int]:
    """The n each surface shows a researcher, read as a researcher reads it."""
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    live = client.get(reverse("analysis:dashboard_live", args=[survey.pk])).json()
    assert HELD in live["freshness"]
    api = reverse("analysis:api_survey", args=[survey.pk])
    estimates = client.get(api, **auth).json()
    assert estimates["pending_responses"] == 3
    listed = client.get(reverse("analysis:api_surveys"), **auth).json()["surveys"]
    reports = client.get(reverse("analysis:api_reports", args=[survey.pk]), **auth)
    raw = _csv(client, "export_reports_csv", survey)
    private = survey.questions.filter(is_private=True).count()
    return {
        "dashboard": live["responses"],
        "api estimates": estimates["responses"],
        "api list": next(s["responses"] for s in listed if s["id"] == survey.pk),
        "api reports": len(reports.json()["reports"]) // private,
        "raw csv reports": len(
            {r["submission_id"] for r in raw if r["record"] == "report"}
        ),
        "raw csv answers": len(
            {r["submission_id"] for r in raw if r["record"] == "answer"}
        ),
        "wide csv": len(_csv(client, "export_wide_csv", survey)),
        "spss": _stat_file_rows(client, "export_sav", survey, pyreadstat.read_sav),
        "stata": _stat_file_rows(client, "export_dta", survey, pyreadstat.read_dta),
    }


def test_k_10_and_13_responses_every_surface_shows_10_and_3_held_even_after_close(
    ada_client, ada, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    survey = make_survey(ada)
    secret = api_token_create(user=ada, name="script").secret
    simulate(survey, 10)
    ada_client.get(reverse("analysis:dashboard", args=[survey.pk]))  # released
    simulate(survey, 3, seed=2)
    everywhere_ten = dict.fromkeys(_surfaces(ada_client, survey, secret), 10)
    assert _surfaces(ada_client, survey, secret) == everywhere_ten
    assert ResultSnapshot.objects.get(survey=survey).responses == 10

    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    assert _surfaces(ada_client, survey, secret) == everywhere_ten
    live = ada_client.get(reverse("analysis:dashboard_live", args=[survey.pk])).json()
    assert "the survey is closed, so they stay stored" in live["freshness"]
    # Nothing accepted is lost: the held responses are stored, not released.
    stored = Submission.objects.filter(survey=survey, is_test=False)
    assert (stored.count(), survey_released_count(survey=survey)) == (13, 10)


# --- submissions with no protected report ----------------------------------------
def _survey_with(owner, *, protected: bool) -> Survey:
    """A plain yes/no and, ``protected``, an optional protected yes/no."""
    survey = authoring.survey_create(owner=owner, title="Plain", epsilon_budget=8)
    authoring.question_create(
        survey=survey,
        text="Employed",
        privacy=PrivacyConfig("yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    if protected:
        authoring.question_create(
            survey=survey,
            text="Ever cheated",
            privacy=PrivacyConfig(
                kind="yes_no", epsilon=1.0, mechanism="warner", options=YES_NO_OPTIONS
            ),
            optional=True,
        )
    return authoring.survey_publish(survey=survey, user=owner)


def _respond(survey: Survey, *, reporting: bool) -> None:
    """One response: the plain answer and, ``reporting``, a protected report
    (else the protected question, if any, declined)."""
    employed = survey.questions.get(is_private=False)
    private = survey.questions.filter(is_private=True).first()
    reports = (
        {private.pk: SentReport(private.spec_revision, 1)}
        if reporting and private
        else {}
    )
    submissions_ingest_bulk(
        survey=survey,
        responses=[
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports=reports,
                plain_answers={employed.pk: 1},
                skipped=frozenset({private.pk})
                if private and not reporting
                else frozenset(),
            )
        ],
    )


def _released_n(survey: Survey) -> dict[str, int]:
    """The n of the results, the survey lists and API, and the exports
    (after a refresh and a snapshot), and checks that the tallies count every
    stored submission's plain answer, released or held back."""
    services.tallies_refresh(survey_id=survey.pk)
    snapshots.snapshot_refresh(survey_id=survey.pk)
    snapshot = ResultSnapshot.objects.get(survey=survey)
    _, bound = release.released_bounds(survey_id=survey.pk)
    stored = Submission.objects.filter(survey=survey).count()
    plain = answer_counts.stored_counts(survey_id=survey.pk).by_question()
    employed = survey.questions.get(is_private=False).pk
    assert TallyWatermark.objects.get(survey=survey).responses == stored
    assert sum(count for _, count in plain.get(employed, [])) == stored
    return {
        "results": snapshot.responses,
        "released": survey_released_count(survey=survey),
        "exports": Submission.objects.filter(
            release.in_release(
                survey_id=survey.pk, last_submission_id=bound, field="", with_test=False
            )
        ).count(),
    }


def test_a_survey_of_unprotected_questions_only_is_released_by_batches_of_k(
    ada, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 3
    survey = _survey_with(ada, protected=False)
    with untallied():
        _respond(survey, reporting=False)
        _respond(survey, reporting=False)
    assert _released_n(survey) == dict.fromkeys(("results", "released", "exports"), 0)

    with untallied():
        _respond(survey, reporting=False)

    assert _released_n(survey) == dict.fromkeys(("results", "released", "exports"), 3)


def test_submissions_that_declined_every_protected_question_wait_for_their_batch(
    ada, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 2
    survey = _survey_with(ada, protected=True)
    with untallied():
        _respond(survey, reporting=True)
        _respond(survey, reporting=False)
    assert set(_released_n(survey).values()) == {2}

    with untallied():
        _respond(survey, reporting=False)  # alone: held back
    assert set(_released_n(survey).values()) == {2}
    assert selectors.latest_results(survey=survey).results.pending_responses == 1
    with untallied():
        _respond(survey, reporting=False)
        _respond(survey, reporting=True)

    assert set(_released_n(survey).values()) == {5}
    assert Submission.objects.filter(survey=survey).count() == 5


def test_a_withdrawn_submission_with_no_protected_report_leaves_the_count(
    ada, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 1
    survey = _survey_with(ada, protected=True)
    with untallied():
        _respond(survey, reporting=True)
        _respond(survey, reporting=False)
    services.tallies_refresh(survey_id=survey.pk)

    submission_withdraw(submission=Submission.objects.filter(survey=survey).last())

    mark = TallyWatermark.objects.get(survey=survey)
    assert mark.responses == 1
    assert answer_counts.stored_counts(survey_id=survey.pk).by_question() == (
        answers.counts_up_to(
            survey_id=survey.pk, last_submission_id=mark.last_submission_id
        ).by_question()
    )
