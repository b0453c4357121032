"""What a reader makes of a questionnaire file, whatever its format.

A reader never writes to the database: it returns a :class:`ParsedSurvey`
(or raises ``ValidationError`` saying why the file cannot be read at all),
and ``drafts`` creates the survey from it.  Answer values in conditions are
the form's own option names (codes); ``drafts`` turns them into the positions
Deniable's display logic uses.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.html import strip_tags
from django.utils.translation import gettext

from surveys.authoring.ldp_words import localized_number as _n

# An upload larger than this is refused before it is read.  Real questionnaires
# of Deniable's size (at most 50 questions) are a few hundred kilobytes at
# most, even as LimeSurvey exports with every attribute spelled out.
MAX_BYTES = 2_000_000
# An .xlsx is a zip archive: its parts, unpacked, may not exceed this (a small
# archive that unpacks to gigabytes is refused before it is opened).
MAX_UNPACKED_BYTES = 40_000_000
# Rows (XLSForm) or question records (LimeSurvey) read at most: a file with
# more is refused before any question is built.
MAX_ROWS = 5_000
TEXT_MAX = 500
TITLE_MAX = 200


@dataclass(frozen=True)
class Finding:
    """Something in the file that was not imported, or imported with a change.

    ``code`` names its sentence in ``wording``; ``where`` is the item as the
    file names it (its name, code or label); ``values`` fill the sentence.
    """

    code: str
    where: str
    values: dict[str, str] = field(default_factory=dict)
    dropped: bool = True

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "where": self.where,
            "values": dict(self.values),
            "dropped": self.dropped,
        }


@dataclass(frozen=True)
class Condition:
    """Shown only when the answer to ``driver`` (a name in the file) is one of
    ``any_of`` (the driver's option names)."""

    driver: str
    any_of: tuple[str, ...]


@dataclass
class ParsedQuestion:
    """One question that maps onto a Deniable kind (``Question.Kind`` value)."""

    name: str
    kind: str
    text: str
    help_text: str = ""
    options: list[str] = field(default_factory=list)
    # The file's code of each answer, in the order of the answers' values (for
    # yes/no: the "no" code, then the "yes" code).
    option_names: list[str] = field(default_factory=list)
    # "Other, please specify" (single choice and multiple selections only):
    # its value follows the options, and its code ends ``option_names``.
    other_option: bool = False
    low: Decimal | None = None
    high: Decimal | None = None
    step: Decimal | None = None
    optional: bool = True
    section_title: str = ""
    section_intro: str = ""
    condition: Condition | None = None
    # {language: {"text", "help_text", "options", "section_title", ...}}
    translations: dict[str, dict[str, object]] = field(default_factory=dict)


@dataclass
class ParsedSurvey:
    """A questionnaire as read: survey texts, questions, and findings."""

    title: str
    description: str = ""
    source_language: str = ""  # a code of settings.LANGUAGES, or "" (unknown)
    languages: list[str] = field(default_factory=list)
    translations: dict[str, dict[str, str]] = field(default_factory=dict)
    questions: list[ParsedQuestion] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def note(self, code: str, where: object, dropped: bool = True, **values) -> None:
        """Record a finding (``where`` shortened to 80 characters)."""
        self.findings.append(
            Finding(
                code,
                one_line(str(where))[:80],
                {k: one_line(str(v))[:200] for k, v in values.items()},
                dropped,
            )
        )


def one_line(text: str) -> str:
    """``text`` with its runs of white space as single spaces, stripped."""
    return " ".join(text.split())


_BREAKS = re.compile(r"<\s*(br|/p|/div|/li|/h\d)\s*/?\s*>", re.IGNORECASE)


def plain_text(markup: str) -> str:
    """Text from HTML (LimeSurvey stores its texts as HTML): tags removed,
    entities decoded, paragraphs kept as line breaks, blank lines dropped."""
    text = html.unescape(strip_tags(_BREAKS.sub("\n", markup or "")))
    lines = (one_line(line) for line in text.replace("\xa0", " ").splitlines())
    return "\n".join(line for line in lines if line)


LANGUAGE_NAMES = {
    "english": "en",
    "anglais": "en",
    "inglés": "en",
    "ingles": "en",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "espagnol": "es",
    "castellano": "es",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "francés": "fr",
    "arabic": "ar",
    "العربية": "ar",
}


def language_code(name: str) -> str | None:
    """The code in ``settings.LANGUAGES`` a file's language name stands for
    ("English (en)", "english", "fr", "es-MX" …), or None."""
    known = dict(settings.LANGUAGES)
    text = name.strip().lower()
    inside = re.search(r"\(([a-z]{2,3})(?:[-_][a-z0-9]+)?\)\s*$", text)
    if inside and inside.group(1) in known:
        return inside.group(1)
    bare = re.sub(r"\s*\(.*\)\s*$", "", text)
    if bare in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[bare]
    base = re.split(r"[-_]", bare)[0]
    return base if base in known else None


def refuse(message: str, **values) -> ValidationError:
    """A refusal of the whole file, ending with "Nothing was imported."."""
    shown = {k: _n(v) if isinstance(v, int) else v for k, v in values.items()}
    return ValidationError(
        gettext("%(problem)s Nothing was imported.") % {"problem": message % shown}
    )


def too_big(size: int) -> ValidationError:
    return refuse(
        gettext(
            "The file is %(size)s bytes; a questionnaire file is at most %(most)s."
        ),
        size=_n(size, grouping=True),
        most=_n(MAX_BYTES, grouping=True),
    )


def too_many_rows(count: int) -> ValidationError:
    return refuse(
        gettext("The file has %(count)s rows; at most %(most)s are read."),
        count=_n(count, grouping=True),
        most=_n(MAX_ROWS, grouping=True),
    )
