"""The results page on a 375 px wide phone in headless Chromium: chart text is
drawn at 12 px or more, and no table or chart is cut off: each scrolls sideways
within a region that takes keyboard focus and has a name."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.surveys.analysis.dashboard_support import PASSWORD, make_survey, simulate

pytestmark = pytest.mark.django_db(transaction=True)

PHONE_375 = {"width": 375, "height": 812}

# The size each chart text is drawn at: its font size times the scale from the
# SVG's own units to screen pixels (the chart's viewBox may shrink it).
DRAWN_TEXT_SIZES = """() => Array.from(document.querySelectorAll("svg.chart text"))
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"""

# For each scrolling wrapper of a table or chart: whether it scrolls sideways,
# takes focus, its accessible name's source, and whether its widest content
# is fully inside its scrollable width (nothing clipped).
SCROLLERS = """() => Array.from(
  document.querySelectorAll(".table-scroll, .chart-figure")
).map((box) => {
    const content = box.querySelector("table, svg");
    const labelled = box.getAttribute("aria-labelledby");
    const caption = box.querySelector("figcaption, caption");
    return {
      overflow: getComputedStyle(box).overflowX,
      tabindex: box.getAttribute("tabindex"),
      name: labelled
        ? labelled.split(" ").map(
            (id) => (document.getElementById(id) || {}).textContent || "").join(" ")
        : (caption ? caption.textContent : ""),
      contentWidth: content.getBoundingClientRect().width,
      scrollWidth: box.scrollWidth,
      clientWidth: box.clientWidth,
    };
  })"""


@pytest.fixture
def phone_results(live_server, browser, django_user_model):
    """A signed-in phone (375 px) on the results page of a survey with answers."""
    ada = django_user_model.objects.create_user("ada", password=PASSWORD)
    survey = make_survey(ada)
    simulate(survey, 200)
    page = browser.new_page(viewport=PHONE_375)
    page.goto(live_server.url + reverse("login"))
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]:not(.link-button)")
    page.wait_for_url("**/surveys/")
    page.goto(live_server.url + reverse("analysis:dashboard", args=[survey.pk]))
    return page


def test_chart_text_is_drawn_at_12_px_or_more_on_a_375_px_phone(phone_results):
    sizes = phone_results.evaluate(DRAWN_TEXT_SIZES)
    assert len(sizes) > 20
    assert min(sizes) >= 12


def test_tables_and_charts_scroll_in_named_focusable_regions_on_a_phone(
    phone_results,
):
    scrollers = phone_results.evaluate(SCROLLERS)
    assert any(s["scrollWidth"] > s["clientWidth"] for s in scrollers)
    for box in scrollers:
        assert box["overflow"] == "auto"
        assert box["tabindex"] == "0"
        assert box["name"].strip()
        assert box["contentWidth"] <= box["scrollWidth"] + 1
    # The page itself never scrolls sideways: only those regions do.
    assert phone_results.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth"
    )


def test_the_last_column_of_a_wide_table_scrolls_into_view_with_the_keyboard(
    phone_results,
):
    region = phone_results.locator(".table-scroll:has(th:nth-child(5))").first
    last = region.locator("thead th").last
    box, cell = region.bounding_box(), last.bounding_box()
    assert box is not None and cell is not None
    assert cell["x"] + cell["width"] > box["x"] + box["width"]  # off to the right
    region.focus()
    for _ in range(40):
        phone_results.keyboard.press("ArrowRight")
    # The browser scrolls smoothly: wait until the keys' scrolling has ended
    # (the region scrolled to its end) before measuring.
    phone_results.wait_for_function(
        "el => el.scrollLeft >= el.scrollWidth - el.clientWidth - 1",
        arg=region.element_handle(),
        timeout=5000,
    )
    box, cell = region.bounding_box(), last.bounding_box()
    assert box is not None and cell is not None
    assert box["x"] - 1 <= cell["x"]
    assert cell["x"] + cell["width"] <= box["x"] + box["width"] + 1
