"""A questionnaire uploaded through the import page, then fielded: the whole
chain a researcher switching tools goes through, in Chromium.

The researcher signs in through the test identity provider (its own process,
``tests/system/identity_provider.py``), imports a real public XLSForm
(CorrelAid's needs survey of migrant organisations, vendored with its
licence), protects three questions, adds "Other, please specify" with a
quota and shuffled options, shuffles the questions, lets respondents save
and finish later, and publishes. A respondent saves in the first section,
comes back on the same device, finishes and sends. The researcher then reads
the audit log of what they did.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.accounts.models import AuditEntry, User
from surveys.authoring.models import Survey
from surveys.collection.models import PlainAnswer, Report, Submission
from surveys.collection.quota_state import full_cells
from tests.surveys.authoring.conftest import PASSWORD
from tests.surveys.authoring.imports.workbooks import FIXTURES
from tests.system.identity_provider import PASSWORD as PROVIDER_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 900}
UMFRAGE = FIXTURES / "correlaid_mitwirken_umfrage.xlsx"
# Three questions no display logic depends on: a single choice and two yes/no.
TO_PROTECT = (
    "In welchem Landkreis sind Sie aktiv?",
    "Hat Ihre Organisation feste Regeln",
    "Dürfen wir Ihre Kontaktdaten",
)
THEMES = "Was sind die Themenfelder Ihrer Arbeit?"


def _sign_in(page, url: str) -> None:
    page.goto(url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")


def _sign_in_through_the_provider(page, url: str) -> None:
    page.goto(url + reverse("login"))
    page.get_by_role("link", name="Sign in with Test University").click()
    page.fill("input[name=username]", "grace")
    page.fill("input[name=password]", PROVIDER_PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(url + reverse("authoring:survey_list"))
    expect(page.locator("body")).to_contain_text("Signed in as grace")


def _edit(page, survey: Survey, starts: str) -> None:
    number = survey.questions.get(text__startswith=starts).position
    page.get_by_role("link", name=f"Edit question {number}", exact=True).click()


def _protect(page, survey: Survey, starts: str) -> None:
    _edit(page, survey, starts)
    page.get_by_label("Protected: randomized on the respondent's device").check()
    page.get_by_label("ε for this question").fill("1")
    page.get_by_role("button", name="Save question", exact=True).click()
    expect(page.locator(".messages")).to_be_visible()


def _add_other_with_a_quota(page, survey: Survey) -> None:
    _edit(page, survey, THEMES)
    page.get_by_label("Add “Other, please specify” with a text box").check()
    page.get_by_label("Show the options in a random order").check()
    page.get_by_label("Quotas (optional)").fill("Other: 1")
    page.get_by_role("button", name="Save question", exact=True).click()
    expect(page.locator(".messages")).to_be_visible()


def _field_it(page) -> None:
    page.get_by_role("link", name="Edit settings").click()
    page.get_by_label("Show the questions of each section in a random order").check()
    page.get_by_label(
        "Let respondents save and finish later on the same device"
    ).check()
    page.get_by_role("button", name="Save settings").click()
    page.get_by_role("button", name="Publish").click()
    if page.get_by_label("I have read this and want to publish").count():
        page.get_by_label("I have read this and want to publish").check()
        page.get_by_role("button", name="Publish").click()
    expect(page.locator(".page-head .status")).to_have_text("Open")


def _show(page, question_id: int) -> None:
    """Go on section by section until the question is on screen."""
    block = page.locator(f"#question-{question_id}")
    while not block.is_visible():
        page.locator("[data-section-next]:visible").click()


def _answer_the_rest(page, survey: Survey) -> None:
    """In page order: every required question (all unprotected) and the two
    protected questions not answered before saving, each "No" or its first
    option."""
    later = [survey.questions.get(text__startswith=s).pk for s in TO_PROTECT[1:]]
    for question in survey.questions.order_by("position"):
        required = not (question.optional or question.is_private or question.show_if)
        if not required and question.pk not in later:
            continue
        _show(page, question.pk)
        name = f"q{question.pk}_answer" if question.is_private else f"q{question.pk}"
        page.locator(
            f'#question-{question.pk} [name="{name}"][value="0"], '
            f'[data-answer-group="{name}"] input[value="0"]'
        ).check()
    while page.locator("[data-section-next]:visible").count():
        page.locator("[data-section-next]:visible").click()


def _respond(context, url: str, survey: Survey) -> None:
    county = survey.questions.get(text__startswith=TO_PROTECT[0])
    themes = survey.questions.get(text=THEMES)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#save-for-later:visible", timeout=15_000)
    page.locator(f'[data-answer-group="q{county.pk}_answer"] input[value="2"]').check()
    other = str(len(themes.options))
    page.locator(f'input[name="q{themes.pk}"][value="{other}"]').check()
    page.fill(f'input[name="q{themes.pk}_other"]', "Sport")
    page.click("#save-for-later")
    page.click("#confirm-save")
    expect(page.locator("#respond-status")).to_contain_text("Saved on this device")
    assert Submission.objects.count() == 0
    page.close()

    page = context.new_page()  # the link again, on the same device
    page.goto(url)
    expect(page.locator("#device-resume")).to_contain_text("Restored from this device")
    expect(page.locator(f'input[name="q{themes.pk}_other"]')).to_have_value("Sport")
    _answer_the_rest(page, survey)
    page.click('button[type="submit"]')
    page.wait_for_url("**/s/receipt/**", timeout=15_000)


def test_a_researcher_imports_an_xlsform_fields_it_and_reads_what_they_did(
    live_server, browser, single_sign_on
):
    single_sign_on("grace", "grace@uni.example", create=True)
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    _sign_in_through_the_provider(page, live_server.url)

    page.get_by_role(
        "link", name="Import a questionnaire (XLSForm, LimeSurvey)"
    ).click()
    page.get_by_label("Questionnaire file (.xlsx or .lss)").set_input_files(
        str(UMFRAGE)
    )
    page.get_by_role("button", name="Import as a new draft").click()
    page.wait_for_url("**/surveys/*/imported/")
    expect(page.locator("main")).to_contain_text("36 questions, all unprotected")
    page.get_by_role("link", name="Open the survey in the builder").click()
    survey = Survey.objects.get()
    assert not survey.questions.filter(is_private=True).exists()

    for starts in TO_PROTECT:
        _protect(page, survey, starts)
    _add_other_with_a_quota(page, survey)
    _field_it(page)
    survey.refresh_from_db()
    protected = survey.questions.filter(is_private=True)
    assert sorted(q.text[:20] for q in protected) == sorted(t[:20] for t in TO_PROTECT)
    assert survey.shuffle_questions and survey.save_resume

    respondent = browser.new_context(viewport=DESKTOP)
    url = live_server.url + reverse("collection:respond", args=[survey.public_token])
    _respond(respondent, url, survey)
    themes = survey.questions.get(text=THEMES)
    (sent,) = Submission.objects.all()
    assert PlainAnswer.objects.get(submission=sent, question=themes).other_text == (
        "Sport"
    )
    assert Report.objects.filter(submission=sent).count() == 3
    # The one "Other" the quota allows is in: that cell is now full.
    assert full_cells(survey)[str(themes.pk)] == [len(themes.options)]

    page.get_by_role("link", name="Audit log").click()
    log = page.locator("main")
    grace = User.objects.get(username="grace")
    for action in ("signed in through single sign-on", "edited", "published"):
        expect(log).to_contain_text(action)
    assert set(
        AuditEntry.objects.filter(actor=grace).values_list("action", flat=True)
    ) >= {"sign_in_sso", "create", "edit", "publish"}
    expect(log).not_to_contain_text("Sport")
    assert re.search(r"grace", log.inner_text())


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
