"""The statistical ε audit, run on the randomizer as the app serves it, in Chromium.

The Node audit (``tests/ldp/test_js_audit.py``) audits ``ldp/js/randomizer.js``
from disk.  Respondents run something else: the bytes ``/s/randomizer.js``
serves, in a browser, drawing from the browser's ``crypto.getRandomValues``.
Here headless Chromium opens the app's verify page on a live server, imports
the module from its URL, and draws N = 10^6 reports per input for every audit
spec (one or more per mechanism family, the same specs and inputs as the Node
audit) with the same counting code (``tests/js/audit_counts.mjs``, fulfilled
on the page's own origin so the app's Content Security Policy applies).  The
counts are judged by the same estimator, ``tests/ldp/js_audit.py``:

    ε_lb = max ln( CP_lower(count_x(S), N) / CP_upper(count_x'(S), N) )

with one-sided Clopper–Pearson bounds (Clopper & Pearson, Biometrika 1934),
α = 0.05 split by Bonferroni over every test of the run, over input pairs and
events fixed in advance from the spec (as in Arcolezi & Gambs, "LDP-Auditor",
PETS 2024).  Because N is the Node audit's, so are the floors: ε_lb ≤ ε (no
over-claim), ε_lb ≥ 0.9 ε (tight), chi-square p ≥ 10^-6 against the exact
channel for every input (fit), and every report in the output domain.

The audit only means something for the bytes respondents run, so the module's
bytes as Chromium received them must hash (SHA-384) to the fingerprint the
verify page publishes, and the respondent page's Subresource Integrity
attribute must be that same hash (so Chromium refuses any other bytes).
"""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page

import ldp
from surveys.collection import assets
from tests.browser import headless_chromium
from tests.conftest import ROOT
from tests.ldp.js_audit import (
    AUDIT_COUNTS,
    AUDIT_SPECS,
    FIT_P_MIN,
    TIGHTNESS,
    N,
    audit_items,
    compiled,
    evaluate,
    figure_line,
)

ARTIFACTS = ROOT / "test-artifacts"
# Where the page imports the counting code from: a path on the app's origin
# that the app does not serve, fulfilled by the browser driver with the file.
COUNTS_PATH = "/audit-only/audit_counts.mjs"

# One spec per call keeps each page evaluation bounded (the largest, a
# 1,001-level geometric grid, takes about 30 s at N = 10^6).
COUNT_ONE_SPEC = """async ([moduleUrl, countsUrl, item, n]) => {
  const module = await import(moduleUrl);
  const { auditCounts } = await import(countsUrl);
  return auditCounts(module, [item], n)[0];
}"""


def sri(data: bytes) -> str:
    """A Subresource Integrity value: ``sha384-`` and the base64 digest."""
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def published_fingerprint(page: Page) -> str:
    """The randomizer's fingerprint as the verify page shows it."""
    section = page.locator(
        "section.script", has=page.locator("h2", has_text="randomizer.js")
    )
    return section.locator("code.hash").inner_text().strip()


def open_verify_page(page: Page, url: str, module_url: str) -> bytes:
    """Open the verify page (which loads the module with its integrity hash);
    the bytes Chromium received for the module."""
    with page.expect_response(module_url) as response:
        page.goto(url)
    return response.value.body()


@pytest.fixture(scope="module")
def served_audit(live_server) -> dict[str, Any]:
    """Counts from the served module in Chromium, with the bytes it ran.

    Everything runs (and Chromium closes) inside the fixture, so the tests
    below read plain data.
    """
    verify_url = live_server.url + reverse("collection:verify")
    module_url = live_server.url + reverse("collection:randomizer")
    counts_url = live_server.url + COUNTS_PATH
    counts_source = AUDIT_COUNTS.read_bytes()
    items = dict(zip(AUDIT_SPECS, audit_items(), strict=True))
    with headless_chromium() as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route(
            counts_url,
            lambda route: route.fulfill(
                body=counts_source, content_type="text/javascript"
            ),
        )
        loaded = open_verify_page(page, verify_url, module_url)
        published = published_fingerprint(page)
        started = time.monotonic()
        counts = {
            name: page.evaluate(COUNT_ONE_SPEC, [module_url, counts_url, item, N])
            for name, item in items.items()
        }
        seconds = time.monotonic() - started
        user_agent = page.evaluate("() => navigator.userAgent")
    verdicts = evaluate(counts, N)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "browser-audit.txt").write_text(
        f"Served randomizer audited in {user_agent}\n"
        f"N = {N} reports per input, counting took {seconds:.1f} s\n"
        + "\n".join(figure_line(name, v) for name, v in verdicts.items())
        + "\n",
        encoding="utf-8",
    )
    return {
        "published": published,
        "loaded": loaded,
        "errors": errors,
        "verdicts": verdicts,
    }


def test_chromium_audits_the_bytes_whose_hash_the_verify_page_publishes(
    served_audit,
) -> None:
    assert served_audit["errors"] == []
    assert sri(served_audit["loaded"]) == served_audit["published"]
    assert served_audit["loaded"] == assets.randomizer_script().source


def test_served_randomizer_audit_covers_every_mechanism(served_audit) -> None:
    audited = {mechanism.spec["mechanism"] for mechanism in compiled().values()}
    assert audited == set(ldp.MECHANISMS)
    assert set(served_audit["verdicts"]) == set(AUDIT_SPECS)


def test_served_randomizer_never_leaks_more_than_the_delivered_epsilon(
    served_audit,
) -> None:
    over = {
        name: (v.get("eps_lb"), v["epsilon"])
        for name, v in served_audit["verdicts"].items()
        if "eps_lb" not in v or v["eps_lb"] > v["epsilon"]
    }
    assert not over, over


def test_served_randomizer_reaches_the_delivered_epsilon(served_audit) -> None:
    loose = {
        name: (v.get("eps_lb"), v["epsilon"])
        for name, v in served_audit["verdicts"].items()
        if "eps_lb" not in v or v["eps_lb"] < TIGHTNESS * v["epsilon"]
    }
    assert not loose, loose


def test_served_randomizer_reports_follow_the_exact_channel(served_audit) -> None:
    misfit = {
        name: v.get("fit_p")
        for name, v in served_audit["verdicts"].items()
        if "fit_p" not in v or v["fit_p"] < FIT_P_MIN
    }
    assert not misfit, misfit


def test_served_randomizer_reports_stay_in_the_output_domain(served_audit) -> None:
    broken = {
        name: v.get("error", v.get("invalid"))
        for name, v in served_audit["verdicts"].items()
        if "runs" in v["failed"]
    }
    assert not broken, broken


@pytest.mark.django_db(transaction=True)
def test_respondent_page_integrity_attribute_is_the_sha384_of_the_served_bytes(
    live_server, survey, browser
) -> None:
    respond_url = live_server.url + reverse(
        "collection:respond", args=[survey.public_token]
    )
    module_url = live_server.url + reverse("collection:randomizer")
    page = browser.new_page()
    with page.expect_response(module_url) as response:
        page.goto(respond_url)
    loaded = response.value.body()
    page.wait_for_selector('button[type="submit"]:not([disabled])', timeout=10_000)
    assert "passed its integrity check" in page.inner_text("#script-note")
    integrity = page.get_attribute(
        "link[rel=modulepreload][data-randomizer]", "integrity"
    )
    page.goto(live_server.url + reverse("collection:verify"))
    assert integrity == sri(loaded) == published_fingerprint(page)
