"""Sentences stored as codes with parameters, worded when they are shown.

What a worker computes once for every reader (a results snapshot's
per-question warnings, a background job's failure) cannot be stored in one
reader's language.  It is stored as a *note* instead: a JSON object holding a
``code`` and the values its sentence needs, e.g. ``{"code": "too-few", "n": 3}``.

* :func:`shown` words a note in the active language, with that language's
  plural forms and its decimal comma: what a page shows;
* :func:`english` words it in English with the C locale, exactly as exports,
  the API and plain-text answers have always carried it (a script reads those,
  so they never change with the reader's language).

A note whose code this release does not know (or a sentence stored before
notes existed, kept as ``{"code": "text", "text": …}``) is shown as stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.utils.formats import get_format, number_format
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext

Note = dict[str, Any]

# --- the per-question warnings of a results snapshot --------------------------
NO_REPORTS = "no-reports"
TOO_FEW = "too-few"
SINGULAR_CHANNEL = "singular-channel"
FAR_OUTSIDE = "far-outside"
OLDER_REPORTS = "older-reports"
# --- background jobs' failures ---------------------------------------------------
EXPORT_NOT_OFFERED = "export-not-offered"
EXPORT_NOT_WRITTEN = "export-not-written"
JOB_FAILED = "job-failed"  # an unexpected error: a generic message, never its text
REFUSED = "refused"  # a known refusal: its sentence (msgid) and values
# --- any other sentence a worker stores: its msgid and values ----------------------
SENTENCE = "sentence"
# --- a sentence kept as it was stored ---------------------------------------------
TEXT = "text"


def note(code: str, **params: Any) -> Note:
    """A note: ``code`` and the values its sentence needs (JSON-friendly)."""
    return {"code": code, **params}


def _decimal(text: str, english: bool) -> str:
    """A number written in the C locale, the active language's way unless
    ``english`` (a file or a script reads it)."""
    return text if english else text.replace(".", str(get_format("DECIMAL_SEPARATOR")))


def _percent(share: float, english: bool) -> str:
    """A share as a whole percentage ("-35%"), as the warnings have written it."""
    text = f"{share:.0%}"
    if english:
        return text
    return pgettext("a percentage", "%(value)s%%") % {
        "value": _decimal(text.removesuffix("%"), english)
    }


def _no_reports(_: Note, english: bool) -> str:
    return "No reports yet." if english else gettext("No reports yet.")


def _too_few(n: Note, english: bool) -> str:
    count = int(n["n"])
    if english:  # the exports' wording, kept as it always was
        return f"Only {count} report: too few to estimate."
    return ngettext(
        "Only %(n)s report: too few to estimate.",
        "Only %(n)s reports: too few to estimate.",
        count,
    ) % {"n": count}


def _singular_channel(n: Note, english: bool) -> str:
    bound = _decimal(f"{float(n['bound']):.3g}", english)
    if english:
        return (
            "This mechanism's channel is numerically singular: its mean may be "
            f"biased by up to {bound}."
        )
    return gettext(
        "This mechanism's channel is numerically singular: its mean may be "
        "biased by up to %(bound)s."
    ) % {"bound": bound}


def _far_outside(n: Note, english: bool) -> str:
    low = _percent(float(n["low"]), english)
    high = _percent(float(n["high"]), english)
    count = int(n["n"])
    if english:
        return (
            f"Some raw estimates lie far outside 0–100% ({low} to {high}): the "
            f"noise still dominates at n = {count}; read the consistent estimate "
            "and wait for more responses."
        )
    return gettext(
        "Some raw estimates lie far outside 0–100%% (%(low)s to %(high)s): the "
        "noise still dominates at n = %(n)s; read the consistent estimate and "
        "wait for more responses."
    ) % {"low": low, "high": high, "n": count}


def _older_reports(n: Note, english: bool) -> str:
    count = int(n["n"])
    if english:
        return (
            f"{count} report{'s' if count != 1 else ''} made under earlier "
            f"versions of this question {'are' if count != 1 else 'is'} not "
            "included."
        )
    return ngettext(
        "%(n)s report made under earlier versions of this question is not included.",
        "%(n)s reports made under earlier versions of this question are not included.",
        count,
    ) % {"n": count}


_EXPORT_NOT_OFFERED_TEXT = gettext_noop("This export is no longer offered.")


def _export_not_offered(_: Note, english: bool) -> str:
    return _EXPORT_NOT_OFFERED_TEXT if english else gettext(_EXPORT_NOT_OFFERED_TEXT)


_EXPORT_NOT_WRITTEN_TEXT = gettext_noop("The file could not be written; ask again.")


def _export_not_written(_: Note, english: bool) -> str:
    return _EXPORT_NOT_WRITTEN_TEXT if english else gettext(_EXPORT_NOT_WRITTEN_TEXT)


_JOB_FAILED_TEXT = gettext_noop("The analysis failed unexpectedly; ask for it again.")


def _job_failed(_: Note, english: bool) -> str:
    return _JOB_FAILED_TEXT if english else gettext(_JOB_FAILED_TEXT)


def _number(value: Any, english: bool) -> Any:
    """A refusal's value as shown: a float as ``:g`` writes it and a count
    grouped ("100,000"), the reader's way on a page; anything else as it is."""
    if isinstance(value, float):
        return _decimal(f"{value:g}", english)
    if isinstance(value, int) and not isinstance(value, bool) and not english:
        return number_format(value, force_grouping=True)
    return value


def _sentence(n: Note, english: bool) -> str:
    message = str(n["message"])
    values = {
        name: _number(value, english) for name, value in (n.get("values") or {}).items()
    }
    text = message if english else gettext(message)
    return text % values if values else text


def sentence(message: str, **values: Any) -> Note:
    """A note of ``message`` (an English sentence marked ``gettext_noop``, with
    ``%(name)s`` placeholders) and its ``values``: worded for each reader when
    shown, like a refusal."""
    return note(SENTENCE, message=message, values=values)


class Refusal(ValueError):
    """An analysis that cannot be done as asked, and why, worded when shown.

    ``message`` is an English sentence marked for the catalogs
    (``gettext_noop``) with ``%(name)s`` placeholders filled from ``values``.
    ``str()`` is the English sentence (logs, plain-text answers); :meth:`note`
    is what a job stores, so each reader sees it in their own language
    (:func:`shown`); :meth:`shown` words it now, in the active language.
    """

    def __init__(self, message: str, **values: Any) -> None:
        self.message, self.values = message, values
        super().__init__(_sentence(self.note(), english=True))

    def note(self) -> Note:
        """The refusal as a note (JSON-friendly)."""
        return note(REFUSED, message=self.message, values=self.values)

    def shown(self) -> str:
        """The refusal in the active language."""
        return shown(self.note())


WORDINGS: dict[str, Callable[[Note, bool], str]] = {
    REFUSED: _sentence,
    SENTENCE: _sentence,
    NO_REPORTS: _no_reports,
    TOO_FEW: _too_few,
    SINGULAR_CHANNEL: _singular_channel,
    FAR_OUTSIDE: _far_outside,
    OLDER_REPORTS: _older_reports,
    EXPORT_NOT_OFFERED: _export_not_offered,
    EXPORT_NOT_WRITTEN: _export_not_written,
    JOB_FAILED: _job_failed,
}


def _worded(value: Note | str, english: bool) -> str:
    if isinstance(value, str):  # a sentence stored before notes existed
        return value
    wording = WORDINGS.get(str(value.get("code")))
    if wording is None:
        return str(value.get("text", ""))
    try:
        return wording(value, english)
    except (KeyError, TypeError, ValueError):  # a note missing a value
        return str(value.get("text", ""))


def shown(value: Note | str) -> str:
    """The note in the active language (for a page)."""
    return _worded(value, english=False)


def english(value: Note | str) -> str:
    """The note in English and the C locale (for exports, the API, plain text)."""
    return _worded(value, english=True)


# --- snapshots stored before notes: their warnings were English sentences -------
_LEGACY: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Note]]] = [
    (re.compile(r"No reports yet\."), lambda m: note(NO_REPORTS)),
    (
        re.compile(r"Only (\d+) report: too few to estimate\."),
        lambda m: note(TOO_FEW, n=int(m[1])),
    ),
    (
        re.compile(
            r"This mechanism's channel is numerically singular: its mean may be "
            r"biased by up to (\S+)\."
        ),
        lambda m: note(SINGULAR_CHANNEL, bound=float(m[1])),
    ),
    (
        re.compile(
            r"Some raw estimates lie far outside 0–100% \((-?\d+)% to (-?\d+)%\): "
            r"the noise still dominates at n = (\d+); read the consistent "
            r"estimate and wait for more responses\."
        ),
        lambda m: note(
            FAR_OUTSIDE, low=int(m[1]) / 100, high=int(m[2]) / 100, n=int(m[3])
        ),
    ),
    (
        re.compile(
            r"(\d+) reports? made under earlier versions of this question "
            r"(?:is|are) not included\."
        ),
        lambda m: note(OLDER_REPORTS, n=int(m[1])),
    ),
]


def from_sentence(sentence: str) -> Note:
    """The note an English warning of an older snapshot stands for.

    A sentence it does not recognise is kept as it is (``TEXT``); one it does
    is worded again exactly as stored (:func:`english`), or kept as text.
    """
    for pattern, make in _LEGACY:
        match = pattern.fullmatch(sentence)
        if match is not None:
            try:
                found = make(match)
            except ValueError:
                break
            if english(found) == sentence:
                return found
            break
    return note(TEXT, text=sentence)
