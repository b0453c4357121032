"""Email invitations and reminders, end to end in headless Chromium.

The researcher imports two addresses from a CSV file and sends the
invitations through a real SMTP server (aiosmtpd) the test starts; one
recipient opens the link from the email they received and answers; a week
later (the test moves the recipients' last-sent day back) the researcher sends
a reminder, which reaches only the other recipient, who unsubscribes from the
email's link.  Screenshots go to test-artifacts/journeys/.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Recipient, Submission
from tests.system.browser.journeys.conftest import DESKTOP, PHONE, mail_link, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "Have you ever cheated on an exam?"
ANA, BEN = "ana@example.org", "ben@example.org"


def test_invite_by_email_answer_from_the_link_remind_and_unsubscribe(
    live_server, browser, researcher, smtp, artifacts, tmp_path
):
    survey = services.survey_create(owner=researcher, title="Exam honesty")
    services.question_create(
        survey=survey, text=QUESTION, privacy=PrivacyConfig(kind="yes_no")
    )
    survey = services.survey_publish(survey=survey, user=researcher)
    addresses = tmp_path / "people.csv"
    addresses.write_text(f"name,email\nAna,{ANA}\nBen,{BEN}\nAna again,{ANA}\n")

    page = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(page, live_server.url)
    page.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    page.get_by_role("link", name="Email invitations and reminders").click()
    page.get_by_label("CSV file of email addresses").set_input_files(str(addresses))
    page.get_by_role("button", name="Import addresses").click()
    expect(page.get_by_role("status")).to_contain_text("2 recipients added")
    page.screenshot(path=str(artifacts / "email-imported-desktop.png"), full_page=True)
    page.get_by_role("button", name="Send invitations").click()
    expect(page.get_by_role("status")).to_contain_text("2 emails sent")
    assert {m["To"] for m in smtp.messages} == {ANA, BEN}

    # Ana answers on her phone from the link in her email.
    link = mail_link(smtp.to(ANA)[0], r"http://[^\s]+/s/i/[\w-]+/")
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(link)
    phone.get_by_role("link", name="Take part").click()
    phone.wait_for_url("**/answer/")
    phone.get_by_role("group", name=QUESTION).get_by_label("No", exact=True).check()
    phone.get_by_role("button", name="Send my answers").click()
    phone.wait_for_url("**/s/receipt/**")
    phone.screenshot(path=str(artifacts / "email-answered-phone.png"), full_page=True)
    assert Submission.objects.filter(survey=survey).count() == 1

    # A week later: a reminder reaches Ben only, with his first link.
    Recipient.objects.update(last_sent_on=timezone.localdate() - timedelta(days=7))
    page.reload()
    expect(page.locator("#recipient-counts")).to_contain_text("Answered (link used)")
    page.get_by_role("button", name="Send a reminder").click()
    expect(page.get_by_role("status")).to_contain_text("1 email sent")
    assert len(smtp.to(ANA)) == 1
    assert len(smtp.to(BEN)) == 2
    first, reminder = smtp.to(BEN)
    pattern = r"http://[^\s]+/s/i/[\w-]+/"
    assert mail_link(first, pattern) == mail_link(reminder, pattern)

    # Ben unsubscribes from the email's link.
    unsubscribe = mail_link(reminder, r"http://[^\s]+/s/unsubscribe/[^\s/]+/")
    ben = browser.new_context(viewport=PHONE).new_page()
    ben.goto(unsubscribe)
    ben.get_by_role("button", name="Unsubscribe").click()
    expect(ben.locator("#unsubscribed")).to_contain_text("no more emails")
    ben.screenshot(path=str(artifacts / "email-unsubscribed-phone.png"), full_page=True)

    page.reload()
    counts = page.locator("#recipient-counts")
    expect(counts.get_by_role("row", name=re.compile("Answered"))).to_contain_text("1")
    expect(counts.get_by_role("row", name=re.compile("Unsubscribed"))).to_contain_text(
        "1"
    )
    page.screenshot(path=str(artifacts / "email-counts-desktop.png"), full_page=True)
