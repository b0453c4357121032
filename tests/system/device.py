"""Driving the respondent pages in Chromium: answers, requests, the ledger."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page, Route

from tests.system.conftest import ANSWERS, PROTECTED

CONFIG_BLOCK = re.compile(
    r'(<script id="device-config" type="application/json">)(.*?)(</script>)', re.S
)


def ledger_key(survey) -> str:
    return f"deniable.answered.{survey.public_token}"


def ledger(page: Page, survey) -> dict[str, Any] | None:
    """The device's note for ``survey`` as localStorage holds it."""
    raw = page.evaluate("(key) => localStorage.getItem(key)", ledger_key(survey))
    return None if raw is None else json.loads(raw)


def pending(page: Page, survey) -> str | None:
    key = f"deniable.pending.{survey.public_token}"
    return page.evaluate("(key) => sessionStorage.getItem(key)", key)


@dataclass
class Traffic:
    """Every request a browser context makes, and the bodies of its POSTs."""

    requests: list[tuple[str, str, str | None]] = field(default_factory=list)

    def record(self, request) -> None:
        self.requests.append((request.method, request.url, request.post_data))

    @property
    def posts(self) -> list[str]:
        return [body or "" for method, _, body in self.requests if method == "POST"]

    @property
    def carrying_reports(self) -> list[tuple[str, str]]:
        """Requests whose URL or body carries a question's report."""
        return [
            (url, body or "")
            for _, url, body in self.requests
            if "_report" in (body or "") or "_report" in url
        ]


def watch(context) -> Traffic:
    traffic = Traffic()
    context.on("request", traffic.record)
    return traffic


def answer(page: Page, answers=ANSWERS, only: tuple[str, ...] | None = None) -> None:
    """Tick each question's answer (only the questions named in ``only``)."""
    for question, label in answers:
        if only is not None and question not in only:
            continue
        group = page.get_by_role("group", name=question)
        group.get_by_label(label, exact=True).check()


def visible_answers(page: Page) -> dict[str, Any]:
    """Every trace of an answer in the DOM: ticked inputs, filled boxes."""
    return page.evaluate(
        """() => ({
          checked: Array.from(document.querySelectorAll('input:checked'),
                              (i) => i.id),
          filled: Array.from(
            document.querySelectorAll('fieldset.question input[type=text],'
                                      + ' fieldset.question input[type=number]'),
            (i) => i.value).filter((v) => v !== ''),
          reports: Array.from(
            document.querySelectorAll('input[name$="_report"]'),
            (i) => i.value).filter((v) => v !== ''),
        })"""
    )


def nothing_visible(page: Page) -> bool:
    return visible_answers(page) == {"checked": [], "filled": [], "reports": []}


def form_of(body: str) -> dict[str, list[str]]:
    from urllib.parse import parse_qs

    return parse_qs(body, keep_blank_values=True)


def reports_in(body: str, survey) -> dict[str, str]:
    """Each protected question's report in a sent body, keyed by its text."""
    fields = form_of(body)
    texts = {q.pk: q.text for q in survey.questions.all() if q.text in PROTECTED}
    return {text: fields[f"q{pk}_report"][0] for pk, text in texts.items()}


def force_submit(page: Page) -> None:
    """Submit the form whatever state its button is in (as a user might try)."""
    page.evaluate(
        """() => { const f = document.querySelector('form[data-respond]');
                   const b = f.querySelector('button[type=submit]');
                   b.disabled = false; f.requestSubmit(b); }"""
    )


def changed_config(text: str, change) -> str:
    """The page ``text`` with its device config changed by ``change(config)``."""
    found = CONFIG_BLOCK.search(text)
    config = json.loads(html.unescape(found.group(2)))
    change(config)
    encoded = (
        json.dumps(config)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
    )
    return text[: found.start(2)] + encoded + text[found.end(2) :]


def rewrite_config(route: Route, change) -> None:
    """Serve the real page with its device config changed by ``change(config)``.

    What a hostile server could do: the page's code and hashes stay the
    genuine ones, only the data the device is given differ.
    """
    response = route.fetch()
    route.fulfill(response=response, body=changed_config(response.text(), change))


def question_index(config: dict, text: str) -> int:
    return next(i for i, q in enumerate(config["questions"]) if q["text"] == text)
