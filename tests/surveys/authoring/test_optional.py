"""Optional questions in the builder: marked per question, said why on the page."""

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.surveys.authoring.test_views import QUESTION

pytestmark = pytest.mark.django_db


def test_the_builder_marks_a_question_optional(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    assert ada_client.post(url, {**QUESTION, "optional": "on"}).status_code == 302
    assert survey.questions.get().optional is True


def test_a_question_is_required_unless_marked(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    ada_client.post(url, QUESTION)
    assert survey.questions.get().optional is False


def test_the_builder_says_a_skip_is_visible_to_the_server(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.get(url).content.decode()
    assert "A skip is visible to the server" in html
    assert 'aria-describedby="id_optional_helptext"' in html


def test_the_edit_form_shows_a_question_is_optional(ada_client, make_survey):
    survey = make_survey()
    question = services.question_create(
        survey=survey, text="Ever?", privacy=PrivacyConfig("yes_no"), optional=True
    )
    url = reverse(
        "authoring:question_edit", kwargs={"pk": survey.pk, "question_pk": question.pk}
    )
    html = ada_client.get(url).content.decode()
    assert 'name="optional" id="id_optional" aria-describedby' in html
    assert "checked>" in html.split('id="id_optional"', 1)[1].split("<label", 1)[0]


def test_making_a_published_question_optional_makes_open_pages_stale(survey, ada):
    services.survey_publish(survey=survey, user=ada)
    question = survey.questions.first()
    services.question_update(
        question=question,
        text=question.text,
        privacy=PrivacyConfig("yes_no"),
        optional=True,
    )
    question.refresh_from_db()
    assert question.optional is True
    assert question.spec_revision == 1  # the randomization is unchanged
    assert Survey.objects.get(pk=survey.pk).revision == 2


def test_duplicating_a_survey_keeps_which_questions_are_optional(make_survey, ada):
    survey = make_survey()
    services.question_create(
        survey=survey, text="Ever?", privacy=PrivacyConfig("yes_no"), optional=True
    )
    copy = services.survey_duplicate(survey=survey, user=ada)
    assert copy.questions.get().optional is True


def test_the_builder_stores_a_section_break_before_a_question(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    ada_client.post(
        url, {**QUESTION, "section_title": "About you", "section_intro": "Two more."}
    )
    question = survey.questions.get()
    assert (question.section_title, question.section_intro) == (
        "About you",
        "Two more.",
    )


def test_a_section_introduction_without_a_title_is_refused(ada_client, make_survey):
    survey = make_survey()
    url = reverse("authoring:question_create", kwargs={"pk": survey.pk})
    html = ada_client.post(url, {**QUESTION, "section_intro": "Hello"}).content
    assert "A section introduction needs a section title" in html.decode()
    assert not survey.questions.exists()


def test_the_survey_page_shows_where_sections_start_and_which_questions_are_optional(
    ada_client, make_survey
):
    survey = make_survey()
    services.question_create(
        survey=survey,
        text="Ever cheated?",
        privacy=PrivacyConfig("yes_no"),
        section_title="About exams",
    )
    services.question_create(
        survey=survey, text="Ever copied?", privacy=PrivacyConfig("yes_no")
    )
    services.question_create(
        survey=survey,
        text="Ever lied?",
        privacy=PrivacyConfig("yes_no"),
        optional=True,
        section_title="About you",
    )
    html = ada_client.get(
        reverse("authoring:survey_detail", kwargs={"pk": survey.pk})
    ).content.decode()
    cards = html.split('class="question-card"')[1:]
    assert len(cards) == 3
    sections = ['data-field="section"' in card for card in cards]
    optional = ['data-field="optional"' in card for card in cards]
    assert sections == [True, False, True]
    assert optional == [False, False, True]
    assert "New section: <strong>About you</strong>" in cards[2]
    assert "optional (“Prefer not to answer”)" in cards[2]
