"""XLSForm workbooks (KoboToolbox, ODK, SurveyCTO) read with openpyxl.

An XLSForm (https://xlsform.org) is an .xlsx workbook with a ``survey``
sheet (one row per question, group or note: ``type``, ``name``, ``label``,
``hint``, ``required``, ``relevant``, ``constraint``, ``appearance`` …), a
``choices`` sheet (``list_name``, ``name``, ``label``) and an optional
``settings`` sheet (``form_title``, ``default_language``).  Labels in several
languages are columns such as ``label::English (en)`` or ``label:French``.

What maps: ``select_one`` (single choice; yes/no when its two choices are yes
and no; a scale with the ``likert`` appearance), ``select_multiple``,
``integer``/``decimal`` with a range constraint (``. >= 0 and . <= 120``) and
``range`` (number in a range), groups (sections), notes (help text or a
section's introduction), ``required``, ``hint``, labels in Deniable's
languages, and ``relevant`` conditions of the form ``${q} = 'a' or
selected(${q}, 'b')`` on one earlier question.  Everything else is a
:class:`~surveys.authoring.imports.parsed.Finding`.
"""

from __future__ import annotations

import io
import re
import zipfile
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from openpyxl import load_workbook

from surveys.authoring.imports.expressions import (
    decimal_step,
    parse_range,
    parse_relevant,
)
from surveys.authoring.imports.parsed import (
    MAX_BYTES,
    MAX_ROWS,
    MAX_UNPACKED_BYTES,
    Condition,
    ParsedQuestion,
    ParsedSurvey,
    language_code,
    one_line,
    refuse,
    too_big,
    too_many_rows,
)
from surveys.authoring.kinds import facts
from surveys.authoring.models import Question

METADATA = {
    "start",
    "end",
    "today",
    "deviceid",
    "subscriberid",
    "simserial",
    "phonenumber",
    "username",
    "email",
    "audit",
    "start-geopoint",
    "background-audio",
}
TEXT_TYPES = {"text", "string"}
NUMBER_TYPES = {"integer", "int", "decimal"}
MEDIA_COLUMNS = ("image", "audio", "video", "big-image", "media")
YES = {"yes", "y", "1", "true", "oui", "sí", "si", "ja"}
NO = {"no", "n", "0", "false", "non", "nein"}


def _unpacked_size(raw: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return sum(info.file_size for info in archive.infolist())


def _workbook(raw: bytes):
    if len(raw) > MAX_BYTES:
        raise too_big(len(raw))
    not_xlsx = refuse(
        gettext(
            "The file is not a readable Excel workbook (.xlsx); save the XLSForm "
            "as .xlsx and upload it again."
        )
    )
    try:
        if _unpacked_size(raw) > MAX_UNPACKED_BYTES:
            raise refuse(
                gettext("The workbook unpacks to more than %(most)s bytes."),
                most=f"{MAX_UNPACKED_BYTES:,}",
            )
        return load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except ValidationError:
        raise
    except Exception:  # openpyxl raises many kinds for a broken archive
        raise not_xlsx from None


def _sheet_rows(workbook, name: str) -> list[dict[str, Any]] | None:
    """The sheet's rows as {header: value} (headers lower-cased), or None."""
    sheet = next(
        (s for s in workbook.worksheets if s.title.strip().lower() == name), None
    )
    if sheet is None:
        return None
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, None) or ()
    names = [str(h).strip().lower() if h is not None else "" for h in header]
    found = []
    for count, row in enumerate(rows, start=1):
        if count > MAX_ROWS:
            raise too_many_rows(count)
        if any(v is not None and str(v).strip() for v in row):
            found.append({n: row[i] for i, n in enumerate(names) if n and i < len(row)})
    return found


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return one_line(str(value))


def _split(column: str) -> tuple[str, str]:
    """("label", "English (en)") from "label::English (en)" or "label:English"."""
    base, _, language = re.sub(r"::?", "\x00", column, count=1).partition("\x00")
    return base.strip(), language.strip()


class _Texts:
    """The form's languages: which column is the source, which translate."""

    def __init__(
        self, columns: list[str], plain: bool, default: str, parsed: ParsedSurvey
    ):
        named = list(
            dict.fromkeys(
                lang
                for c in columns
                for b, lang in [_split(c)]
                if b == "label" and lang
            )
        )
        default = default.strip().lower()
        chosen = default if default in named else ""
        if not chosen and not plain and named:
            chosen = named[0]
        if chosen and language_code(chosen) is None:
            # A language Deniable offers becomes the source, if the form has one.
            chosen = next((n for n in named if language_code(n)), chosen)
        self.source = chosen  # "" : the plain columns
        self.source_code = language_code(chosen or default or "en")
        if self.source_code is None:
            parsed.note(
                "source_language", chosen or default, dropped=False, language=chosen
            )
        self.others: dict[str, str] = {}  # code → the file's language name
        for language in named:
            if language == chosen:
                continue
            code = language_code(language)
            if code is None or code == self.source_code or code in self.others:
                parsed.note("language", language, dropped=True, language=language)
            else:
                self.others[code] = language

    def get(self, row: dict[str, Any], base: str, language: str | None = None) -> str:
        """The cell of ``base`` ("label", "hint") in ``language`` (the file's
        name for it; None: the source)."""
        name = self.source if language is None else language
        if not name:
            return _text(row.get(base))
        for sep in ("::", ":"):
            if value := _text(row.get(f"{base}{sep}{name.lower()}")):
                return value
        return "" if language is not None else _text(row.get(base))

    def translated(self, row: dict[str, Any], base: str) -> dict[str, str]:
        return {code: self.get(row, base, name) for code, name in self.others.items()}


def _parameters(text: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)\s*=\s*([-\d.]+)", text or ""))


def _type(raw: str) -> tuple[str, str, bool]:
    """(type, choice list, or_other) from the type cell's many spellings."""
    text = one_line(raw).lower()
    text = re.sub(
        r"^select (one|all that apply|multiple)( from)? ", r"select_\1 ", text
    )
    text = text.replace("select_all that apply", "select_multiple").replace(
        "select_all_that_apply", "select_multiple"
    )
    text = re.sub(r"^(begin|end)[ _](group|repeat)$", r"\1 \2", text)
    other = bool(re.search(r"\s+or[ _]other$|\s+or specify other$", text))
    text = re.sub(r"\s+or[ _]other$|\s+or specify other$", "", text)
    if text.startswith(("select_one ", "select_multiple ")):
        kind, _, choices = text.partition(" ")
        return kind, choices.strip(), other
    return text, "", other


def _choice_lists(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    lists: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        name = _text(row.get("list_name") or row.get("list name"))
        if name:
            lists.setdefault(name.lower(), []).append(row)
    return lists


def _yes_no(choices: list[dict[str, Any]], texts: _Texts) -> list[str] | None:
    """The codes ordered [no, yes] when the two choices are yes and no."""
    if len(choices) != 2:
        return None
    codes = [_text(c.get("name")) for c in choices]
    words = [
        (_text(c.get("name")) + "|" + texts.get(c, "label")).lower() for c in choices
    ]
    order = []
    for wanted in (NO, YES):
        hit = [
            code
            for code, said in zip(codes, words, strict=True)
            if any(part in wanted for part in said.split("|"))
        ]
        if len(hit) != 1:
            return None
        order.append(hit[0])
    return order if order[0] != order[1] else None


def read_xlsform(raw: bytes, *, file_name: str = "") -> ParsedSurvey:
    """Read an XLSForm workbook; ValidationError if it cannot be read."""
    workbook = _workbook(raw)
    survey_rows = _sheet_rows(workbook, "survey")
    if survey_rows is None:
        raise refuse(
            gettext(
                "This workbook has no “survey” sheet, so it is not an XLSForm "
                "(sheets: %(sheets)s)."
            ),
            sheets=", ".join(s.title for s in workbook.worksheets)[:200],
        )
    choices = _choice_lists(_sheet_rows(workbook, "choices") or [])
    settings_rows = _sheet_rows(workbook, "settings") or [{}]
    setting = settings_rows[0] if settings_rows else {}
    title = _text(setting.get("form_title")) or re.sub(r"\.xlsx?$", "", file_name)
    parsed = ParsedSurvey(title=title or gettext("Imported questionnaire"))
    columns = list(
        dict.fromkeys(
            [c for row in survey_rows for c in row]
            + [c for rows in choices.values() for row in rows for c in row]
        )
    )
    plain = any("label" in row for row in survey_rows)
    texts = _Texts(columns, plain, _text(setting.get("default_language")), parsed)
    parsed.source_language = texts.source_code or ""
    parsed.languages = list(texts.others)
    _Reader(parsed, texts, choices).read(survey_rows)
    return parsed


class _Reader:
    """Walks the survey sheet's rows in order, keeping the open groups."""

    def __init__(self, parsed: ParsedSurvey, texts: _Texts, choices) -> None:
        self.parsed, self.texts, self.choices = parsed, texts, choices
        self.groups: list[tuple[str, Condition | None]] = []
        self.repeats: list[str] = []
        self.section: dict[str, object] | None = None  # the next question opens it
        self.notes: list[tuple[str, dict[str, str]]] = []

    def read(self, rows: list[dict[str, Any]]) -> None:
        for number, row in enumerate(rows, start=2):
            self.row(row, number)
        for text, _ in self.notes:
            self.parsed.note("note_unattached", text)

    def row(self, row: dict[str, Any], number: int) -> None:
        kind, list_name, other = _type(_text(row.get("type")))
        name = _text(row.get("name")) or f"row {number}"
        label = self.texts.get(row, "label")
        where = f"{name} ({label})" if label else name
        if not kind:
            return
        if kind == "begin repeat":
            self.repeats.append(name)
            self.parsed.note("repeat", where)
            return
        if kind == "end repeat":
            if self.repeats:
                self.repeats.pop()
            return
        if self.repeats:
            if not kind.startswith(("begin", "end")):
                self.parsed.note("in_repeat", where, repeat=self.repeats[-1])
            return
        if kind == "begin group":
            self.group(row, name, label)
            return
        if kind == "end group":
            if self.groups:
                self.groups.pop()
            return
        if kind == "note":
            if not label:
                self.parsed.note("no_label", name)
                return
            self.notes.append((label, self.texts.translated(row, "label")))
            if relevant := _text(row.get("relevant")):
                self.parsed.note("condition", where, dropped=False, expression=relevant)
            return
        self.question(row, kind, list_name, other, name, label, where)

    def group(self, row: dict[str, Any], name: str, label: str) -> None:
        relevant = _text(row.get("relevant"))
        condition = parse_relevant(relevant) if relevant else None
        if relevant and condition is None:
            self.parsed.note("condition", name, dropped=False, expression=relevant)
        self.groups.append((name, condition))
        if label:
            self.section = {
                "section_title": label,
                "translations": self.texts.translated(row, "label"),
            }

    def question(self, row, kind, list_name, other, name, label, where) -> None:
        if kind in METADATA or kind.startswith("uri:"):
            self.parsed.note("metadata", name, type=kind)
            return
        if kind == "calculate":
            self.parsed.note("calculation", name)
            return
        if not label:
            self.parsed.note("no_label", name)
            return
        question = ParsedQuestion(name=name, kind="", text=label)
        if kind in TEXT_TYPES:
            multiline = "multiline" in _text(row.get("appearance")).lower()
            question.kind = (
                Question.Kind.LONG_TEXT if multiline else Question.Kind.SHORT_TEXT
            )
        elif kind in ("select_one", "select_multiple"):
            if not self.choose(question, kind, list_name, row, where):
                return
        elif kind in NUMBER_TYPES or kind == "range":
            if not self.number(question, kind, row, where):
                return
        else:
            self.parsed.note("unsupported_type", where, type=kind)
            return
        if other and facts(question.kind).takes_other:
            # XLSForm names the added answer "other" (pyxform's or_other).
            question.other_option = True
            question.option_names.append("other")
        elif other:
            self.parsed.note("or_other", where, dropped=False)
        self.finish(question, row, where)

    def choose(self, question, kind, list_name, row, where) -> bool:
        rows = self.choices.get(list_name.lower(), [])
        if not rows:
            self.parsed.note("missing_choices", where, list=list_name)
            return False
        labels = [self.texts.get(c, "label") or _text(c.get("name")) for c in rows]
        question.options = labels
        question.option_names = [_text(c.get("name")) for c in rows]
        appearance = _text(row.get("appearance")).lower()
        if kind == "select_multiple":
            question.kind = Question.Kind.MULTI_SELECT
        elif order := _yes_no(rows, self.texts):
            question.kind = Question.Kind.YES_NO
            question.options, question.option_names = [], order
        elif "likert" in appearance:
            question.kind = Question.Kind.ORDINAL
        else:
            question.kind = Question.Kind.SINGLE_CHOICE
        if question.kind != Question.Kind.YES_NO:
            for code in self.texts.others:
                name = self.texts.others[code]
                question.translations.setdefault(code, {})["options"] = [
                    self.texts.get(c, "label", name) for c in rows
                ]
        if _text(row.get("choice_filter")):
            self.parsed.note(
                "choice_filter", where, dropped=False, expression=row["choice_filter"]
            )
        return True

    def number(self, question, kind, row, where) -> bool:
        constraint = _text(row.get("constraint"))
        if kind == "range":
            given = _parameters(_text(row.get("parameters")))
            try:
                low = Decimal(given.get("start", "1"))
                high = Decimal(given.get("end", "10"))
                step = Decimal(given.get("step", "1"))
            except InvalidOperation:
                self.parsed.note("no_range", where)
                return False
        else:
            bounds = parse_range(constraint, kind != "decimal") if constraint else None
            if bounds is None:
                self.parsed.note("no_range", where, expression=constraint or "—")
                return False
            low, high = bounds
            step = Decimal(1) if kind != "decimal" else decimal_step(low, high)
            if step is None:
                self.parsed.note("no_range", where, expression=constraint)
                return False
            if kind == "decimal":
                self.parsed.note("decimal_step", where, dropped=False, step=str(step))
        question.kind = Question.Kind.NUMERIC
        question.low, question.high, question.step = low, high, step
        return True

    def finish(self, question: ParsedQuestion, row: dict[str, Any], where: str) -> None:
        required = _text(row.get("required")).lower()
        question.optional = required not in YES
        if required and required not in YES | NO:
            self.parsed.note(
                "required_expression", where, dropped=False, expression=required
            )
        question.help_text = self.texts.get(row, "hint")
        for code, text in self.texts.translated(row, "label").items():
            question.translations.setdefault(code, {})["text"] = text
        for code, text in self.texts.translated(row, "hint").items():
            question.translations.setdefault(code, {})["help_text"] = text
        self._notes_into(question)
        self._condition(question, row, where)
        if question.kind != Question.Kind.NUMERIC and _text(row.get("constraint")):
            self.parsed.note(
                "constraint", where, dropped=False, expression=row["constraint"]
            )
        if any(_text(v) for k, v in row.items() if _split(k)[0] in MEDIA_COLUMNS):
            self.parsed.note("media", where, dropped=False)
        if "${" in question.help_text:
            # A label's ${name} becomes a pipe when the draft is made (pipes).
            self.parsed.note("piping", where, dropped=False)
        if _text(row.get("default")):
            self.parsed.note("default", where, dropped=False, value=row["default"])
        self.parsed.questions.append(question)

    def _notes_into(self, question: ParsedQuestion) -> None:
        section, self.section = self.section, None
        notes, self.notes = self.notes, []
        if section:
            question.section_title = str(section["section_title"])
            for code, text in section["translations"].items():  # type: ignore[union-attr]
                question.translations.setdefault(code, {})["section_title"] = text
        if not notes:
            return
        joined = "\n".join(text for text, _ in notes)
        into = "section_intro" if question.section_title else "help_text"
        current = getattr(question, into)
        setattr(question, into, "\n".join(t for t in (joined, current) if t))
        for code in self.texts.others:
            said = "\n".join(t[code] for _, t in notes if t.get(code))
            mine = str(question.translations.get(code, {}).get(into, ""))
            if said:
                question.translations.setdefault(code, {})[into] = "\n".join(
                    t for t in (said, mine) if t
                )

    def _condition(self, question: ParsedQuestion, row, where: str) -> None:
        relevant = _text(row.get("relevant"))
        inherited = next((c for _, c in reversed(self.groups) if c), None)
        if relevant:
            question.condition = parse_relevant(relevant)
            if question.condition is None:
                self.parsed.note("condition", where, dropped=False, expression=relevant)
            elif inherited:
                self.parsed.note("group_condition", where, dropped=False)
        else:
            question.condition = inherited
