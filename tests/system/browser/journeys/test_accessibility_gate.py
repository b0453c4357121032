"""The accessibility gate (tests/axe_gate.py) that wraps every journey's browser
cannot be skipped silently: pages with known violations, served by the test
browser itself (``page.route``), are caught at the size where they fail."""

from __future__ import annotations

import pytest

from tests.axe_gate import REFLOW, GatedBrowser
from tests.system.browser.journeys.conftest import DESKTOP, PHONE

ORIGIN = "http://gate.test"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"""
IMAGE_WITHOUT_ALT = (
    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="10" height="10">'
    '<p><a href="/next">Next</a></p>'
)
# A region that overflows (and so scrolls) only on a narrow screen, with no
# focusable content: keyboard users could not scroll it on a phone.
NARROW_SCROLLER = (
    '<div style="overflow-x:auto;max-width:100%">'
    '<p style="white-space:nowrap;margin:0">'
    "A line of text long enough to scroll sideways on a phone but not on a desktop."
    "</p></div>"
    '<p><a href="/next">Next</a></p>'
)
CLEAN = "<p>Nothing wrong here.</p>"


def _serve(context, pages: dict[str, str]) -> None:
    """Answer requests to ORIGIN + path with the given bodies (no server)."""

    def fulfil(route):
        path = route.request.url.removeprefix(ORIGIN)
        title = path.strip("/") or "start"
        body = PAGE.format(title=title, body=pages[path])
        route.fulfill(status=200, content_type="text/html", body=body)

    context.route(ORIGIN + "/**", fulfil)


def _found(gate) -> set[tuple[str, str, str]]:
    return {(v.rule, v.url, v.size) for v in gate.violations}


def test_the_journeys_browser_is_wrapped_by_the_gate(browser):
    assert isinstance(browser, GatedBrowser)
    page = browser.new_page(viewport=DESKTOP)
    _serve(page.context, {"/": CLEAN})
    page.goto(ORIGIN + "/")


def test_an_image_without_alt_fails_the_gate_at_both_sizes(browser, axe_gate):
    context = browser.new_context(viewport=DESKTOP)
    _serve(context, {"/": IMAGE_WITHOUT_ALT, "/next": CLEAN})
    page = context.new_page()
    page.goto(ORIGIN + "/")
    page.get_by_role("link", name="Next").click()
    page.wait_for_url("**/next")
    desktop, phone = "1280x900", f"{PHONE['width']}x{PHONE['height']}"
    assert _found(axe_gate) == {
        ("image-alt", ORIGIN + "/", desktop),
        ("image-alt", ORIGIN + "/", phone),
    }
    assert {v.target for v in axe_gate.violations} == {"img"}
    assert {v.impact for v in axe_gate.violations} == {"critical"}
    with pytest.raises(pytest.fail.Exception, match=r"image-alt \(critical\) at 'img'"):
        axe_gate.assert_clean()
    # The known violation was this test's point; the page after it is clean.
    axe_gate.violations.clear()


def test_a_violation_only_at_phone_size_is_found_on_a_desktop_page(browser, axe_gate):
    context = browser.new_context(viewport=DESKTOP)
    _serve(context, {"/": NARROW_SCROLLER, "/next": CLEAN})
    page = context.new_page()
    page.goto(ORIGIN + "/")
    page.get_by_role("link", name="Next").click()
    page.wait_for_url("**/next")
    phone = f"{PHONE['width']}x{PHONE['height']}"
    assert _found(axe_gate) == {("scrollable-region-focusable", ORIGIN + "/", phone)}
    assert page.viewport_size == DESKTOP
    axe_gate.violations.clear()


def test_a_page_still_open_when_the_test_ends_is_checked(browser, axe_gate):
    page = browser.new_page(viewport=PHONE)
    _serve(page.context, {"/": IMAGE_WITHOUT_ALT})
    page.goto(ORIGIN + "/")
    with pytest.raises(pytest.fail.Exception, match="image-alt"):
        axe_gate.assert_clean()
    assert {v.size for v in axe_gate.violations} == {
        f"{PHONE['width']}x{PHONE['height']}",
        f"{DESKTOP['width']}x{DESKTOP['height']}",
    }
    axe_gate.violations.clear()


def test_a_gate_that_checked_no_page_fails(browser, axe_gate):
    browser.new_page(viewport=DESKTOP)
    with pytest.raises(pytest.fail.Exception, match="checked no page"):
        axe_gate.assert_clean()
    page = browser.new_page(viewport=DESKTOP)
    _serve(page.context, {"/": CLEAN})
    page.goto(ORIGIN + "/")


WIDE_BOX = '<div id="wide" style="width:600px">A box wider than a small phone.</div>'
WIDE_TABLE_IN_ITS_REGION = (
    '<div style="overflow-x:auto" tabindex="0" role="region" aria-label="Figures">'
    '<table style="width:600px"><caption>Figures</caption>'
    '<tr><th scope="col">A</th><th scope="col">B</th></tr>'
    "<tr><td>1</td><td>2</td></tr></table></div>"
)


def test_a_page_that_scrolls_sideways_at_320_px_fails_the_reflow_check(
    browser, axe_gate
):
    page = browser.new_page(viewport=DESKTOP)
    _serve(page.context, {"/": WIDE_BOX})
    page.goto(ORIGIN + "/")
    with pytest.raises(pytest.fail.Exception, match="reflow"):
        axe_gate.assert_clean()
    assert {(v.rule, v.target, v.size) for v in axe_gate.violations} == {
        ("reflow", "div#wide", f"{REFLOW['width']}x{REFLOW['height']}")
    }
    assert page.viewport_size == DESKTOP
    axe_gate.violations.clear()


def test_a_wide_table_that_scrolls_in_its_own_region_reflows(browser, axe_gate):
    page = browser.new_page(viewport=PHONE)
    _serve(page.context, {"/": WIDE_TABLE_IN_ITS_REGION})
    page.goto(ORIGIN + "/")
    axe_gate.assert_clean()
    assert axe_gate.violations == []


FIXED_SIZE_TEXT = '<p id="fixed" style="font-size:14px">Text locked at 14 pixels.</p>'


def test_text_that_keeps_its_size_when_text_is_zoomed_fails_the_gate(browser, axe_gate):
    page = browser.new_page(viewport=PHONE)
    _serve(page.context, {"/": FIXED_SIZE_TEXT})
    page.goto(ORIGIN + "/")
    with pytest.raises(pytest.fail.Exception, match="resize-text"):
        axe_gate.assert_clean()
    assert {(v.rule, v.target) for v in axe_gate.violations} == {
        ("resize-text", "p#fixed")
    }
    assert page.evaluate("() => document.documentElement.style.fontSize") == ""
    axe_gate.violations.clear()
