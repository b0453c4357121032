"""Display logic on submission: a hidden question arrives with nothing at all."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.answer_fields import SKIP_MARKER
from surveys.collection.forms import ResponseForm
from surveys.collection.models import Report, Submission
from tests.surveys.collection.conftest import JSON, body, valid_reports

pytestmark = pytest.mark.django_db


@pytest.fixture
def branching(researcher) -> Survey:
    """An unprotected "Do you drive?" and a protected follow-up shown on "Yes"."""
    survey = authoring.survey_create(owner=researcher, title="Driving")
    drives = authoring.question_create(
        survey=survey,
        text="Do you drive?",
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="Have you driven after drinking?",
        privacy=PrivacyConfig(kind="yes_no"),
        show_if={"question": drives.pk, "any_of": [1]},
    )
    return authoring.survey_publish(survey=survey, user=researcher)


def _ids(survey):
    drives, follow = survey.questions.all()
    return drives.pk, follow.pk


def _body(survey, *, drives: int, with_report: bool):
    _, follow = _ids(survey)
    data = body(survey, plain=drives)
    if not with_report:
        del data[f"q{follow}_report"]
        del data[f"q{follow}_spec_revision"]
    return data


def _post(client, survey, data):
    url = reverse("collection:respond", args=[survey.public_token])
    return client.post(url, data, **JSON)


def test_a_hidden_question_sends_nothing_and_the_submission_is_stored(
    client, branching
):
    answer = _post(client, branching, _body(branching, drives=0, with_report=False))
    assert answer.status_code == 201, answer.content
    assert Submission.objects.count() == 1
    assert not Report.objects.exists()


@pytest.mark.parametrize(
    ("drives", "with_report", "problem"),
    [(0, True, "was not shown"), (1, False, "No randomized report arrived")],
    ids=["a-report-for-a-hidden-question", "a-shown-question-without-its-report"],
)
def test_reports_that_disagree_with_the_display_logic_are_refused_and_nothing_stored(
    client, branching, drives, with_report, problem
):
    data = _body(branching, drives=drives, with_report=with_report)
    answer = _post(client, branching, data)
    assert answer.status_code == 400
    assert problem in answer.content.decode()
    assert not Submission.objects.exists()


def test_a_skip_marker_for_a_hidden_question_is_refused(branching):
    _, follow = _ids(branching)
    data = _body(branching, drives=0, with_report=False)
    data[f"q{follow}_skipped"] = SKIP_MARKER
    form = ResponseForm(data, survey=branching)
    assert not form.is_valid()
    assert any("was not shown" in p for p in form.problems())


def test_a_shown_question_stores_its_report(client, branching):
    answer = _post(client, branching, _body(branching, drives=1, with_report=True))
    assert answer.status_code == 201, answer.content
    _, follow = _ids(branching)
    assert list(Report.objects.values_list("question_id", flat=True)) == [follow]


def test_the_device_is_told_each_questions_condition(client, branching):
    drives, follow = _ids(branching)
    page = client.get(reverse("collection:respond", args=[branching.public_token]))
    html = page.content.decode()
    start = html.index('id="device-config"')
    config = json.loads(
        html[html.index(">", start) + 1 : html.index("</script>", start)]
    )
    assert config["logic"] == {str(follow): {"question": drives, "any_of": [1]}}


def test_estimates_count_only_respondents_shown_the_question(client, branching):
    from surveys.analysis.results import selectors
    from surveys.analysis.tallies import services, snapshots

    for drives, with_report in ((0, False), (1, True), (1, True), (0, False)):
        data = _body(branching, drives=drives, with_report=with_report)
        assert _post(client, branching, data).status_code == 201
    services.tallies_refresh(survey_id=branching.pk)
    snapshots.snapshot_refresh(survey_id=branching.pk, force=True)
    (result,) = selectors.latest_results(survey=branching).results.questions
    assert result.n == 2


def test_valid_reports_cover_the_follow_up(branching):
    _, follow = _ids(branching)
    assert follow in valid_reports(branching)
