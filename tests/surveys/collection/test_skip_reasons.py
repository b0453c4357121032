"""How a shown optional question was left: declined, left blank, or (a marker
sent before the two were told apart) unknown; each stored as such."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.collection import missing
from surveys.collection.forms import ResponseForm
from surveys.collection.models import SkippedAnswer
from surveys.collection.responses import SubmissionRejected
from surveys.collection.services import submission_ingest
from tests.surveys.collection.conftest import JSON, body, valid_reports
from tests.surveys.collection.test_skips import ids, optional_survey, response

pytestmark = pytest.mark.django_db
__all__ = ["optional_survey"]


def marked(survey, marker: str) -> dict[str, str]:
    required, optional, plain = ids(survey)
    data = body(survey, reports={required: valid_reports(survey)[required]})
    del data[f"q{plain}"]
    del data[f"q{optional}_spec_revision"]
    data[f"q{optional}_skipped"] = marker
    data[f"q{plain}_skipped"] = marker
    return data


@pytest.mark.parametrize(
    ("marker", "stored"),
    [("declined", "declined"), ("blank", "blank"), ("skipped", "unknown")],
)
def test_each_marker_is_stored_with_its_reason(client, optional_survey, marker, stored):
    url = reverse("collection:respond", args=[optional_survey.public_token])
    answer = client.post(url, marked(optional_survey, marker), **JSON)
    assert answer.status_code == 201, answer.content
    assert set(SkippedAnswer.objects.values_list("reason", flat=True)) == {stored}


def test_a_marker_of_another_value_is_refused(optional_survey):
    form = ResponseForm(marked(optional_survey, "maybe"), survey=optional_survey)
    assert not form.is_valid()
    assert any("allowed: blank, declined, skipped" in p for p in form.problems())


def test_an_optional_plain_question_sent_with_nothing_is_left_blank(optional_survey):
    _, _, plain = ids(optional_survey)
    data = body(optional_survey)
    del data[f"q{plain}"]
    form = ResponseForm(data, survey=optional_survey)
    assert form.is_valid(), form.errors
    assert form.response().skip_reasons == {plain: missing.BLANK}


def test_an_optional_protected_question_needs_its_marker(optional_survey):
    _, optional, _ = ids(optional_survey)
    data = body(optional_survey)
    del data[f"q{optional}_report"]
    form = ResponseForm(data, survey=optional_survey)
    assert not form.is_valid()
    assert any("No randomized report arrived" in p for p in form.problems())


def test_only_a_required_plain_choice_carries_required(client, optional_survey):
    page = client.get(
        reverse("collection:respond", args=[optional_survey.public_token])
    ).content.decode()
    _, _, plain = ids(optional_survey)
    start = page.index(f'id="question-{plain}"')
    block = page[start : page.index("</fieldset>", start)]
    assert 'name="q' in block
    assert " required" not in block


def test_the_page_turns_off_the_browsers_own_checks(client, optional_survey):
    page = client.get(
        reverse("collection:respond", args=[optional_survey.public_token])
    ).content.decode()
    assert "data-respond novalidate" in page


@pytest.mark.parametrize("reason", ["perhaps", ""])
def test_ingestion_refuses_an_unknown_reason(optional_survey, reason):
    required, optional, _ = ids(optional_survey)
    sent = response(optional_survey)
    with pytest.raises(SubmissionRejected, match="not reasons for a skip"):
        submission_ingest(
            survey=optional_survey,
            response=response(
                optional_survey,
                reports={required: sent.reports[required]},
                skipped=frozenset({optional}),
                skip_reasons={optional: reason},
            ),
        )


def test_ingestion_refuses_a_reason_for_an_answered_question(optional_survey):
    _, optional, _ = ids(optional_survey)
    with pytest.raises(SubmissionRejected, match="which were not skipped"):
        submission_ingest(
            survey=optional_survey,
            response=response(optional_survey, skip_reasons={optional: "blank"}),
        )


def test_the_device_is_given_the_forms_own_messages(optional_survey):
    required, _, plain = ids(optional_survey)
    messages = ResponseForm(survey=optional_survey).js_config()["messages"]
    assert messages[str(required)]["required"] == "Please answer “Required?”."
    assert messages[str(plain)]["required"] == "Please answer “Favourite colour?”."
