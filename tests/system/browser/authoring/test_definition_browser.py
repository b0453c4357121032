"""A survey's definition downloaded from its page and imported from the list."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from tests.surveys.authoring.conftest import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 900}


def _sign_in(page, url: str) -> None:
    page.goto(url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")


def test_a_downloaded_definition_imports_as_a_new_draft_from_the_list(
    live_server, browser, django_user_model, tmp_path
):
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = services.survey_create(owner=ada, title="Travels well")
    services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0),
    )
    page = browser.new_context(viewport=DESKTOP, accept_downloads=True).new_page()
    _sign_in(page, live_server.url)
    page.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    with page.expect_download() as download:
        page.get_by_role("link", name="Download definition (JSON)").click()
    saved = tmp_path / "definition.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text())["survey"]["title"] == "Travels well"

    page.goto(live_server.url + reverse("authoring:survey_list"))
    page.get_by_role("link", name="Import a definition").click()
    page.get_by_label("Survey definition file (.json)").set_input_files(str(saved))
    page.get_by_role("button", name="Import as a new draft").click()
    page.wait_for_url("**/surveys/*/")
    assert "Imported as a new draft with 1 question" in page.content()
    assert Survey.objects.filter(owner=ada, title="Travels well").count() == 2


def test_a_broken_file_is_refused_on_the_import_page_with_its_reason(
    live_server, browser, django_user_model, tmp_path
):
    django_user_model.objects.create_user("ada", password=PASSWORD)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "deniable.survey-definition", "version": 7}')
    page = browser.new_context(viewport=DESKTOP).new_page()
    _sign_in(page, live_server.url)
    page.goto(live_server.url + reverse("authoring:survey_import"))
    page.get_by_label("Survey definition file (.json)").set_input_files(str(broken))
    page.get_by_role("button", name="Import as a new draft").click()
    alert = page.get_by_role("alert")
    assert "Nothing was saved" in alert.inner_text()
    assert "version 7" in page.content()
    assert Survey.objects.count() == 0
