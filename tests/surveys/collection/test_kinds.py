"""Private ordinal, numeric and multi-select questions: form, service, receipt."""

from __future__ import annotations

import uuid
from html.parser import HTMLParser

import numpy as np
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ldp
from surveys.authoring.models import Question, Survey
from surveys.collection import services
from surveys.collection.forms import ResponseForm
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.respondent_words import describe_report
from surveys.collection.responses import ResponseIn, SentReport, SubmissionRejected
from tests.surveys.collection.conftest import (
    JSON,
    OPTIONS,
    SCALE,
    body,
    questions,
    valid_reports,
)

pytestmark = pytest.mark.django_db


def response(survey: Survey, reports=None, plain=None) -> ResponseIn:
    sent = valid_reports(survey) | (reports or {})
    plain_question = questions(survey)["plain"]
    return ResponseIn(
        idempotency_key=uuid.uuid4(),
        survey_revision=survey.revision,
        reports={
            pk: SentReport(spec_revision=1, payload=payload)
            for pk, payload in sent.items()
        },
        plain_answers={plain_question.pk: [0, 2] if plain is None else plain},
    )


def nothing_stored() -> bool:
    return not (
        Submission.objects.exists()
        or Report.objects.exists()
        or PlainAnswer.objects.exists()
    )


# --- the form ---------------------------------------------------------------------
class Page(HTMLParser):
    """Every control and label, with the question fieldset it sits in."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[dict] = []
        self.labels: dict[str, str] = {}
        self.question: str | None = None
        self._label: str | None = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "fieldset":
            self.question = attrs.get("id")
        if tag in {"input", "select", "textarea", "button"}:
            self.controls.append({"tag": tag, "question": self.question, **attrs})
        if tag == "label":
            self._label = attrs.get("for")
            self.labels.setdefault(self._label, "")

    def handle_data(self, data):
        if self._label is not None:
            self.labels[self._label] += data

    def handle_endtag(self, tag):
        if tag == "label":
            self._label = None
        if tag == "fieldset":
            self.question = None


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


def form_page(client, survey: Survey) -> tuple[str, Page]:
    html = client.get(reverse("collection:respond", args=[survey.public_token]))
    assert html.status_code == 200
    text = html.content.decode()
    return text, parse(text)


def test_every_private_input_of_every_kind_has_no_name(client, kinds_survey):
    _, page = form_page(client, kinds_survey)
    for question in kinds_survey.questions.filter(is_private=True):
        inside = [
            c for c in page.controls if c["question"] == f"question-{question.pk}"
        ]
        visible = [c for c in inside if c.get("type") != "hidden"]
        assert visible, question.text
        assert all("name" not in c for c in visible), question.text
        hidden = {c["name"] for c in inside if c.get("type") == "hidden"}
        assert hidden == {f"q{question.pk}_report", f"q{question.pk}_spec_revision"}


def test_ordinal_radios_are_in_scale_order_with_index_values(client, kinds_survey):
    _, page = form_page(client, kinds_survey)
    q = questions(kinds_survey)["ordinal"]
    radios = [c for c in page.controls if c["question"] == f"question-{q.pk}"]
    radios = [c for c in radios if c.get("type") == "radio"]
    assert [c["value"] for c in radios] == ["0", "1", "2", "3", "4"]
    assert [page.labels[c["id"]] for c in radios] == list(SCALE)


def test_numeric_is_a_labelled_box_and_slider_showing_range_and_step(
    client, kinds_survey
):
    text, page = form_page(client, kinds_survey)
    q = questions(kinds_survey)["geometric"]
    base = f"id_q{q.pk}_answer"
    box, slider = (
        next(c for c in page.controls if c.get("id") == f"{base}_{part}")
        for part in ("value", "slider")
    )
    assert box["type"] == "text" and box["inputmode"] == "decimal"
    assert slider["type"] == "range"
    assert (slider["min"], slider["max"], slider["step"]) == ("0", "9", "1")
    assert "a number from 0.5 to 5, in steps of 0.5" in page.labels[box["id"]]
    assert page.labels[slider["id"]].strip()
    assert "From 0.5 to 5; each step is 0.5." in text
    assert f'aria-describedby="{base}_range"' in text


def test_multi_select_checkboxes_state_the_limit(client, kinds_survey):
    text, page = form_page(client, kinds_survey)
    q = questions(kinds_survey)
    padded = q["padding_sampling"]
    boxes = [
        c
        for c in page.controls
        if c["question"] == f"question-{padded.pk}" and c.get("type") == "checkbox"
    ]
    assert [c["value"] for c in boxes] == [str(i) for i in range(len(OPTIONS))]
    assert [page.labels[c["id"]] for c in boxes] == list(OPTIONS)
    assert 'data-max-selections="3"' in text
    assert "Choose up to 3 options, or none." in text
    assert "Choose any number of options, or none." in text  # multi_rr
    assert "Choose up to 2 options, or none." in text  # the plain question


def test_js_config_carries_kind_spec_and_limit(kinds_survey):
    config = {
        q["id"]: q for q in ResponseForm(survey=kinds_survey).js_config()["questions"]
    }
    q = questions(kinds_survey)
    assert config[q["geometric"].pk]["kind"] == "numeric"
    assert config[q["geometric"].pk]["spec"]["step"] == "0.5"
    assert config[q["padding_sampling"].pk]["max_selections"] == 3
    assert config[q["multi_rr"].pk]["max_selections"] is None
    assert q["plain"].pk not in config


def test_a_true_answer_posted_for_a_new_kind_is_refused_and_never_stored(
    client, kinds_survey
):
    q = questions(kinds_survey)
    data = body(kinds_survey, plain=0)
    data[f"q{q['plain'].pk}"] = ["0", "2"]
    url = reverse("collection:respond", args=[kinds_survey.public_token])
    for name, value in (("geometric", "3.5"), ("padding_sampling", ["1", "2"])):
        sent = data | {f"q{q[name].pk}_answer": value}
        response = client.post(url, sent, **JSON)
        assert response.status_code == 400
        assert "protected question" in response.json()["error"]
        assert "3.5" not in response.content.decode()
    assert not Report.objects.exists() and not PlainAnswer.objects.exists()
    assert client.post(url, data, **JSON).status_code == 201
    assert PlainAnswer.objects.get().value == [0, 2]


# --- the service: out-of-domain reports -------------------------------------------
def outputs(name: str, survey: Survey) -> int:
    """How many reports a single-output mechanism can send."""
    return ldp.build(questions(survey)[name].spec).outputs


SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
junk = (
    st.none()
    | st.booleans()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
)


@pytest.mark.slow  # generated reports through the ingest service
@SETTINGS
@given(
    name=st.sampled_from(["ordinal", "geometric", "gaussian", "duchi", "piecewise"]),
    value=st.integers(min_value=-(2**40), max_value=2**40) | junk,
)
def test_single_output_kinds_refuse_reports_outside_their_range(
    kinds_survey, name, value
):
    size = outputs(name, kinds_survey)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size:
        return  # a possible output
    q = questions(kinds_survey)[name]
    with pytest.raises(SubmissionRejected, match="not one the randomizer can send"):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, {q.pk: value})
        )
    assert nothing_stored()


@pytest.mark.slow  # generated reports through the ingest service
@SETTINGS
@given(value=st.integers(min_value=-(2**40), max_value=2**40) | junk)
def test_padding_sampling_refuses_items_outside_k_plus_ell(kinds_survey, value):
    q = questions(kinds_survey)["padding_sampling"]
    items = len(OPTIONS) + 3
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < items:
        return
    with pytest.raises(SubmissionRejected, match="not one the randomizer can send"):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, {q.pk: value})
        )
    assert nothing_stored()


@pytest.mark.slow  # generated reports through the ingest service
@SETTINGS
@given(value=st.lists(st.integers(min_value=-2, max_value=3), max_size=8) | junk)
def test_multi_rr_refuses_anything_but_k_bits(kinds_survey, value):
    q = questions(kinds_survey)["multi_rr"]
    if (
        isinstance(value, list)
        and len(value) == len(OPTIONS)
        and all(v in (0, 1) and not isinstance(v, bool) for v in value)
    ):
        return
    with pytest.raises(SubmissionRejected, match="not one the randomizer can send"):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, {q.pk: value})
        )
    assert nothing_stored()


@pytest.mark.parametrize(
    "payload", [[True, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 1], 1, "101010"]
)
def test_multi_rr_examples(kinds_survey, payload):
    q = questions(kinds_survey)["multi_rr"]
    with pytest.raises(SubmissionRejected, match=q.text):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, {q.pk: payload})
        )
    assert nothing_stored()


def test_every_possible_report_of_every_new_mechanism_is_accepted(kinds_survey):
    rng = np.random.default_rng(3)
    q = questions(kinds_survey)
    for name in ("ordinal", "geometric", "duchi", "piecewise", "padding_sampling"):
        mechanism = ldp.build(q[name].spec)
        size = mechanism.outputs if name != "padding_sampling" else mechanism.items
        for value in (0, size - 1):
            mechanism.validate_report(value)
    reports = {
        q["multi_rr"].pk: [int(b) for b in rng.integers(0, 2, len(OPTIONS))],
        q["padding_sampling"].pk: len(OPTIONS) + 2,  # the last padding item
        q["piecewise"].pk: ldp.build(q["piecewise"].spec).outputs - 1,
    }
    outcome = services.submission_ingest(
        survey=kinds_survey, response=response(kinds_survey, reports)
    )
    assert outcome.created


@pytest.mark.parametrize("plain", [[0, 1, 2], [0, 0], [6], "0", [True]])
def test_plain_multi_select_is_checked_on_the_server(kinds_survey, plain):
    with pytest.raises(SubmissionRejected, match="Which colours"):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, plain=plain)
        )
    assert nothing_stored()


def test_plain_multi_select_over_the_limit_says_so(kinds_survey):
    with pytest.raises(SubmissionRejected, match="at most 2 may be chosen"):
        services.submission_ingest(
            survey=kinds_survey, response=response(kinds_survey, plain=[0, 1, 2])
        )


def test_plain_multi_select_with_none_chosen_is_stored(kinds_survey):
    services.submission_ingest(
        survey=kinds_survey, response=response(kinds_survey, plain=[])
    )
    assert PlainAnswer.objects.get().value == []


# --- the receipt --------------------------------------------------------------------
def describe(survey: Survey, name: str, payload) -> str:
    return describe_report(questions(survey)[name], payload)


def test_receipt_words_for_ordinal_and_numeric(kinds_survey):
    assert describe(kinds_survey, "ordinal", 3) == (
        "a randomized point on the scale, “Often”"
    )
    assert describe(kinds_survey, "geometric", 0) == "a number with noise added, 0.5"
    assert describe(kinds_survey, "gaussian", 9) == "a number with noise added, 5"
    assert describe(kinds_survey, "duchi", 1).startswith("a randomized “high”")
    assert describe(kinds_survey, "duchi", 0).startswith("a randomized “low”")
    piecewise = ldp.build(questions(kinds_survey)["piecewise"].spec)
    centre = float(piecewise.output_values()[0])
    assert describe(kinds_survey, "piecewise", 0) == (
        f"a number with noise added, about {centre:.1f}"
    )


def test_receipt_words_for_multi_select(kinds_survey):
    assert describe(kinds_survey, "multi_rr", [1, 0, 0, 1, 0, 0]) == (
        "randomized marks, one per option, on for: Red, Cyan"
    )
    assert describe(kinds_survey, "multi_rr", [0] * 6) == (
        "randomized marks, one per option, on for: none"
    )
    assert describe(kinds_survey, "padding_sampling", 2) == (
        "one randomly picked option, randomized: Blue"
    )
    for padding in (6, 7, 8):
        assert describe(kinds_survey, "padding_sampling", padding) == (
            "a randomized blank (it stands for no option)"
        )


def test_receipt_page_for_every_kind(client, kinds_survey):
    q = questions(kinds_survey)
    reports = {
        q["ordinal"].pk: 0,
        q["geometric"].pk: 4,
        q["gaussian"].pk: 1,
        q["duchi"].pk: 1,
        q["piecewise"].pk: 0,
        q["multi_rr"].pk: [0, 1, 0, 0, 0, 1],
        q["padding_sampling"].pk: 7,
    }
    data = body(kinds_survey, reports=reports)
    data[f"q{q['plain'].pk}"] = ["1", "4"]
    url = reverse("collection:respond", args=[kinds_survey.public_token])
    sent = client.post(url, data, **JSON)
    assert sent.status_code == 201, sent.content
    text = client.get(sent.json()["receipt_url"]).content.decode()
    for words in (
        "a randomized point on the scale, “Never”",
        "a number with noise added, 2.5",
        "a number with noise added, 1",
        "a randomized “high”",
        "a number with noise added, about",
        "randomized marks, one per option, on for: Green, Yellow",
        "a randomized blank",
    ):
        assert f"Your device sent: <strong>{words}" in text, words
    assert text.count("This may differ from what you chose.") == len(reports)
    assert text.count("Your device added randomness to your number") == 4
    assert text.count("Each option’s mark was decided partly at random") == 1
    assert text.count("Your device picked one item at random") == 1
    assert "You answered: <strong>Green, Magenta</strong> (not protected" in text
    assert "Why this protects you" in text


def test_demo_receipt_covers_every_kind(client, survey):
    q = questions(survey)
    reports = valid_reports(survey) | {
        q["ordinal"].pk: 4,
        q["geometric"].pk: 40,
        q["padding_sampling"].pk: 1,
    }
    url = reverse("collection:respond", args=[survey.public_token])
    sent = client.post(url, body(survey, reports=reports), **JSON)
    text = client.get(sent.json()["receipt_url"]).content.decode()
    assert "<strong>a randomized point on the scale, “Strongly agree”</strong>" in text
    assert "Your device sent: <strong>a number with noise added, 40</strong>" in text
    assert "<strong>one randomly picked option, randomized: Gambling or betting" in text
    assert text.count("This may differ from what you chose.") == 6


def test_a_numeric_question_without_a_grid_cannot_be_rendered(kinds_survey):
    Question.objects.filter(kind="numeric").update(spec=None, numeric_low=None)
    with pytest.raises(ValueError, match="no numeric grid"):
        ResponseForm(survey=Survey.objects.get(pk=kinds_survey.pk))
