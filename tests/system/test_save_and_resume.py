"""Save and finish later on the same device, in Chromium.

Where the survey allows it (``Survey.save_resume``), the device keeps the
answers not protected as they would be sent, and randomizes each protected
answer when it is saved: only its report is kept, in the device's memory,
counted as sent (docs/privacy.md, "Save and finish later"). Opening the link
again on the same device restores both; starting over forgets the answers not
protected and never randomizes a saved protected answer again. Nothing is sent
until "Send".
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring.models import Survey
from surveys.collection.models import PlainAnswer, Submission
from tests.system.conftest import AGE, CHEATED, COLOUR, DESKTOP, SMOKED, make_survey
from tests.system.device import answer, form_of, reports_in, watch

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def memory(page) -> dict:
    return json.loads(page.evaluate("() => localStorage.getItem('deniable.memory')"))


def all_reports(saved: dict) -> list[str]:
    return [
        r["report"] for entry in saved["contents"].values() for r in entry["reports"]
    ]


def given(saved: dict) -> int:
    return sum(entry["milli"] for entry in saved["given"])


@pytest.fixture
def resumable(owner) -> Survey:
    survey = make_survey(owner)
    Survey.objects.filter(pk=survey.pk).update(save_resume=True)
    survey.refresh_from_db()
    return survey


def open_and_save(chromium, live_server, survey):
    """A respondent answers one protected and the plain question, then saves."""
    context = chromium.new_context(viewport=DESKTOP)
    traffic = watch(context)
    page = context.new_page()
    url = live_server.url + reverse("collection:respond", args=[survey.public_token])
    page.goto(url)
    expect(page.locator("#device-save")).to_contain_text(
        "you cannot continue on another device"
    )
    answer(page, only=(CHEATED, AGE))
    page.click("#save-for-later")
    notice = page.locator("#device-notice")
    expect(notice).to_contain_text("randomizes the protected answers you gave (1)")
    expect(notice).to_contain_text("ε = 1.000 added")
    assert traffic.posts == []  # told first: nothing saved yet
    assert page.evaluate("() => localStorage.getItem('deniable.memory')") is None
    page.click("#confirm-save")
    expect(page.locator("#respond-status")).to_contain_text("Saved on this device")
    return context, page, traffic, url


def test_saved_answers_come_back_on_this_device_and_the_saved_report_is_sent(
    live_server, chromium, resumable
):
    context, page, traffic, url = open_and_save(chromium, live_server, resumable)
    age = resumable.questions.get(text=AGE)
    saved = memory(page)
    assert saved["drafts"][resumable.public_token]["plain"] == {
        str(age.pk): {"values": ["1"], "skipped": False}
    }
    assert len(all_reports(saved)) == 1 and given(saved) == 1000
    assert traffic.posts == []
    page.close()
    page = context.new_page()  # the survey link again, on the same device
    page.goto(url)
    expect(page.locator("#device-resume")).to_contain_text(
        "Answers not protected, as you saved them: 1. Protected answers, "
        "randomized when you saved them and sent as they are: 1."
    )
    expect(page.get_by_role("group", name=AGE).get_by_label("30 to 59")).to_be_checked()
    cheated = page.get_by_role("group", name=CHEATED).get_by_role("radio")
    expect(cheated.first).to_be_disabled()
    answer(page, only=(COLOUR, SMOKED))
    page.get_by_role("button", name="Send my answers").click()
    page.wait_for_url("**/s/receipt/**")
    sent = traffic.posts[-1]
    assert reports_in(sent, resumable)[CHEATED] == all_reports(saved)[0]
    assert form_of(sent)[f"q{age.pk}"] == ["1"]
    after = memory(page)
    assert "drafts" not in after and given(after) == 3099  # the save counted once
    assert PlainAnswer.objects.get(question=age).value == 1
    assert Submission.objects.count() == 1
    context.close()


def test_starting_over_forgets_the_plain_answers_and_never_randomizes_again(
    live_server, chromium, resumable
):
    context, page, traffic, url = open_and_save(chromium, live_server, resumable)
    report = all_reports(memory(page))[0]
    page.goto(url)
    page.click("#start-over")
    expect(page.locator("#device-resume")).to_contain_text("Started over")
    age = page.get_by_role("group", name=AGE).get_by_label("30 to 59")
    expect(age).not_to_be_checked()
    after = memory(page)
    assert "drafts" not in after
    assert all_reports(after) == [report] and given(after) == 1000
    page.goto(url)
    expect(page.locator("#device-resume")).to_be_hidden()
    cheated = page.get_by_role("group", name=CHEATED).get_by_role("radio")
    expect(cheated.first).to_be_disabled()  # kept as saved, not asked again
    assert traffic.posts == []
    context.close()


def test_a_survey_without_save_and_resume_offers_no_save(live_server, chromium, survey):
    page = chromium.new_context(viewport=DESKTOP).new_page()
    page.goto(
        live_server.url + reverse("collection:respond", args=[survey.public_token])
    )
    expect(page.get_by_role("button", name="Send my answers")).to_be_enabled()
    answer(page)
    expect(page.locator("#save-for-later")).to_have_count(0)
    expect(page.locator("#device-resume")).to_have_count(0)
