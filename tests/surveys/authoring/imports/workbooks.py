"""Small XLSForm workbooks written in memory with openpyxl, for tests."""

from __future__ import annotations

import io
from pathlib import Path

from openpyxl import Workbook

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "imports"


def xlsform(
    survey: list[list[object]],
    choices: list[list[object]] | None = None,
    settings: list[list[object]] | None = None,
) -> bytes:
    """An .xlsx with the given sheets (first row of each: its headers)."""
    book = Workbook()
    sheet = book.active
    sheet.title = "survey"
    for row in survey:
        sheet.append(row)
    for title, rows in (("choices", choices), ("settings", settings)):
        if rows:
            extra = book.create_sheet(title)
            for row in rows:
                extra.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


STUDENT_LIFE = xlsform(
    [
        [
            "type",
            "name",
            "label::English (en)",
            "label::Français (fr)",
            "hint::English (en)",
            "required",
            "relevant",
            "constraint",
            "appearance",
        ],
        [
            "begin group",
            "about",
            "About you",
            "À propos de vous",
            None,
            None,
            None,
            None,
            None,
        ],
        [
            "note",
            "welcome",
            "Thank you for taking part.",
            "Merci de participer.",
            None,
            None,
            None,
            None,
            None,
        ],
        [
            "select_one faculty",
            "faculty",
            "Your faculty",
            "Votre faculté",
            "As enrolled",
            "yes",
            None,
            None,
            None,
        ],
        [
            "integer",
            "age",
            "Your age",
            "Votre âge",
            None,
            "yes",
            None,
            ". >= 16 and . <= 99",
            None,
        ],
        ["end group", None, None, None, None, None, None, None, None],
        ["begin group", "habits", "Habits", "Habitudes", None, None, None, None, None],
        [
            "select_one yn",
            "cheated",
            "Have you ever cheated on an exam?",
            "Avez-vous déjà triché à un examen ?",
            None,
            "yes",
            None,
            None,
            None,
        ],
        [
            "select_one often",
            "drinks",
            "How often do you drink?",
            "À quelle fréquence buvez-vous ?",
            None,
            None,
            "${faculty} = 'arts' or ${faculty} = 'law'",
            None,
            "likert",
        ],
        [
            "select_multiple drugs",
            "drugs",
            "Which have you used?",
            "Lesquelles avez-vous consommées ?",
            None,
            None,
            "selected(${cheated}, 'yes')",
            None,
            None,
        ],
        [
            "decimal",
            "hours",
            "Hours of sleep",
            "Heures de sommeil",
            None,
            None,
            None,
            ". >= 0 and . <= 12",
            None,
        ],
        [
            "text",
            "comments",
            "Anything else?",
            "Autre chose ?",
            None,
            None,
            None,
            None,
            None,
        ],
        [
            "select_one faculty",
            "minor",
            "Your minor",
            "Votre mineure",
            None,
            None,
            "${age} > 20",
            None,
            None,
        ],
        ["start", "start", None, None, None, None, None, None, None],
        ["end group", None, None, None, None, None, None, None, None],
    ],
    [
        ["list_name", "name", "label::English (en)", "label::Français (fr)"],
        ["faculty", "arts", "Arts", "Lettres"],
        ["faculty", "law", "Law", "Droit"],
        ["faculty", "science", "Science", "Sciences"],
        ["yn", "yes", "Yes", "Oui"],
        ["yn", "no", "No", "Non"],
        ["often", "never", "Never", "Jamais"],
        ["often", "monthly", "Monthly", "Chaque mois"],
        ["often", "weekly", "Weekly", "Chaque semaine"],
        ["drugs", "cannabis", "Cannabis", "Cannabis"],
        ["drugs", "stimulants", "Stimulants", "Stimulants"],
        ["drugs", "none", "None of these", "Aucune"],
    ],
    [["form_title", "default_language"], ["Student life", "English (en)"]],
)
