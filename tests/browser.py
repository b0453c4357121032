"""Headless Chromium for the browser tests, and the "lying" random source.

The browser is the system's Chromium (``chromium`` on PATH), driven by
Playwright's Python API; Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connections

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def headless_chromium(
    back_forward_cache: bool = False, extra_args: Iterable[str] = ()
) -> Iterator[Any]:
    """A launched Chromium browser, closed (with the test's DB connections) after.

    Playwright's sync API keeps an event loop running in this thread, so while
    the browser is open Django would take the test's plain synchronous
    database calls for async ones; they are allowed for that long.  Playwright
    turns Chromium's back-forward cache off; ``back_forward_cache=True`` keeps
    it on, as in a respondent's browser.  ``extra_args`` are added to
    Chromium's command line.
    """
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail("Chromium is not installed (no `chromium` on PATH)")
    saved = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(
                executable_path=executable,
                args=[*CHROMIUM_ARGS, *extra_args],
                ignore_default_args=(
                    ["--disable-back-forward-cache"] if back_forward_cache else None
                ),
            )
            try:
                yield launched
            finally:
                launched.close()
                # Connections opened while Playwright's loop runs live in their
                # own context; close them here or the test database cannot be
                # dropped.
                connections.close_all()
    finally:
        if saved is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = saved


def lying_script(word: int) -> str:
    """An init script: every 32-bit word the page draws is ``word``.

    Only ``Uint32Array`` draws (the randomizer's word pool) are fixed; other
    arrays (the submission's idempotency key) still get secure random bytes.
    """
    return (
        "(() => { const real = Crypto.prototype.getRandomValues;"
        " Crypto.prototype.getRandomValues = function (array) {"
        f" if (array instanceof Uint32Array) {{ array.fill({word}); return array; }}"
        " return real.call(this, array); }; })();"
    )


def lies(mechanism: Any, truth: Any, report: Any) -> bool:
    """True when ``report`` is not an encoding of ``truth`` for ``mechanism``.

    Single-answer reports must differ from the true index; a multi-select
    report must not be one of the true options (one sampled item) nor the
    true options' indicator vector (one bit per option).
    """
    if not isinstance(truth, list):
        return report != truth
    if isinstance(report, list):
        indicator = [int(i in truth) for i in range(len(report))]
        return report != indicator and report != sorted(truth)
    return report not in truth


def lying_word(cases: Iterable[tuple[Any, Any]]) -> int:
    """A 32-bit word with which every (mechanism, true answer) reports a lie.

    A word the sampler rejects would repeat forever; 16 draws without a report
    counts as rejected.
    """
    cases = list(cases)
    for word in range(2**32 - 1, 2**32 - 4097, -1):
        for mechanism, truth in cases:
            calls = iter(range(16))

            def draw(word: int = word, calls=calls) -> int:
                if next(calls, None) is None:
                    raise RuntimeError("word rejected")
                return word

            try:
                report = mechanism.randomize_one(truth, draw)
            except RuntimeError:
                break
            if not lies(mechanism, truth, report):
                break
        else:
            return word
    raise AssertionError("no single word makes every mechanism lie")


def served_in_language(language: str) -> Any:
    """A Playwright route handler serving a page as it is, in ``language``.

    Until the server negotiates the language itself, this is how the browser
    tests choose it: the page as served, with ``<html lang>`` set and the
    catalog link that ``{% js_catalog_link %}`` renders for the language
    (added only where the page has none; nothing of the project is replaced).
    """
    from django.template import Context, Template
    from django.utils import translation

    with translation.override(language):
        link = Template("{% load js_catalog %}{% js_catalog_link %}").render(Context())

    def handle(route: Any) -> None:
        response = route.fetch()
        html = re.sub(
            r'<html lang="[^"]*"', f'<html lang="{language}"', response.text()
        )
        if "data-js-catalog" not in html:
            html = html.replace("</head>", f"  {link}\n</head>", 1)
        route.fulfill(response=response, body=html)

    return handle
