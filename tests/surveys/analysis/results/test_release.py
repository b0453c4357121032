"""The release rule: one released watermark, the same n on every surface."""

from __future__ import annotations

import csv
import io
import tempfile

import pyreadstat
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from surveys.analysis.models import ResultSnapshot
from surveys.api_tokens.services import api_token_create
from surveys.authoring.models import Survey
from surveys.collection.models import Submission
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
    assert (stored.count(), stored.filter(released=True).count()) == (13, 10)
