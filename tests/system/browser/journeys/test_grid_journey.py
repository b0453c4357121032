"""A grid of scale items in headless Chromium: built in the builder, answered
with the keyboard on a desktop and by touch on a phone.  Each row is its own
protected question: its randomized report arrives, never the true answer.
Screenshots go to test-artifacts/journeys/."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from surveys.authoring import services as authoring
from surveys.collection.models import Report, Submission
from tests.system.browser.journeys.conftest import (
    DESKTOP,
    PHONE,
    answer_page,
    sign_in,
)

pytestmark = pytest.mark.django_db(transaction=True)

STEM = "How often have you done each of these in the past year?"
ITEMS = ("Copied homework", "Lied to a teacher", "Cheated on an exam")


def test_a_grid_is_built_in_the_builder_and_answered_row_by_row(
    live_server, browser, researcher, artifacts
):
    survey = authoring.survey_create(owner=researcher, title="School habits")
    desk = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(desk, live_server.url)
    desk.goto(live_server.url + reverse("authoring:survey_detail", args=[survey.pk]))
    desk.get_by_role("link", name="Add a grid of scale items").click()
    desk.get_by_label("Question shown above the grid").fill(STEM)
    desk.get_by_label("Items, one per line (2 to 20)").fill("\n".join(ITEMS))
    desk.get_by_label("ε for each item").fill("1")
    desk.get_by_role("button", name="Add the grid").click()
    expect(desk.get_by_role("status")).to_contain_text("Grid added: 3 scale questions")
    survey = authoring.survey_publish(survey=survey, user=researcher)
    rows = list(survey.questions.order_by("position"))
    assert [q.grid_item for q in rows] == list(ITEMS)

    # Desktop, keyboard only: each row is a radio group of its own.
    context, page, posts, errors = answer_page(browser, live_server, survey, DESKTOP)
    grid = page.get_by_role("group", name=STEM)
    expect(grid).to_be_visible()
    for item, answer in zip(ITEMS, ("Never", "Sometimes", "Often"), strict=True):
        row = grid.get_by_role("group", name=item)
        row.get_by_label(answer).focus()
        page.keyboard.press("Space")
        expect(row.get_by_label(answer)).to_be_checked()
    page.screenshot(path=str(artifacts / "grid-desktop.png"), full_page=True)
    page.get_by_role("button", name="Send my answers").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/s/receipt/**")
    context.close()
    assert errors == []
    (body,) = [(r.post_data_buffer or b"").decode("utf-8") for r in posts]
    fields = urllib.parse.parse_qs(body)
    for question in rows:
        report = json.loads(fields[f"q{question.pk}_report"][0])
        assert isinstance(report, int) and 0 <= report < 4
    assert Report.objects.filter(question__in=rows).count() == 3

    # A phone: the rows stack; every row still answers on its own.
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(live_server.url + f"/s/{survey.public_token}/")
    phone.get_by_role("link", name="Take part").click()
    expect(phone.get_by_role("button", name="Send my answers")).to_be_enabled()
    for item in ITEMS:
        phone.get_by_role("group", name=item).get_by_label("Once or twice").check()
    phone.screenshot(path=str(artifacts / "grid-phone.png"), full_page=True)
    phone.get_by_role("button", name="Send my answers").click()
    phone.wait_for_url("**/s/receipt/**")
    assert Submission.objects.count() == 2
