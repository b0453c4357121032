"""Co-researchers in headless Chromium: an owner shares a survey with an
editor and a viewer; the editor adds a question to the draft; the viewer reads
the survey and its results, sees no button that changes anything, and a forged
POST to an editor's action is refused.  Screenshots go to test-artifacts/journeys/.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from tests.system.browser.journeys.conftest import DESKTOP, PASSWORD, PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def _sign_in_as(page, base_url: str, username: str) -> None:
    page.goto(base_url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_url("**/surveys/")


def test_an_editor_edits_and_a_viewer_only_reads_a_shared_survey(
    live_server, browser, researcher, django_user_model, artifacts
):
    for name in ("eddie", "vera"):
        django_user_model.objects.create_user(name, password=PASSWORD)
    survey = services.survey_create(owner=researcher, title="Shared study")
    services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    detail = live_server.url + reverse("authoring:survey_detail", args=[survey.pk])

    owner = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(owner, live_server.url)
    owner.goto(detail)
    owner.get_by_role("link", name="People").click()
    for name, role in (("eddie", "editor"), ("vera", "viewer")):
        owner.get_by_label("Username or email address").fill(name)
        owner.get_by_label("Role to give").select_option(role)
        owner.get_by_role("button", name="Share").click()
        expect(owner.get_by_role("status")).to_contain_text(f"{name} can now")
    owner.screenshot(path=str(artifacts / "people-desktop.png"), full_page=True)

    editor = browser.new_context(viewport=DESKTOP).new_page()
    _sign_in_as(editor, live_server.url, "eddie")
    expect(editor.get_by_text("shared with you by ada")).to_be_visible()
    editor.get_by_role("link", name="Shared study").click()
    expect(editor.locator("#your-role")).to_contain_text("editor")
    editor.get_by_role("link", name="Add a question").click()
    editor.get_by_label("Question type").select_option("yes_no")
    editor.get_by_label("Question:", exact=True).fill("Have you ever copied homework?")
    editor.get_by_role("button", name="Save question").click()
    expect(editor.get_by_text("Have you ever copied homework?")).to_be_visible()
    assert editor.locator("#delete-link").count() == 0
    assert survey.questions.count() == 2

    viewer = browser.new_context(viewport=PHONE).new_page()
    _sign_in_as(viewer, live_server.url, "vera")
    viewer.goto(detail)
    expect(viewer.locator("#your-role")).to_contain_text("viewer")
    assert viewer.get_by_role("link", name="Add a question").count() == 0
    assert viewer.get_by_role("button", name="Publish").count() == 0
    viewer.screenshot(path=str(artifacts / "viewer-phone.png"), full_page=True)
    forged = viewer.evaluate(
        """async (url) => {
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const response = await fetch(url, {method: "POST",
              headers: {"X-CSRFToken": token}});
            return response.status;
        }""",
        reverse("authoring:survey_publish", args=[survey.pk]),
    )
    assert forged == 404
    survey.refresh_from_db()
    assert survey.status == "draft"
