"""The consent page reads plainly: short version first, worded by the device.

What a respondent sees before taking part, in Chromium: explicit "Take part"
and "No thanks", the researcher's contact, what the device keeps and for how
long, one overall strength sentence, and the full details one click away.
The short version has no ε and never a near-certainty without saying the
protection is weak.  Screenshots of the pages a respondent sees are saved.
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.system.conftest import DESKTOP, PHONE, PROTECTED, SMOKED
from tests.system.device import answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")


def open_consent(chromium, live_server, survey, viewport=DESKTOP):
    context = chromium.new_context(viewport=viewport)
    page = context.new_page()
    page.goto(
        live_server.url + reverse("collection:consent", args=[survey.public_token])
    )
    expect(page.locator("#device-summary")).to_be_visible()
    return context, page


def test_short_version_has_the_actions_contact_and_what_the_device_keeps(
    live_server, chromium, survey
):
    context, page = open_consent(chromium, live_server, survey)
    summary = page.locator("#device-summary")
    expect(summary.get_by_role("link", name="Take part")).to_be_visible()
    expect(summary.get_by_role("link", name="No thanks")).to_be_visible()
    expect(summary).to_contain_text(
        "Questions about this survey: Ada Lovelace, ada@example.org"
    )
    keeps = page.locator('[data-device-text="keeps"]').inner_text()
    assert re.fullmatch(
        r"This device keeps only a note that you answered this survey, until "
        # The device writes the date in the page's language (Intl): in
        # English, "November 30, 2027".
        r"\w+ \d{1,2}, \d{4}: no answers and nothing that identifies you\.",
        keeps,
    )
    # The full details are one click away, not in the way.
    details = page.locator("#full-details")
    expect(details).to_be_visible()
    assert details.evaluate("d => d.open") is False
    page.get_by_text("All the details").click()
    expect(details.locator("[data-protection-for]").first).to_be_visible()
    page.get_by_role("link", name="No thanks").click()
    expect(page.get_by_text("Nothing was recorded")).to_be_visible()
    context.close()


def test_short_version_has_no_epsilon_and_no_near_certainty_unless_called_weak(
    live_server, chromium, survey
):
    context, page = open_consent(chromium, live_server, survey)
    short = page.locator("#device-summary").inner_text()
    assert "ε" not in short
    for figure in PERCENT.findall(short):
        if float(figure) > 95:
            assert "weak" in short.lower(), short
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", short) if s.strip()]
    assert max(len(s.split()) for s in sentences) <= 30, sentences
    context.close()


def test_the_device_words_each_question_from_its_weights(live_server, chromium, survey):
    context, page = open_consent(chromium, live_server, survey)
    page.get_by_text("All the details").click()
    smoked = page.locator("li", has_text=SMOKED)
    expect(smoked).to_contain_text("Strong protection.")
    expect(smoked).to_contain_text(
        "Your device reports your true answer 3 times in 4; otherwise it reports "
        "the other answer."
    )
    smoked.get_by_text("Details").click()
    expect(smoked).to_contain_text("at most 75% sure")
    expect(smoked).to_contain_text("ε = 1.099")
    expect(page.locator(".protection[class*='strength-']")).to_have_count(
        len(PROTECTED)
    )
    expect(page.locator(".protection.not-protected")).to_have_count(1)
    expect(page.locator('[data-device-text="total-epsilon"]')).to_contain_text(
        "ε = 3.099"
    )
    context.close()


def test_after_screenshots_of_the_respondent_pages(
    live_server, chromium, survey, artifacts
):
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        context, page = open_consent(chromium, live_server, survey, viewport)
        page.screenshot(
            path=str(artifacts / f"after-consent-{size}.png"), full_page=True
        )
        page.get_by_text("All the details").click()
        page.screenshot(
            path=str(artifacts / f"after-consent-details-{size}.png"), full_page=True
        )
        page.get_by_role("link", name="Take part").click()
        expect(page.get_by_role("button", name="Send my answers")).to_be_enabled()
        answer(page)
        page.screenshot(
            path=str(artifacts / f"after-respond-{size}.png"), full_page=True
        )
        context.close()
    assert (artifacts / "after-respond-phone.png").stat().st_size > 0
