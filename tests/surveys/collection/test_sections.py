"""Sections: the respondent's form split at the researcher's section breaks."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.forms import ResponseForm

pytestmark = pytest.mark.django_db


def make(researcher, breaks: list[str]) -> Survey:
    survey = authoring.survey_create(owner=researcher, title="Sections")
    for i, title in enumerate(breaks):
        authoring.question_create(
            survey=survey,
            text=f"Question {i}?",
            privacy=PrivacyConfig(kind="yes_no"),
            section_title=title,
            section_intro=f"Intro {i}" if title else "",
        )
    return authoring.survey_publish(survey=survey, user=researcher)


def test_questions_are_split_at_each_section_break(researcher):
    survey = make(researcher, ["Start", "", "Middle", "End"])
    sections = ResponseForm(survey=survey).sections()
    assert [(s.number, s.total, s.title) for s in sections] == [
        (1, 3, "Start"),
        (2, 3, "Middle"),
        (3, 3, "End"),
    ]
    assert [len(s.blocks) for s in sections] == [2, 1, 1]
    assert sections[1].intro == "Intro 2"


def test_questions_before_the_first_break_form_an_untitled_first_section(
    researcher,
):
    sections = ResponseForm(survey=make(researcher, ["", "Later"])).sections()
    assert [s.title for s in sections] == ["Section 1", "Later"]


def test_a_survey_without_breaks_is_one_section_with_no_navigation(client, researcher):
    survey = make(researcher, ["", ""])
    assert len(ResponseForm(survey=survey).sections()) == 1
    page = client.get(
        reverse("collection:respond", args=[survey.public_token])
    ).content.decode()
    assert "data-section-progress" not in page
    assert "data-section-next" not in page


def test_the_page_has_every_section_with_its_heading_and_navigation(client, researcher):
    survey = make(researcher, ["Start", "End"])
    page = client.get(
        reverse("collection:respond", args=[survey.public_token])
    ).content.decode()
    # All sections are in the one document (nothing is fetched between them).
    assert page.count('class="survey-section"') == 2
    assert '<h2 id="section-1-heading" tabindex="-1">Start</h2>' in page
    assert page.count("data-section-next") == 1
    assert page.count("data-section-back") == 1
    assert '<progress id="section-bar" max="2" value="1"' in page
