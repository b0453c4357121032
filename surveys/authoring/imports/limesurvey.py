"""LimeSurvey survey structure files (.lss), read with defusedxml.

An .lss is LimeSurvey's XML export of a survey: ``<document>`` holds one
table per element (``groups``, ``questions``, ``subquestions``, ``answers``,
``question_attributes``, ``surveys_languagesettings`` …), each as
``<rows><row>`` with one child per column.  LimeSurvey 4 and later keep the
texts of each language apart (``group_l10ns``, ``question_l10ns``,
``answer_l10ns``); earlier versions repeat each row per language.  Both are
read.  Texts are HTML and become plain text.

What maps: question groups (sections, their description the introduction),
list questions (L, !, O: single choice), multiple choice (M, P), yes/no (Y),
gender (G), 5-point choice (5: a scale), numerical input (N) with a minimum
and maximum, arrays (A, B: scales; C, E, F, H: choices) as one question per
row, text display (X: help text or a section's introduction), mandatory, help
texts, the survey's languages that Deniable offers, and relevance equations
``Q1 == "A1" or Q1 == "A2"`` on one earlier question.  The rest becomes a
:class:`~surveys.authoring.imports.parsed.Finding`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring
from django.utils.translation import gettext

from surveys.authoring.imports.expressions import decimal_step, parse_relevance
from surveys.authoring.imports.parsed import (
    MAX_BYTES,
    MAX_ROWS,
    Condition,
    ParsedQuestion,
    ParsedSurvey,
    language_code,
    plain_text,
    refuse,
    too_big,
    too_many_rows,
)
from surveys.authoring.kinds import facts
from surveys.authoring.models import Question

K = Question.Kind
CHOICE_TYPES = {"L": K.SINGLE_CHOICE, "!": K.SINGLE_CHOICE, "O": K.SINGLE_CHOICE}
ARRAY_SCALES = {
    "A": (K.ORDINAL, [str(n) for n in range(1, 6)]),
    "B": (K.ORDINAL, [str(n) for n in range(1, 11)]),
    "C": (K.SINGLE_CHOICE, ["Yes", "Uncertain", "No"]),
    "E": (K.SINGLE_CHOICE, ["Increase", "Same", "Decrease"]),
}
ARRAY_CODES = {"C": ["Y", "U", "N"], "E": ["I", "S", "D"]}
# Short (S), long (T) and huge (U) free text become open text; several
# short texts in one question (Q) do not.
OPEN_TEXT = {"S": "short_text", "T": "long_text", "U": "long_text"}
MULTIPLE_TEXT = {"Q"}
TYPE_NAMES = {
    "D": "date",
    "K": "multiple numerical input",
    "R": "ranking",
    "|": "file upload",
    "I": "language switch",
    "1": "dual scale array",
    ":": "array of numbers",
    ";": "array of texts",
}


def _document(raw: bytes) -> Element:
    if len(raw) > MAX_BYTES:
        raise too_big(len(raw))
    try:
        root = fromstring(raw, forbid_dtd=True)
    except DefusedXmlException:
        raise refuse(
            gettext(
                "The file declares XML entities or a document type, which are "
                "refused for safety."
            )
        ) from None
    except (ParseError, ValueError) as error:
        raise refuse(
            gettext("The file is not well-formed XML (%(error)s)."),
            error=str(error)[:120],
        ) from None
    doc_type = (root.findtext("LimeSurveyDocType") or "").strip()
    if root.tag != "document" or doc_type != "Survey":
        raise refuse(
            gettext(
                "This is not a LimeSurvey survey structure (.lss) file; export the "
                "survey from LimeSurvey with “Survey structure (.lss)”."
            )
        )
    return root


def _table(root: Element, name: str) -> list[dict[str, str]]:
    rows = root.findall(f"{name}/rows/row")
    if len(rows) > MAX_ROWS:
        raise too_many_rows(len(rows))
    return [{child.tag: (child.text or "").strip() for child in row} for row in rows]


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return 0


class _Texts:
    """Every text of the file by (id, language), whichever the file's version."""

    def __init__(self, root: Element) -> None:
        self.groups: dict[tuple[str, str], tuple[str, str]] = {}
        for row in _table(root, "groups") + _table(root, "group_l10ns"):
            if "group_name" in row:
                key = (row.get("gid", ""), row.get("language", ""))
                self.groups[key] = (row["group_name"], row.get("description", ""))
        self.questions: dict[tuple[str, str], tuple[str, str]] = {}
        for table in ("questions", "subquestions", "question_l10ns"):
            for row in _table(root, table):
                if "question" in row:
                    key = (row.get("qid", ""), row.get("language", ""))
                    self.questions[key] = (row["question"], row.get("help", ""))
        l10n = {
            (row.get("aid", ""), row.get("language", "")): row.get("answer", "")
            for row in _table(root, "answer_l10ns")
        }
        # (qid, scale, code) → {language: label}, in sort order
        self.answers: dict[tuple[str, str], list[tuple[str, dict[str, str]]]] = {}
        rows = sorted(
            _table(root, "answers"), key=lambda r: _int(r.get("sortorder", ""))
        )
        for row in rows:
            key = (row.get("qid", ""), row.get("scale_id", "0") or "0")
            found = self.answers.setdefault(key, [])
            code = row.get("code", "")
            labels = next((lab for c, lab in found if c == code), None)
            if labels is None:
                labels = {}
                found.append((code, labels))
            if "answer" in row:
                labels[row.get("language", "")] = row["answer"]
            for (aid, language), text in l10n.items():
                if aid == row.get("aid"):
                    labels[language] = text

    def question(self, qid: str, language: str) -> tuple[str, str]:
        text, help_text = self.questions.get((qid, language), ("", ""))
        return plain_text(text), plain_text(help_text)


def read_lss(raw: bytes, *, file_name: str = "") -> ParsedSurvey:
    """Read a LimeSurvey .lss file; ValidationError if it cannot be read."""
    root = _document(raw)
    listed = [(e.text or "").strip() for e in root.findall("languages/language")]
    surveys = _table(root, "surveys")
    base = (surveys[0].get("language") if surveys else "") or (listed or [""])[0]
    if language_code(base) is None:
        # A language Deniable offers becomes the source, if the survey has one.
        base = next((lang for lang in listed if language_code(lang)), base)
    settings = {
        r.get("surveyls_language", ""): r
        for r in _table(root, "surveys_languagesettings")
    }
    own = settings.get(base, {})
    title = plain_text(own.get("surveyls_title", "")) or re.sub(
        r"\.lss$", "", file_name
    )
    parsed = ParsedSurvey(
        title=title or gettext("Imported questionnaire"),
        description=plain_text(own.get("surveyls_description", "")),
        source_language=language_code(base) or "",
    )
    if not parsed.source_language:
        parsed.note("source_language", base, dropped=False, language=base)
    others: dict[str, str] = {}
    for language in listed:
        if language == base:
            continue
        code = language_code(language)
        if code is None or code == parsed.source_language or code in others:
            parsed.note("language", language, language=language)
        else:
            others[code] = language
    parsed.languages = list(others)
    for code, language in others.items():
        row = settings.get(language, {})
        parsed.translations[code] = {
            "title": plain_text(row.get("surveyls_title", "")),
            "description": plain_text(row.get("surveyls_description", "")),
        }
    _Reader(root, parsed, base, others).read()
    return parsed


class _Reader:
    def __init__(self, root, parsed: ParsedSurvey, base: str, others) -> None:
        self.parsed, self.base, self.others = parsed, base, others
        self.texts = _Texts(root)
        rows = _table(root, "questions") + _table(root, "subquestions")
        self.questions: dict[str, dict[str, str]] = {}
        for row in rows:
            self.questions.setdefault(row.get("qid", ""), row)
        self.attributes: dict[str, dict[str, str]] = {}
        for row in _table(root, "question_attributes"):
            self.attributes.setdefault(row.get("qid", ""), {})[
                row.get("attribute", "")
            ] = row.get("value", "")
        self.groups = sorted(
            {row.get("gid", ""): row for row in _table(root, "groups")}.values(),
            key=lambda r: _int(r.get("group_order", "")),
        )
        self.kinds: dict[str, str] = {}  # title → kind, for conditions
        self.notes: list[tuple[str, dict[str, str]]] = []

    def children(self, qid: str) -> list[dict[str, str]]:
        found = [r for r in self.questions.values() if r.get("parent_qid") == qid]
        return sorted(found, key=lambda r: _int(r.get("question_order", "")))

    def read(self) -> None:
        top = [
            r for r in self.questions.values() if r.get("parent_qid", "0") in ("", "0")
        ]
        for group in self.groups:
            gid = group.get("gid", "")
            name, description = self.texts.groups.get((gid, self.base), ("", ""))
            section = {
                "section_title": plain_text(name),
                "section_intro": plain_text(description),
            }
            translated = {
                code: dict(
                    zip(
                        ("section_title", "section_intro"),
                        map(plain_text, self.texts.groups.get((gid, lang), ("", ""))),
                        strict=True,
                    )
                )
                for code, lang in self.others.items()
            }
            condition = self.relevance(group.get("grelevance", ""), plain_text(name))
            rows = sorted(
                (r for r in top if r.get("gid") == gid),
                key=lambda r: _int(r.get("question_order", "")),
            )
            for row in rows:
                made = self.question(row, condition)
                for question in made:
                    if section:
                        question.section_title = section["section_title"]
                        question.section_intro = "\n".join(
                            t
                            for t in (section["section_intro"], question.section_intro)
                            if t
                        )
                        for code, texts in translated.items():
                            question.translations.setdefault(code, {}).update(
                                {k: v for k, v in texts.items() if v}
                            )
                        section = {}
        for text, _ in self.notes:
            self.parsed.note("note_unattached", text)

    def relevance(self, equation: str, where: str) -> Condition | None:
        text = plain_text(equation).strip()
        if text in ("", "1"):
            return None
        condition = parse_relevance(text, self.kinds)
        if condition is None:
            self.parsed.note("condition", where, dropped=False, expression=text)
        return condition

    def question(
        self, row: dict[str, str], group_condition: Condition | None
    ) -> list[ParsedQuestion]:
        qid, kind, title = row.get("qid", ""), row.get("type", ""), row.get("title", "")
        text, help_text = self.texts.question(qid, self.base)
        where = f"{title} ({text[:60]})" if text else title
        attributes = self.attributes.get(qid, {})
        if attributes.get("hidden") == "1":
            self.parsed.note("hidden", where)
            return []
        if kind == "X":
            self.notes.append(
                (
                    text,
                    {
                        c: self.texts.question(qid, lang)[0]
                        for c, lang in self.others.items()
                    },
                )
            )
            return []
        if kind in MULTIPLE_TEXT:
            self.parsed.note("open_text", where)
            return []
        if kind == "*":
            self.parsed.note("calculation", where)
            return []
        made = self.build(row, kind, title, text, where, attributes)
        if not made:
            return []
        own = self.relevance(row.get("relevance", ""), where)
        if own and group_condition:
            self.parsed.note("group_condition", where, dropped=False)
        for question in made:
            question.optional = row.get("mandatory", "N") != "Y"
            question.help_text = help_text if len(made) == 1 else question.help_text
            question.condition = own or group_condition
            for code, language in self.others.items():
                texts = question.translations.setdefault(code, {})
                if len(made) == 1:
                    texts["text"], texts["help_text"] = self.texts.question(
                        qid, language
                    )
            if "{" in question.text:
                self.parsed.note("piping", where, dropped=False)
        self._notes_into(made[0])
        single = len(made) == 1 and facts(made[0].kind).takes_other
        if row.get("other") == "Y" and single:
            # LimeSurvey codes the added answer "-oth-".
            made[0].other_option = True
            made[0].option_names.append("-oth-")
        elif row.get("other") == "Y":
            self.parsed.note("or_other", where, dropped=False)
        if kind in ("O", "P"):
            self.parsed.note("comment", where, dropped=False)
        self.kinds[title] = made[0].kind
        self.parsed.questions.extend(made)
        return made

    def build(self, row, kind, title, text, where, attributes) -> list[ParsedQuestion]:
        qid = row.get("qid", "")
        question = ParsedQuestion(name=title, kind="", text=text)
        if kind in OPEN_TEXT:
            question.kind = OPEN_TEXT[kind]
        elif kind in CHOICE_TYPES:
            question.kind = CHOICE_TYPES[kind]
            if not self.answer_options(question, qid, where):
                return []
        elif kind in ("M", "P"):
            question.kind = K.MULTI_SELECT
            subs = self.children(qid)
            question.option_names = [s.get("title", "") for s in subs]
            question.options = [
                self.texts.question(s["qid"], self.base)[0] for s in subs
            ]
            for code, language in self.others.items():
                question.translations.setdefault(code, {})["options"] = [
                    self.texts.question(s["qid"], language)[0] for s in subs
                ]
        elif kind == "Y":
            question.kind, question.option_names = K.YES_NO, ["N", "Y"]
        elif kind == "G":
            question.kind = K.SINGLE_CHOICE
            question.options, question.option_names = ["Female", "Male"], ["F", "M"]
        elif kind == "5":
            question.kind = K.ORDINAL
            question.options = question.option_names = [str(n) for n in range(1, 6)]
        elif kind == "N":
            if not self.number(question, attributes, where):
                return []
        elif kind in ARRAY_SCALES or kind in ("F", "H"):
            return self.array(row, kind, question, where)
        else:
            name = TYPE_NAMES.get(kind, kind)
            self.parsed.note("unsupported_type", where, type=name)
            return []
        return [question]

    def answer_options(self, question: ParsedQuestion, qid: str, where: str) -> bool:
        answers = self.texts.answers.get((qid, "0"), [])
        if not answers:
            self.parsed.note("missing_choices", where, list=question.name)
            return False
        question.option_names = [code for code, _ in answers]
        question.options = [
            plain_text(labels.get(self.base, "")) or code for code, labels in answers
        ]
        for code, language in self.others.items():
            question.translations.setdefault(code, {})["options"] = [
                plain_text(labels.get(language, "")) for _, labels in answers
            ]
        return True

    def number(
        self, question: ParsedQuestion, attributes: dict[str, str], where: str
    ) -> bool:
        try:
            low = Decimal(attributes.get("min_num_value_n", "").strip())
            high = Decimal(attributes.get("max_num_value_n", "").strip())
        except InvalidOperation:
            self.parsed.note("no_range", where, expression="—")
            return False
        integer = attributes.get("num_value_int_only") == "1"
        step = Decimal(1) if integer else decimal_step(low, high)
        if step is None or low >= high:
            self.parsed.note("no_range", where, expression=f"{low}–{high}")
            return False
        if not integer:
            self.parsed.note("decimal_step", where, dropped=False, step=str(step))
        question.kind, question.low, question.high, question.step = (
            K.NUMERIC,
            low,
            high,
            step,
        )
        return True

    def array(self, row, kind, stem: ParsedQuestion, where) -> list[ParsedQuestion]:
        qid = row.get("qid", "")
        if kind in ARRAY_SCALES:
            stem.kind, stem.options = ARRAY_SCALES[kind]
            stem.option_names = ARRAY_CODES.get(kind, stem.options)
        else:
            stem.kind = K.SINGLE_CHOICE
            if not self.answer_options(stem, qid, where):
                return []
        made = []
        for sub in self.children(qid):
            item = self.texts.question(sub["qid"], self.base)[0]
            question = ParsedQuestion(
                name=f"{stem.name}_{sub.get('title', '')}",
                kind=stem.kind,
                text=f"{stem.text} — {item}",
                options=list(stem.options),
                option_names=list(stem.option_names),
            )
            for code, language in self.others.items():
                texts = question.translations.setdefault(code, {})
                sub_text = self.texts.question(sub["qid"], language)[0]
                stem_text = self.texts.question(qid, language)[0]
                texts["text"] = (
                    f"{stem_text} — {sub_text}" if stem_text and sub_text else ""
                )
                if "options" in stem.translations.get(code, {}):
                    texts["options"] = stem.translations[code]["options"]
            made.append(question)
        if made:
            self.parsed.note("array_rows", where, dropped=False, count=str(len(made)))
        else:
            self.parsed.note("missing_choices", where, list=stem.name)
        return made

    def _notes_into(self, question: ParsedQuestion) -> None:
        notes, self.notes = self.notes, []
        if not notes:
            return
        into = "help_text"
        joined = "\n".join(t for t, _ in notes if t)
        question.help_text = "\n".join(t for t in (joined, question.help_text) if t)
        for code in self.others:
            said = "\n".join(t[code] for _, t in notes if t.get(code))
            texts = question.translations.setdefault(code, {})
            if said:
                texts[into] = "\n".join(
                    t for t in (said, str(texts.get(into, ""))) if t
                )
