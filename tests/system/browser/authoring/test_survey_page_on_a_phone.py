"""The survey's page fits a phone's width: its long public link wraps."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


def test_open_surveys_page_with_its_public_link_does_not_scroll_sideways_on_a_phone(
    live_server, browser, django_user_model
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Fits a phone")
    services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    survey = services.survey_publish(survey=survey, user=ada)
    page = browser.new_context(viewport=PHONE).new_page()
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")
    page.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    link = page.get_by_role("link", name=survey.public_token)
    assert link.count() == 1  # the public link is on the page
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert widths[0] <= widths[1], widths
