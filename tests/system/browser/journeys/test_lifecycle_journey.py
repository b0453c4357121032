"""A survey's lifecycle in headless Chromium, at desktop and phone sizes.

The researcher previews the survey as a respondent (nothing is stored, and the
page says so), respondents answer through the public link, one withdraws from
the receipt and the dashboard's number of responses goes down; the researcher
then archives the survey (hidden from the list, read-only) and deletes it
after the page offers the export.  Screenshots go to test-artifacts/journeys/.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import Report, Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Lifecycle, honestly"
QUESTION = "Have you ever cheated on an exam?"


@pytest.fixture
def published(researcher) -> Survey:
    survey = services.survey_create(owner=researcher, title=TITLE)
    services.question_create(
        survey=survey, text=QUESTION, privacy=PrivacyConfig(kind="yes_no")
    )
    return services.survey_publish(survey=survey, user=researcher)


def answer(browser, url: str, *, viewport: dict) -> str:
    """One respondent from the public link to the receipt; the receipt's URL."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(url)
    page.get_by_role("link", name="Take part").click()
    page.wait_for_url("**/answer/")
    page.get_by_role("group", name=QUESTION).get_by_label("Yes", exact=True).check()
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    expect(page.get_by_role("heading", name=re.compile("Thank you"))).to_be_visible()
    receipt = page.url
    context.close()
    return receipt


def withdraw(browser, receipt: str, *, viewport: dict, shot) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(receipt)
    page.get_by_role("link", name="Withdraw my answers").click()
    expect(page.get_by_text("This cannot be undone")).to_be_visible()
    page.screenshot(path=str(shot("withdraw-confirm")), full_page=True)
    page.get_by_role("button", name="Withdraw and delete my answers").click()
    expect(page.locator("#withdrawn")).to_contain_text("has been deleted")
    page.screenshot(path=str(shot("withdrawn")), full_page=True)
    context.close()


def test_preview_stores_nothing_and_says_so(
    live_server, browser, researcher, published, artifacts
):
    for device, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, seen=errors: seen.append(str(error)))
        sign_in(page, live_server.url)
        page.goto(
            live_server.url + reverse("authoring:survey_detail", args=[published.pk])
        )
        page.get_by_role("link", name="Preview as a respondent").click()
        expect(page.locator("#preview-banner")).to_contain_text(
            "Preview: nothing you enter is stored"
        )
        page.get_by_role("group", name=QUESTION).get_by_label("No", exact=True).check()
        page.screenshot(
            path=str(artifacts / f"lifecycle-preview-{device}.png"), full_page=True
        )
        page.get_by_role("button", name="Send my answers").click()
        expect(page.locator("#respond-status")).to_contain_text(
            "Preview: nothing was stored"
        )
        assert errors == []
        context.close()
    assert not Submission.objects.exists()
    assert not Report.objects.exists()


def test_a_withdrawal_from_the_receipt_lowers_the_dashboards_n(
    live_server, browser, researcher, published, artifacts
):
    link = live_server.url + reverse(
        "collection:consent", args=[published.public_token]
    )
    answer(browser, link, viewport=DESKTOP)
    receipts = {
        "desktop": answer(browser, link, viewport=DESKTOP),
        "phone": answer(browser, link, viewport=PHONE),
    }
    assert Submission.objects.count() == 3

    researcher_page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(researcher_page, live_server.url)
    dashboard = live_server.url + reverse("analysis:dashboard", args=[published.pk])
    researcher_page.goto(dashboard)
    expect(researcher_page.locator("[data-freshness]")).to_contain_text(
        "from 3 responses"
    )

    for device, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        withdraw(
            browser,
            receipts[device],
            viewport=viewport,
            shot=lambda name, d=device: artifacts / f"lifecycle-{name}-{d}.png",
        )
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 1

    researcher_page.goto(dashboard)
    expect(researcher_page.locator("[data-freshness]")).to_contain_text(
        re.compile(r"from 1 response\b")
    )
    researcher_page.screenshot(
        path=str(artifacts / "lifecycle-dashboard-after-withdrawal-desktop.png"),
        full_page=True,
    )
    # The link no longer names a submission.
    gone = browser.new_context().new_page()
    assert gone.goto(receipts["phone"]).status == 404


def test_archive_then_delete_after_the_export_prompt(
    live_server, browser, researcher, published, artifacts
):
    link = live_server.url + reverse(
        "collection:consent", args=[published.public_token]
    )
    answer(browser, link, viewport=PHONE)
    for device, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = browser.new_context(viewport=viewport).new_page()
        sign_in(page, live_server.url)
        page.goto(
            live_server.url + reverse("authoring:survey_detail", args=[published.pk])
        )
        if device == "desktop":
            page.get_by_role("button", name="Archive").click()
            expect(page.locator("#archived-notice")).to_be_visible()
            expect(page.get_by_role("link", name="Edit settings")).to_have_count(0)
        page.screenshot(
            path=str(artifacts / f"lifecycle-archived-{device}.png"), full_page=True
        )
        page.goto(live_server.url + reverse("authoring:survey_list"))
        expect(page.get_by_role("link", name=TITLE)).to_have_count(0)
        page.get_by_role("link", name="Show archived").click()
        page.get_by_role("link", name=TITLE).click()
        page.get_by_role("link", name="Delete…").click()
        expect(page.get_by_role("heading", name="Export first")).to_be_visible()
        expect(
            page.get_by_role("link", name="Randomized reports (CSV)")
        ).to_be_visible()
        page.screenshot(
            path=str(artifacts / f"lifecycle-delete-{device}.png"), full_page=True
        )
        if device == "phone":
            page.get_by_label("Type the survey's title to confirm").fill(TITLE)
            page.get_by_role(
                "button", name="Delete survey and all its responses"
            ).click()
            expect(
                page.get_by_text(f"Deleted “{TITLE}” with its 1 response")
            ).to_be_visible()
    assert not Survey.objects.filter(pk=published.pk).exists()
    assert not Submission.objects.exists()
    assert not Report.objects.exists()


def test_test_responses_are_shown_apart_and_deleted_in_one_click(
    live_server, browser, researcher, published, artifacts
):
    link = live_server.url + reverse(
        "collection:consent", args=[published.public_token]
    )
    answer(browser, link, viewport=DESKTOP)
    detail = live_server.url + reverse("authoring:survey_detail", args=[published.pk])
    for device, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = browser.new_context(viewport=viewport).new_page()
        sign_in(page, live_server.url)
        page.goto(detail)
        page.get_by_role("link", name="Answer in test mode").click()
        expect(page.locator("#test-mode-banner")).to_be_visible()
        page.get_by_role("group", name=QUESTION).get_by_label("No", exact=True).check()
        page.screenshot(
            path=str(artifacts / f"lifecycle-test-mode-{device}.png"), full_page=True
        )
        page.get_by_role("button", name="Send my answers").click()
        page.wait_for_url("**/s/receipt/**")
        page.goto(detail)
        expect(page.locator("#test-responses")).to_contain_text(
            "Test responses: 1" if device == "desktop" else "Test responses: 2"
        )
    expect(page.get_by_text("1 response ")).to_be_visible()
    page.screenshot(
        path=str(artifacts / "lifecycle-test-responses-phone.png"), full_page=True
    )
    assert Submission.objects.filter(is_test=True).count() == 2
    page.get_by_role("button", name="Delete test responses").click()
    expect(page.get_by_text("Deleted 2 test responses")).to_be_visible()
    assert list(Submission.objects.values_list("is_test", flat=True)) == [False]
    page.goto(live_server.url + reverse("analysis:dashboard", args=[published.pk]))
    expect(page.locator("[data-freshness]")).to_contain_text(
        re.compile(r"from 1 response\b")
    )
