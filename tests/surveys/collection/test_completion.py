"""After submitting: the survey's one completion code and its redirect."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring.models import Survey
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db

PROLIFIC = "https://app.prolific.com/submissions/complete?cc={code}"


@pytest.fixture
def panel_survey(survey) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(
        completion_code="C0DE42", completion_redirect_url=PROLIFIC
    )
    survey.refresh_from_db()
    return survey


def submit(client, survey: Survey) -> dict:
    url = reverse("collection:respond", args=[survey.public_token])
    return client.post(url, body(survey), **JSON).json()


def test_the_device_is_given_the_redirect_with_the_code(client, panel_survey):
    answer = submit(client, panel_survey)
    assert answer["redirect_url"] == (
        "https://app.prolific.com/submissions/complete?cc=C0DE42"
    )
    assert answer["receipt_url"].startswith("/s/receipt/")


def test_without_a_redirect_the_device_goes_to_the_receipt(client, survey):
    assert submit(client, survey)["redirect_url"] == ""


def test_the_receipt_shows_the_code_and_a_link_that_sends_no_referrer(
    client, panel_survey
):
    page = client.get(submit(client, panel_survey)["receipt_url"]).content.decode()
    assert "<strong data-completion-code>C0DE42</strong>" in page
    assert "the same for everyone" in page
    assert (
        'href="https://app.prolific.com/submissions/complete?cc=C0DE42" '
        'data-completion-link rel="noreferrer"' in page
    )


def test_a_receipt_of_a_survey_without_a_code_has_no_completion_section(client, survey):
    page = client.get(submit(client, survey)["receipt_url"]).content.decode()
    assert "Completing the study" not in page
