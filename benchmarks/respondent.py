"""A respondent as the browser is one: the answer page read, the form built.

:class:`RespondPage` reads the answer page (hidden fields, choices, the
device's configuration with the compiled specs); :func:`form_body` randomizes
every private answer with the Python reference mechanism (compiled once per
spec, :class:`Mechanisms`) and builds the form the page's script posts.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections import defaultdict
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlencode

import numpy as np


class RespondPage(HTMLParser):
    """What a respondent's browser reads from the respond page."""

    def __init__(self, html: str):
        super().__init__()
        self.hidden: dict[str, str] = {}
        self.choices: dict[str, list[str]] = defaultdict(list)  # radios, checkboxes
        self.multiple: set[str] = set()  # names of checkbox groups
        self.numbers: dict[str, str] = {}  # other named inputs: their minimum
        self._config: list[str] | None = None
        self.config_text = ""
        self.csrf_cookie = ""  # from the response's Set-Cookie
        self.feed(html)
        self.close()
        self.config: dict[str, Any] = json.loads(self.config_text or "{}")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value or "" for key, value in attrs}
        name = values.get("name")
        if tag == "input" and name:
            kind = values.get("type", "text").lower()
            if kind == "hidden":
                self.hidden[name] = values.get("value", "")
            elif kind in {"radio", "checkbox"}:
                self.choices[name].append(values.get("value", ""))
                if kind == "checkbox":
                    self.multiple.add(name)
            else:
                self.numbers[name] = values.get("min") or "0"
        elif tag == "script" and values.get("id") == "device-config":
            self._config = []

    def handle_data(self, data: str) -> None:
        if self._config is not None:
            self._config.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._config is not None:
            self.config_text = "".join(self._config)
            self._config = None


class Mechanisms:
    """Compiled mechanisms by spec, shared by every client thread."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, spec: dict[str, Any]) -> Any:
        import ldp

        key = json.dumps(spec, sort_keys=True)
        with self._lock:
            if key not in self._built:
                self._built[key] = ldp.build(spec)
            return self._built[key]


def true_answer(
    question: dict[str, Any], mechanism: Any, rng: np.random.Generator
) -> int | list[int]:
    """A random true answer in the input domain of a private question."""
    if question["kind"] == "multi_select":
        most = question.get("max_selections") or mechanism.k
        count = int(rng.integers(0, most + 1))
        return sorted(rng.choice(mechanism.k, size=count, replace=False).tolist())
    size = mechanism.m if hasattr(mechanism, "m") else mechanism.k
    return int(rng.integers(0, size))


def report(question: dict[str, Any], mechanism: Any, rng: np.random.Generator) -> str:
    """The JSON report the browser would send for one private question."""
    answer = true_answer(question, mechanism, rng)
    values = [answer] if question["kind"] == "multi_select" else np.asarray([answer])
    payload = mechanism.randomize(values, rng).tolist()[0]
    return json.dumps(payload, separators=(",", ":"))


def form_body(
    page: RespondPage, mechanisms: Mechanisms, rng: np.random.Generator
) -> tuple[str, bytes]:
    """A new idempotency key and the urlencoded form the page's script posts."""
    fields: list[tuple[str, str]] = []
    reports = {
        f"q{question['id']}_report": report(
            question, mechanisms.get(question["spec"]), rng
        )
        for question in page.config.get("questions", [])
    }
    key = str(uuid.uuid4())
    for name, value in page.hidden.items():
        if name == "idempotency_key":
            value = key
        fields.append((name, reports.get(name, value)))
    for name, options in page.choices.items():
        # One option of a radio group, or one ticked box of a checkbox group.
        fields.append((name, str(rng.choice(options))))
    fields.extend(page.numbers.items())
    return key, urlencode(fields).encode()
