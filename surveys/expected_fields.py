"""Forms that refuse what they did not ask for.

A public POST carries exactly the fields its form declares (plus the CSRF
token): any other field, a file, or a single-valued field sent twice makes the
form invalid, so the view answers 400 with a clear message and nothing is
stored or changed; so does a value holding a control character.  The
respondent's device builds its body from an allowlist (``static/js/outbox.js``);
this is the server's side of the same rule, so that a page or device bug can
never turn into a stored true answer.

Each form knows its own fields (``expected_fields``); the check runs in
``clean``, before anything reads the data.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy

CSRF_FIELD = "csrfmiddlewaretoken"
# Control characters (Unicode category Cc): no public field or token holds one.
CONTROL_CHARACTERS = "\\x00-\\x1f\\x7f-\\x9f"
_CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]")
# A field name is echoed back (escaped) at most this long, and at most this many.
NAME_SHOWN = 40
NAMES_SHOWN = 5

UNEXPECTED = gettext_lazy(
    "Nothing was stored: the page sent %(fields)s, which this form does not ask "
    "for. Reload the page and try again."
)
CONTROLLED = gettext_lazy(
    "Nothing was stored: %(fields)s arrived with control characters, which no "
    "field of this form holds. Reload the page and try again."
)
REPEATED = gettext_lazy(
    "Nothing was stored: the page sent %(fields)s more than once. Reload the "
    "page and try again."
)


def has_control_characters(text: str) -> bool:
    """Whether ``text`` holds a control character (a NUL, a tab, DEL, ...)."""
    return _CONTROL.search(text) is not None


def quoted_names(names: list[str]) -> str:
    """``names`` as the messages show them: quoted, shortened, at most five."""
    shown = [
        f"“{name[:NAME_SHOWN]}{'…' if len(name) > NAME_SHOWN else ''}”"
        for name in names[:NAMES_SHOWN]
    ]
    if len(names) > NAMES_SHOWN:
        shown.append("…")
    return ", ".join(shown)


class ExpectedFieldsMixin:
    """A form mixin: the posted data may hold only the form's own fields.

    ``also_expected`` names fields read elsewhere (the CSRF token, read by
    Django's middleware).  Subclasses narrow ``expected_fields`` (a field that
    must never arrive, such as a true answer shown on the page) or word the
    refusal of some names themselves (``explained_unexpected``).
    """

    also_expected: ClassVar[frozenset[str]] = frozenset({CSRF_FIELD})
    # Set by forms.Form.
    fields: dict[str, forms.Field]
    data: Any
    files: Any
    is_bound: bool

    def expected_fields(self) -> set[str]:
        """The names this form reads from a POST."""
        return set(self.fields) | set(self.also_expected)

    def unexpected_fields(self) -> list[str]:
        """The posted names (fields or files) this form did not ask for."""
        posted = set(self.data) | set(self.files or ())
        return sorted(posted - self.expected_fields())

    def repeated_fields(self) -> list[str]:
        """The single-valued fields sent more than once."""
        if not hasattr(self.data, "getlist"):
            return []
        return sorted(
            name
            for name in self.data
            if name in self.expected_fields()
            and not isinstance(self.fields.get(name), forms.MultipleChoiceField)
            and len(self.data.getlist(name)) > 1
        )

    def fields_with_control_characters(self) -> list[str]:
        """The posted fields whose value holds a control character (a NUL,
        a tab, DEL, ...): no field of a public form ever does, but the line
        breaks of a field that takes several lines (``lines = True``: an
        open-text answer)."""
        values = self.data.lists() if hasattr(self.data, "lists") else self.data.items()

        def text(name: str, value: str) -> str:
            if getattr(self.fields.get(name), "lines", False) is True:
                return value.replace("\r", "").replace("\n", "")
            return value

        return sorted(
            {
                name
                for name, posted in values
                for value in (posted if isinstance(posted, list) else [posted])
                if isinstance(value, str) and has_control_characters(text(name, value))
            }
        )

    def explained_unexpected(self, names: list[str]) -> list[str]:
        """Refuse those of ``names`` a subclass explains better; the rest."""
        return names

    def clean(self) -> dict[str, Any]:
        data = super().clean()  # type: ignore[misc]
        if not self.is_bound:
            return data
        unexplained = self.explained_unexpected(self.unexpected_fields())
        if unexplained:
            self.add_error(  # type: ignore[attr-defined]
                None, UNEXPECTED % {"fields": quoted_names(unexplained)}
            )
        controlled = self.fields_with_control_characters()
        if controlled:
            self.add_error(  # type: ignore[attr-defined]
                None, CONTROLLED % {"fields": quoted_names(controlled)}
            )
        repeated = self.repeated_fields()
        if repeated:
            self.add_error(  # type: ignore[attr-defined]
                None, REPEATED % {"fields": quoted_names(repeated)}
            )
        return data


class EmptyPostForm(ExpectedFieldsMixin, forms.Form):
    """A POST that is only a confirmation (a button): nothing but the CSRF token."""


def refusal_page(request: HttpRequest, form: forms.Form) -> HttpResponse:
    """400: the site's "bad request" page, saying what ``form`` refused."""
    refusals = [str(error) for errors in form.errors.values() for error in errors]
    return render(request, "400.html", {"refusals": refusals}, status=400)
