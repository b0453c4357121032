"""The accessibility gate: axe-core checks every page a browser test loads.

axe-core comes from the npm registry (``package.json``; ``scripts/ensure-node``
installs it into ``node_modules/``) and reaches the test browser only: its
source is evaluated in the page through Playwright, which the page's Content
Security Policy does not govern, so no template, static file or CSP exception
of the site ever carries it.

A new document is checked once it has loaded, just before the test's next
action on any page (a click, a key, a ``goto``, closing it...) and, for pages
still open, when the test ends: so each page is checked in the state the test
brought it to, never while the test is still acting on it.  Each check runs axe
at the page's own size and once more at the other size (desktop or phone),
then checks that it reflows at 320 CSS pixels (WCAG 2.1, 1.4.10: no sideways
scrolling of the page; a table or chart may scroll in its own region) and
that its text resizes to 200% at desktop size (1.4.4: text-only zoom),
putting the size back after.  :meth:`AxeGate.assert_clean` fails the test
listing every violation: rule id, impact, target selector, URL and size.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
AXE_SOURCE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.0 and 2.1, levels A and AA, and Deque's best practices.
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice")
PHONE_WIDTH_AT_MOST = 600

# Runs axe on the page's document; null for a document that is not HTML (a
# JSON or text response the test opened).  The violations come back as plain
# data: rule id, impact, help text and each failing node's target selector.
RUN_AXE = """async (tags) => {
  if (document.contentType !== "text/html") return null;
  const results = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations"],
  });
  return results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact || "",
    help: v.help,
    targets: v.nodes.map((n) => n.target.join(" ")),
  }));
}"""

# WCAG 2.1 success criterion 1.4.10 (Reflow): at 320 CSS pixels wide (1280
# at 400% zoom) the page must not scroll sideways; a table or chart may
# scroll inside its own region.  Null when the page fits; else its width and
# the outermost elements that stick out (not those inside a region that
# scrolls or clips sideways by itself).
REFLOW = {"width": 320, "height": 640}
CHECK_REFLOW = """() => {
  if (document.contentType !== "text/html") return null;
  const page = document.scrollingElement || document.documentElement;
  const width = window.innerWidth;
  if (page.scrollWidth <= width) return null;
  const clips = (element) => {
    const sideways = ["auto", "scroll", "hidden", "clip"];
    let up = element.parentElement;
    for (; up && up !== document.body; up = up.parentElement) {
      if (sideways.includes(getComputedStyle(up).overflowX)) return true;
    }
    return false;
  };
  const name = (element) => element.tagName.toLowerCase()
    + (element.id ? "#" + element.id : "")
    + (typeof element.className === "string" && element.className.trim()
      ? "." + element.className.trim().split(/\\s+/).join(".") : "");
  const out = [];
  for (const element of document.body.querySelectorAll("*")) {
    if (element.getBoundingClientRect().right > width + 1 && !clips(element)) {
      if (!out.some((outer) => outer.contains(element))) out.push(element);
    }
  }
  return { scrollWidth: page.scrollWidth, width, elements: out.slice(0, 5).map(name) };
}"""

# WCAG 2.1 success criterion 1.4.4 (Resize text): text-only zoom to 200%, as
# a reader who sets a larger default font gets it.  The site's CSS sizes text
# in rem and em from ``html { font-size: 100% }``, so doubling the root's size
# is that setting.  Null when every rendered text (charts' SVG aside: they
# scale with their figure and each has a table of the same numbers) doubled
# and the page still does not scroll sideways; else what did not.
TEXT_ZOOM = """() => {
  if (document.contentType !== "text/html" || !document.body) return null;
  const root = document.documentElement;
  const texts = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || !element) continue;
    if (element.closest("svg, script, style, noscript, template")) continue;
    if (element.getClientRects().length === 0) continue;
    texts.add(element);
  }
  const elements = [...texts];
  const size = (element) => parseFloat(getComputedStyle(element).fontSize);
  const before = elements.map(size);
  const name = (element) => element.tagName.toLowerCase()
    + (element.id ? "#" + element.id : "")
    + (typeof element.className === "string" && element.className.trim()
      ? "." + element.className.trim().split(/\\s+/).join(".") : "");
  const saved = root.style.fontSize;
  root.style.fontSize = "200%";
  try {
    const fixed = elements.filter((element, i) => size(element) < before[i] * 1.99);
    const page = document.scrollingElement || root;
    const wide = page.scrollWidth > window.innerWidth;
    if (!fixed.length && !wide) return null;
    return {
      fixed: [...new Set(fixed.map(name))].slice(0, 5),
      scrollWidth: wide ? page.scrollWidth : null,
      width: window.innerWidth,
    };
  } finally {
    root.style.fontSize = saved;
  }
}"""

# Every action through which a test can make a page navigate or change: the
# gate checks pages with a new document before any of them runs.
ACTIONS = {
    "Page": (
        "goto",
        "reload",
        "go_back",
        "go_forward",
        "close",
        "click",
        "press",
        "fill",
        "check",
        "select_option",
        "evaluate",
        "set_viewport_size",
    ),
    "Locator": (
        "click",
        "dblclick",
        "tap",
        "press",
        "press_sequentially",
        "fill",
        "check",
        "uncheck",
        "set_checked",
        "select_option",
        "set_input_files",
        "dispatch_event",
        "focus",
    ),
    "Keyboard": ("press", "type", "insert_text"),
    "Mouse": ("click",),
    "BrowserContext": ("close",),
}


@dataclass(frozen=True)
class Violation:
    """One axe rule failing on one element of one page at one size."""

    rule: str
    impact: str
    target: str
    url: str
    size: str
    help: str

    def __str__(self) -> str:
        return (
            f"{self.rule} ({self.impact}) at {self.target!r} on {self.url}"
            f" [{self.size}]: {self.help}"
        )


def axe_source() -> str:
    """axe-core's source, installed from package-lock.json by scripts/ensure-node."""
    if not AXE_SOURCE.is_file():
        pytest.fail(
            "axe-core is not installed: run `bash scripts/ensure-node`"
            " (npm ci from package-lock.json)"
        )
    return AXE_SOURCE.read_text(encoding="utf-8")


def size_name(viewport: dict[str, int]) -> str:
    """``WIDTHxHEIGHT`` of a viewport."""
    return f"{viewport['width']}x{viewport['height']}"


@dataclass
class AxeGate:
    """Checks each document the watched pages load, at desktop and phone size.

    ``desktop`` and ``phone`` are viewports (``{"width": ..., "height": ...}``);
    a page at most ``PHONE_WIDTH_AT_MOST`` pixels wide is checked at its own
    size and at ``desktop``, any other at its own size and at ``phone``.
    """

    desktop: dict[str, int]
    phone: dict[str, int]
    source: str = field(default_factory=axe_source, repr=False)
    violations: list[Violation] = field(default_factory=list)
    checked: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    _watched: dict[int, Any] = field(default_factory=dict, repr=False)
    _pending: dict[int, Any] = field(default_factory=dict, repr=False)
    _busy: bool = False

    def watch_context(self, context: Any) -> Any:
        """Watch every page ``context`` opens (now and later); returns it."""
        context.on("page", self.watch)
        for page in context.pages:
            self.watch(page)
        return context

    def watch(self, page: Any) -> Any:
        """Check every HTML document ``page`` loads from now on; returns it."""
        if id(page) in self._watched:
            return page
        self._watched[id(page)] = page

        def navigated(frame: Any) -> None:
            if frame.parent_frame is None:
                self._pending[id(page)] = page

        page.on("framenavigated", navigated)
        page.on("close", lambda _: self._pending.pop(id(page), None))
        if page.url != "about:blank":
            self._pending[id(page)] = page
        return page

    def check_pending(self) -> None:
        """Check each watched page whose current document is not checked yet."""
        if self._busy:
            return
        self._busy = True
        try:
            while self._pending:
                _, page = self._pending.popitem()
                self.check(page)
        finally:
            self._busy = False

    def check(self, page: Any) -> None:
        """Run axe on ``page`` at its size and at the other one, size restored."""
        from playwright.sync_api import Error

        if page.is_closed() or page.url == "about:blank":
            return
        started = time.perf_counter()
        try:
            page.wait_for_load_state("load")
            own = page.viewport_size
            other = (
                self.desktop
                if own and own["width"] <= PHONE_WIDTH_AT_MOST
                else self.phone
            )
            self._run(page, own)
            page.set_viewport_size(other)
            try:
                self._run(page, other)
                page.set_viewport_size(REFLOW)
                self._reflow(page)
                page.set_viewport_size(self.desktop)
                self._text_zoom(page)
            finally:
                if own:
                    page.set_viewport_size(own)
        except Error as error:
            # The page's own script navigated away mid-check: the new document
            # is pending (framenavigated) and is checked in its turn.
            if "context was destroyed" not in str(error) or page.is_closed():
                raise
        finally:
            self.seconds += time.perf_counter() - started

    def _run(self, page: Any, viewport: dict[str, int] | None) -> None:
        if not page.evaluate("() => typeof window.axe === 'object'"):
            page.evaluate("() => {\n" + self.source + "\n}")
        found = page.evaluate(RUN_AXE, list(AXE_TAGS))
        if found is None:
            return
        size = size_name(viewport) if viewport else "default"
        self.checked.append((page.url, size))
        for violation in found:
            for target in violation["targets"]:
                self.violations.append(
                    Violation(
                        rule=violation["rule"],
                        impact=violation["impact"],
                        target=target,
                        url=page.url,
                        size=size,
                        help=violation["help"],
                    )
                )

    def _reflow(self, page: Any) -> None:
        """Record a reflow violation if the page scrolls sideways at 320 px."""
        found = page.evaluate(CHECK_REFLOW)
        if found is None:
            return
        wide = f"{found['scrollWidth']} px wide at {found['width']} px"
        for target in found["elements"] or ["html"]:
            self._serious("reflow", target, page, size_name(REFLOW), wide)

    def _text_zoom(self, page: Any) -> None:
        """Record a violation if text does not double, or the page scrolls
        sideways, with text at 200% (at desktop size)."""
        found = page.evaluate(TEXT_ZOOM)
        if found is None:
            return
        size = f"{size_name(self.desktop)}, text 200%"
        for target in found["fixed"]:
            self._serious("resize-text", target, page, size, "this text keeps its size")
        if found["scrollWidth"] is not None:
            wide = f"{found['scrollWidth']} px wide at {found['width']} px"
            self._serious("resize-text", "html", page, size, f"the page is {wide}")

    def _serious(self, rule: str, target: str, page: Any, size: str, why: str) -> None:
        """Record a serious violation of one of the gate's own WCAG checks."""
        criterion = {"reflow": "1.4.10", "resize-text": "1.4.4"}[rule]
        self.violations.append(
            Violation(
                rule=rule,
                impact="serious",
                target=target,
                url=page.url,
                size=size,
                help=f"WCAG {criterion}: {why}",
            )
        )

    def assert_clean(self) -> None:
        """Fail listing every violation found, or if no page was ever checked."""
        self.check_pending()
        if not self.checked:
            pytest.fail("the accessibility gate checked no page", pytrace=False)
        if self.violations:
            listed = "\n  ".join(str(v) for v in self.violations)
            pytest.fail(
                f"axe found {len(self.violations)} accessibility violation(s):\n"
                f"  {listed}",
                pytrace=False,
            )


class GatedBrowser:
    """A Playwright ``Browser`` whose new contexts and pages the gate watches."""

    def __init__(self, browser: Any, gate: AxeGate) -> None:
        self._browser = browser
        self._gate = gate

    def new_context(self, *args: Any, **kwargs: Any) -> Any:
        """``Browser.new_context``, its pages watched by the gate.

        axe runs as a script in the page, so a context with JavaScript turned
        off (``java_script_enabled=False``) cannot be checked: Playwright would
        wait for ever on it.  Its pages are left to the journeys that load the
        same pages with JavaScript on, which the gate does check.
        """
        context = self._browser.new_context(*args, **kwargs)
        if kwargs.get("java_script_enabled") is False:
            return context
        return self._gate.watch_context(context)

    def new_page(self, *args: Any, **kwargs: Any) -> Any:
        """``Browser.new_page``, the page (and its context) watched by the gate
        (unless JavaScript is off, as in :meth:`new_context`)."""
        page = self._browser.new_page(*args, **kwargs)
        if kwargs.get("java_script_enabled") is not False:
            self._gate.watch_context(page.context)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def _checked_first(gate: AxeGate, action: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(action)
    def run(*args: Any, **kwargs: Any) -> Any:
        gate.check_pending()
        return action(*args, **kwargs)

    return run


@contextmanager
def gate_actions(gate: AxeGate, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """While open, every Playwright action checks the gate's pending pages first."""
    from playwright.sync_api import BrowserContext, Keyboard, Locator, Mouse, Page

    classes = {
        "Page": Page,
        "Locator": Locator,
        "Keyboard": Keyboard,
        "Mouse": Mouse,
        "BrowserContext": BrowserContext,
    }
    with monkeypatch.context() as patch:
        for name, methods in ACTIONS.items():
            for method in methods:
                cls = classes[name]
                patch.setattr(cls, method, _checked_first(gate, getattr(cls, method)))
        yield
