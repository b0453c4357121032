"""Path converters for the tokens respondents' links carry."""

from __future__ import annotations

from django.urls.converters import StringConverter

from surveys.expected_fields import CONTROL_CHARACTERS


class TokenConverter(StringConverter):
    """A token in a path (public link, invitation, receipt, unsubscribe): any
    characters but "/" and control characters.

    A control character (a NUL, say, written ``%00``) never reaches a view or a
    database query: the path matches no pattern, so the answer is a 404.
    """

    regex = f"[^/{CONTROL_CHARACTERS}]+"
