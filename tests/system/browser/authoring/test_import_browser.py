"""A questionnaire uploaded through the import page, then read in the builder."""

from __future__ import annotations

import pytest
from django.urls import reverse

from surveys.authoring.models import Survey
from tests.surveys.authoring.conftest import PASSWORD
from tests.surveys.authoring.imports.workbooks import FIXTURES

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 900}


def _sign_in(page, url: str) -> None:
    page.goto(url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")


def test_an_xlsform_uploaded_on_the_import_page_opens_as_a_draft_in_the_builder(
    live_server, browser, django_user_model
):
    django_user_model.objects.create_user("ada", password=PASSWORD)
    page = browser.new_context(viewport=DESKTOP).new_page()
    _sign_in(page, live_server.url)
    page.get_by_role(
        "link", name="Import a questionnaire (XLSForm, LimeSurvey)"
    ).click()
    page.get_by_label("Questionnaire file (.xlsx or .lss)").set_input_files(
        str(FIXTURES / "pyxform_or_other.xlsx")
    )
    page.get_by_role("button", name="Import as a new draft").click()
    page.wait_for_url("**/surveys/*/imported/")
    listed = page.locator("#imported-with-changes").inner_text()
    # "Other, please specify" arrives whole; the choice filter cannot.
    assert "Other, please specify" not in listed
    assert "every option is shown" in listed
    protect = page.get_by_role("link", name="Protect “What is your favorite color?”")
    assert protect.count() == 1

    page.get_by_role("link", name="Open the survey in the builder").click()
    page.wait_for_url("**/surveys/*/")
    builder = page.content()
    assert "What is your favorite color?" in builder
    assert "What is your favorite pastel?" in builder
    assert "Imported from XLSForm: every question arrived unprotected." in builder
    survey = Survey.objects.get()
    assert survey.status == Survey.Status.DRAFT
    assert not survey.questions.filter(is_private=True).exists()


def test_a_broken_workbook_is_refused_on_the_import_page_with_its_reason(
    live_server, browser, django_user_model, tmp_path
):
    django_user_model.objects.create_user("ada", password=PASSWORD)
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 this is not a workbook")
    page = browser.new_context(viewport=DESKTOP).new_page()
    _sign_in(page, live_server.url)
    page.goto(live_server.url + reverse("authoring:questionnaire_import"))
    page.get_by_label("Questionnaire file (.xlsx or .lss)").set_input_files(str(broken))
    page.get_by_role("button", name="Import as a new draft").click()
    alert = page.get_by_role("alert")
    assert "Nothing was saved" in alert.inner_text()
    assert "not a readable Excel workbook" in page.content()
    assert Survey.objects.count() == 0
