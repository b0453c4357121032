"""Privacy invariants at their boundary: the form, the models, the logs."""

from __future__ import annotations

import logging
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from surveys.collection.forms import ResponseForm
from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import JSON, body, questions
from tests.surveys.stored_reports import payload

pytestmark = pytest.mark.django_db


class Controls(HTMLParser):
    """Every form control on a page, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if tag in {"input", "select", "textarea", "button"}:
            self.controls.append({"tag": tag, **dict(attrs)})


def controls(html: str) -> list[dict[str, str | None]]:
    parser = Controls()
    parser.feed(html)
    return parser.controls


def test_private_answer_inputs_have_no_name(client, survey):
    page = client.get(reverse("collection:respond", args=[survey.public_token]))
    found = controls(page.content.decode())
    for question in survey.questions.filter(is_private=True):
        answers = [
            c
            for c in found
            if str(c.get("id", "")).startswith(f"id_q{question.pk}_answer")
        ]
        assert answers, f"no answer inputs rendered for {question.text}"
        assert all("name" not in c for c in answers)
        expected = {
            "numeric": {"text", "range"},
            "multi_select": {"checkbox"},
        }.get(question.kind, {"radio"})
        assert {c["type"] for c in answers} == expected


def test_the_only_named_fields_are_reports_keys_and_unprotected_answers(client, survey):
    page = client.get(reverse("collection:respond", args=[survey.public_token]))
    names = {c["name"] for c in controls(page.content.decode()) if c.get("name")}
    # "opened": the server's signed "page loaded while open" stamp (the grace
    # period after closing), the same for everyone loading the page then.
    expected = {"csrfmiddlewaretoken", "idempotency_key", "survey_revision", "opened"}
    # The language picker's own form (it posts to set_language, never with
    # the answers).
    expected.add("language")
    for q in survey.questions.all():
        if q.is_private:
            expected |= {f"q{q.pk}_report", f"q{q.pk}_spec_revision"}
        else:
            expected.add(f"q{q.pk}")
    assert names == expected


def test_named_fields_of_private_questions_are_hidden(client, survey):
    page = client.get(reverse("collection:respond", args=[survey.public_token]))
    private = [f"q{q.pk}_" for q in survey.questions.filter(is_private=True)]
    for control in controls(page.content.decode()):
        if any(str(control.get("name", "")).startswith(p) for p in private):
            assert control["type"] == "hidden"


@pytest.mark.parametrize("name", ["q{pk}_answer", "q{pk}"])
def test_form_refuses_a_posted_true_answer_without_reading_it(survey, name):
    warner = questions(survey)["warner"]
    data = body(survey) | {name.format(pk=warner.pk): "1"}
    form = ResponseForm(data, survey=survey)
    assert not form.is_valid()
    assert form.non_field_errors() == [
        f"Nothing was stored: the answer to “{warner.text}” arrived as given, but "
        "it is a protected question, so only its randomized report may be sent. "
        "Reload the page and answer again."
    ]
    assert form.cleaned_data[f"q{warner.pk}_answer"] is None


def test_collection_models_hold_no_field_for_a_true_answer():
    # A new field on these models must be reviewed: this list is the contract.
    fields = {
        model.__name__: sorted(f.name for f in model._meta.concrete_fields)
        for model in (Invitation, Submission, Report, PlainAnswer)
    }
    assert fields == {
        "Invitation": [
            "created_at",
            "hash_scheme",
            "id",
            "survey",
            "token_hash",
            "used",
        ],
        "Submission": [
            "id",
            "idempotency_key",
            "invited",  # through an invitation link, never which one
            "is_test",  # the owner's test mode: a flag, no answer
            # Empty unless the researcher declares it (Survey.record_language):
            # an unprotected field the consent page announces.
            "language",
            "public_id",
            "receipt_hash",
            "received_at",
            "survey",
            "survey_revision",
        ],
        "Report": [
            "bits",  # the randomized report, when it is bits (report_codec)
            "id",
            "is_test",  # its submission's flag, copied so counting needs no join
            "public_id",
            "question",
            "spec_revision",
            "submission",
            "survey",  # its question's survey, the partition key: no answer
            "value",  # the randomized report, when it is an integer
        ],
        # other_text: the words beside "Other, please specify" of an
        # unprotected question (never a protected one: a check constraint).
        "PlainAnswer": [
            "id",
            "other_text",
            "question",
            "submission",
            "survey",  # its submission's survey, the distribution column
            "value",
        ],
    }


def test_stored_reports_are_possible_outputs_and_plain_answers_unprotected(
    client, survey
):
    import ldp

    url = reverse("collection:respond", args=[survey.public_token])
    assert client.post(url, body(survey), **JSON).status_code == 201
    for report in Report.objects.select_related("question"):
        assert report.question.is_private
        ldp.build(report.question.spec).validate_report(payload(report))
    assert all(not a.question.is_private for a in PlainAnswer.objects.all())


def test_a_failing_submission_body_is_not_logged(client, survey, caplog):
    canary = "canary-bad-report-7f3a"
    answer_canary = "canary-true-answer-91c2"
    data = body(survey) | {
        f"q{questions(survey)['grr'].pk}_report": f'"{canary}"',
        f"q{questions(survey)['warner'].pk}_answer": answer_canary,
    }
    url = reverse("collection:respond", args=[survey.public_token])
    with caplog.at_level(logging.DEBUG):
        response = client.post(url, data, **JSON)
        html_response = client.post(url, data)
    assert response.status_code == 400
    assert html_response.status_code == 400
    assert caplog.records, "expected Django to log the 4xx request line"
    for record in caplog.records:
        for secret in (canary, answer_canary):
            assert secret not in record.getMessage()
            assert secret not in repr(record.__dict__)
    # The sender may see their own bad report named; never a true answer.
    assert answer_canary not in html_response.content.decode()
    assert not Submission.objects.exists()
