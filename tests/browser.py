"""Headless Chromium for the browser tests, and the "lying" random source.

The browser is the system's Chromium (``chromium`` on PATH), driven by
Playwright's Python API; Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import DatabaseError, connections

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class SharedChromium:
    """One Playwright driver, and one Chromium per set of launch options, kept
    for a run of consecutive browser tests instead of started for each test.

    Starting the driver and Chromium cost about two seconds a test; every test
    still gets browser contexts of its own (cookies, storage, cache and
    service workers are per context), closed when it ends.  Playwright's sync
    API keeps an event loop running in this thread while the driver runs, so
    Django would take the tests' plain synchronous database calls for async
    ones: they are allowed for exactly that long.  ``stop`` (called by
    ``tests/conftest.py`` after a test whose next test is not a browser test,
    and at the end of the run) closes everything and puts the setting back.
    """

    def __init__(self) -> None:
        self._manager: Any = None
        self._playwright: Any = None
        self._browsers: dict[tuple[bool, tuple[str, ...]], Any] = {}
        self._saved: str | None = None

    @property
    def running(self) -> bool:
        return self._playwright is not None

    def browser(self, back_forward_cache: bool, extra_args: Iterable[str]) -> Any:
        """The running Chromium with these options, launched if need be."""
        key = (back_forward_cache, tuple(extra_args))
        launched = self._browsers.get(key)
        if launched is not None and launched.is_connected():
            return launched
        executable = shutil.which("chromium")
        if executable is None:
            pytest.fail("Chromium is not installed (no `chromium` on PATH)")
        options = {
            "executable_path": executable,
            "args": [*CHROMIUM_ARGS, *key[1]],
            "ignore_default_args": (
                ["--disable-back-forward-cache"] if back_forward_cache else None
            ),
        }
        if launched is not None:  # it went away (crashed): start afresh
            self.stop()
        launched = self._driver().chromium.launch(**options)
        self._browsers[key] = launched
        return launched

    def _driver(self) -> Any:
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            self._saved = os.environ.get(ASYNC_UNSAFE)
            os.environ[ASYNC_UNSAFE] = "true"
            self._manager = sync_playwright()
            try:
                self._playwright = self._manager.__enter__()
            except BaseException:
                self._manager = None
                self._restore()
                raise
        return self._playwright

    def stop(self) -> None:
        """Close every browser and the driver; synchronous calls are Django's again."""
        if self._playwright is None:
            return
        try:
            for launched in self._browsers.values():
                if launched.is_connected():
                    launched.close()
        finally:
            self._browsers.clear()
            manager, self._manager, self._playwright = self._manager, None, None
            try:
                manager.__exit__(None, None, None)
            finally:
                # Connections opened while Playwright's loop ran live in their
                # own context; close them or the test database cannot be dropped.
                connections.close_all()
                self._restore()

    def _restore(self) -> None:
        if self._saved is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = self._saved


SHARED = SharedChromium()


@contextmanager
def headless_chromium(
    back_forward_cache: bool = False, extra_args: Iterable[str] = ()
) -> Iterator[Any]:
    """A headless Chromium for one test (or one fixture): every browser context
    opened on it meanwhile is closed after, with the test's DB connections.

    The browser itself is :data:`SHARED`'s, kept running for the next browser
    test.  Playwright turns Chromium's back-forward cache off;
    ``back_forward_cache=True`` keeps it on, as in a respondent's browser.
    ``extra_args`` are added to Chromium's command line.
    """
    launched = SHARED.browser(back_forward_cache, extra_args)
    before = set(launched.contexts)
    try:
        yield launched
    finally:
        try:
            for context in launched.contexts:
                if context not in before:
                    context.close()
        except BaseException:
            SHARED.stop()  # the next test starts on a fresh browser
            raise
        finally:
            wait_for_requests_in_flight()
            connections.close_all()


# Other sessions on the test database still in a statement or a transaction.
BUSY_SESSIONS = """SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid()
AND state IN ('active', 'idle in transaction')"""


def wait_for_requests_in_flight(timeout: float = 10.0) -> None:
    """Wait until no other session works on the test database (at most
    ``timeout`` seconds): a request the live server received before the
    test's pages closed may still hold locks, and the test's flush (TRUNCATE)
    would deadlock with it.  Without database access, nothing to wait for.
    """
    deadline = time.monotonic() + timeout
    try:
        with connections["default"].cursor() as cursor:
            while time.monotonic() < deadline:
                cursor.execute(BUSY_SESSIONS)
                if cursor.fetchone()[0] == 0:
                    return
                time.sleep(0.05)
    except (RuntimeError, DatabaseError):  # no database access in this test
        return


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
