"""Open text (one line, several lines) and "Other, please specify": never
protected, sent and stored as typed, refused when malformed."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.forms import ResponseForm
from surveys.collection.models import PlainAnswer, Submission

pytestmark = pytest.mark.django_db

COLOURS = ("Red", "Green")


@pytest.fixture
def survey(researcher):
    survey = authoring.survey_create(owner=researcher, title="Words")
    for text, config in (
        ("Your town?", PrivacyConfig(kind="short_text", is_private=False)),
        ("Anything else?", PrivacyConfig(kind="long_text", is_private=False)),
        (
            "Favourite colour?",
            PrivacyConfig(
                kind="single_choice",
                is_private=False,
                options=COLOURS,
                other_option=True,
            ),
        ),
    ):
        authoring.question_create(
            survey=survey, text=text, privacy=config, not_private_acknowledged=True
        )
    return authoring.survey_publish(survey=survey, user=researcher)


def post(client, survey, town="Lyon", comment="Fine.\r\nThanks", colour="2", other=""):
    town_q, comment_q, colour_q = survey.questions.order_by("position")
    body = {
        "idempotency_key": str(uuid.uuid4()),
        "survey_revision": str(survey.revision),
        f"q{town_q.pk}": town,
        f"q{comment_q.pk}": comment,
        f"q{colour_q.pk}": colour,
    }
    if other:
        body[f"q{colour_q.pk}_other"] = other
    return client.post(reverse("collection:respond", args=[survey.public_token]), body)


def test_typed_answers_and_the_words_beside_other_are_stored_as_typed(client, survey):
    response = post(client, survey, other="Teal, like the sea")
    assert response.status_code == 303
    stored = {
        a.question.text: (a.value, a.other_text)
        for a in PlainAnswer.objects.select_related("question")
    }
    assert stored == {
        "Your town?": ("Lyon", ""),
        "Anything else?": ("Fine.\nThanks", ""),
        "Favourite colour?": (2, "Teal, like the sea"),
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"other": "Teal", "colour": "0"}, "whose answer is not “Other”"),
        ({"town": "Lyon\nFrance"}, "Use letters, digits and punctuation only."),
        ({"town": "x" * 501}, "at most 500 characters"),
        ({"comment": "bell\x07"}, "Use letters, digits and punctuation only."),
        ({"colour": "3"}, "not one of the answers"),
        ({"colour": "2", "other": "line\nbreak"}, "Use letters, digits"),
    ],
    ids=[
        "other-words-without-other",
        "short-with-line",
        "too-long",
        "control",
        "beyond-other",
        "other-with-line",
    ],
)
def test_malformed_typed_words_are_refused_with_nothing_stored(
    client, survey, change, message
):
    response = post(client, survey, **change)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Submission.objects.exists()


def test_the_answer_page_names_the_text_boxes_and_the_device_knows_other_and_open_text(
    survey,
):
    form = ResponseForm(survey=survey)
    town_q, comment_q, colour_q = survey.questions.order_by("position")
    html = "".join(str(block.answer) for block in form.blocks())
    assert f'name="q{town_q.pk}"' in html and 'maxlength="500"' in html
    assert f'<textarea name="q{comment_q.pk}"' in html
    assert "Other, please specify" in html
    assert str(form.blocks()[2].other).count(f'name="q{colour_q.pk}_other"') == 1
    assert form.js_config()["other"] == {str(colour_q.pk): 2}
    assert set(form.js_config()["plain"]) == {town_q.pk, comment_q.pk, colour_q.pk}
    assert form.js_config()["typed"] == [town_q.pk, comment_q.pk]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (PrivacyConfig(kind="short_text"), "protection"),
        (PrivacyConfig(kind="long_text"), "protection"),
        (
            PrivacyConfig(kind="single_choice", options=COLOURS, other_option=True),
            "other_option",
        ),
        (
            PrivacyConfig(
                kind="ordinal", is_private=False, options=COLOURS, other_option=True
            ),
            "other_option",
        ),
    ],
    ids=["short-protected", "long-protected", "other-protected", "other-on-scale"],
)
def test_typed_words_can_never_be_protected(researcher, config, field):
    survey = authoring.survey_create(owner=researcher, title="No")
    with pytest.raises(ValidationError) as caught:
        authoring.question_create(
            survey=survey, text="Q?", privacy=config, not_private_acknowledged=True
        )
    assert field in caught.value.message_dict
    assert not survey.questions.exists()
