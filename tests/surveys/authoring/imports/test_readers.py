"""The XLSForm and LimeSurvey readers: what maps, and which files are refused."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from openpyxl import Workbook

from surveys.authoring.imports import formats
from surveys.authoring.imports.expressions import (
    decimal_step,
    parse_range,
    parse_relevance,
    parse_relevant,
)
from surveys.authoring.imports.parsed import MAX_BYTES, Condition, language_code
from tests.surveys.authoring.imports.workbooks import fixture, xlsform

LSS_HEAD = '<?xml version="1.0" encoding="UTF-8"?>'


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("${a} = 'x'", Condition("a", ("x",))),
        ("${a}='x' or ${a} = 'y'", Condition("a", ("x", "y"))),
        ("selected(${a}, 'x')", Condition("a", ("x",))),
        ("(selected(${a}, 'x') or selected(${a}, 'y'))", Condition("a", ("x", "y"))),
        ("${a} = 2", Condition("a", ("2",))),
        ("${a} = 'x' and ${b} = 'y'", None),
        ("${a} = 'x' or ${b} = 'y'", None),
        ("not(selected(${a}, 'x'))", None),
        ("${a} > 20", None),
    ],
)
def test_an_xlsform_condition_maps_only_when_it_is_answers_of_one_question(
    expression, expected
):
    assert parse_relevant(expression) == expected


@pytest.mark.parametrize(
    ("equation", "expected"),
    [
        ('Q1 == "A1"', Condition("Q1", ("A1",))),
        ('((Q1.NAOK == "A1" or Q1.NAOK == "A2"))', Condition("Q1", ("A1", "A2"))),
        ('Q2_SQ001 == "Y"', Condition("Q2", ("SQ001",))),
        ('Q1 == "A1" and Q1 == "A2"', None),
        ('Q9 == "A1"', None),
        ("Q1 > 3", None),
    ],
)
def test_a_limesurvey_relevance_maps_only_when_it_is_answers_of_one_question(
    equation, expected
):
    kinds = {"Q1": "single_choice", "Q2": "multi_select"}
    assert parse_relevance(equation, kinds) == expected


@pytest.mark.parametrize(
    ("constraint", "integer", "expected"),
    [
        (". >= 0 and . <= 120", True, (0, 120)),
        (".>0 and .<10", True, (1, 9)),
        ("(. >= 1.5) and (. <= 3)", False, (Decimal("1.5"), 3)),
        (". > 0 and . < 1", False, None),
        (". <= ${other}", True, None),
        (". >= 0", True, None),
    ],
)
def test_a_range_constraint_gives_the_numbers_range(constraint, integer, expected):
    assert parse_range(constraint, integer) == expected


@pytest.mark.parametrize(
    ("low", "high", "step"),
    [
        ("0", "12", "0.1"),
        ("0", "100", "1"),
        ("0", "1000", "10"),
        ("0.005", "1", None),
    ],
)
def test_a_decimal_gets_the_finest_step_the_builder_allows(low, high, step):
    found = decimal_step(Decimal(low), Decimal(high))
    assert found == (Decimal(step) if step else None)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("English (en)", "en"),
        ("french", "fr"),
        ("Español (es)", "es"),
        ("es-MX", "es"),
        ("Français", "fr"),
        ("Chinese", None),
        ("de-informal", None),
    ],
)
def test_a_files_language_name_maps_to_a_deniable_language(name, code):
    assert language_code(name) == code


def test_a_select_one_with_the_likert_appearance_is_a_scale():
    raw = xlsform(
        [
            ["type", "name", "label", "appearance"],
            ["select_one agree", "q", "I agree", "likert"],
        ],
        [
            ["list_name", "name", "label"],
            ["agree", "1", "No"],
            ["agree", "2", "Somewhat"],
            ["agree", "3", "Yes"],
        ],
    )
    (question,) = formats.read("a.xlsx", raw)[1].questions
    assert (question.kind, question.options) == ("ordinal", ["No", "Somewhat", "Yes"])


def test_an_xlsform_range_question_is_a_number_in_its_range():
    raw = xlsform(
        [
            ["type", "name", "label", "parameters"],
            ["range", "r", "Rate it", "start=0 end=10 step=2"],
        ]
    )
    (question,) = formats.read("r.xlsx", raw)[1].questions
    assert (question.kind, question.low, question.high, question.step) == (
        "numeric",
        0,
        10,
        2,
    )


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("form.xlsx", b"not a zip at all", "not a readable Excel workbook"),
        ("form.xlsx", _zip({"hello.txt": b"hi"}), "not a readable Excel workbook"),
        ("form.xlsx", _zip({"a": b"0" * 50_000_000}), "unpacks to more than"),
        (
            "form.xlsx",
            xlsform([["type"]])[:900],
            "not a readable Excel workbook",
        ),
        ("form.xls", b"\xd0\xcf\x11\xe0", "not an .xlsx workbook"),
        ("form.pdf", b"%PDF-1.4", "neither an XLSForm"),
        ("s.lss", b"<document><LimeSurveyDocType>Survey", "not well-formed XML"),
        (
            "s.lss",
            LSS_HEAD.encode()
            + b"<document><LimeSurveyDocType>Group</LimeSurveyDocType></document>",
            "not a LimeSurvey survey structure",
        ),
        (
            "s.lss",
            LSS_HEAD.encode()
            + b'<!DOCTYPE d [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
            + b"<document>&b;</document>",
            "refused for safety",
        ),
        ("big.lss", b" " * (MAX_BYTES + 1), "at most"),
    ],
    ids=[
        "not-zip",
        "zip-not-workbook",
        "zip-bomb",
        "broken-workbook",
        "old-excel",
        "pdf",
        "broken-xml",
        "lsg-not-lss",
        "xml-entities",
        "too-big",
    ],
)
def test_a_file_that_cannot_be_read_is_refused_with_its_reason(name, raw, message):
    with pytest.raises(ValidationError) as refused:
        formats.read(name, raw)
    (text,) = refused.value.messages
    assert message in text and text.endswith("Nothing was imported.")


def test_a_workbook_without_a_survey_sheet_is_not_an_xlsform():
    book = Workbook()
    book.active.append(["type", "name", "label"])
    out = io.BytesIO()
    book.save(out)
    with pytest.raises(ValidationError, match="no “survey” sheet"):
        formats.read("x.xlsx", out.getvalue())


def test_a_workbook_with_too_many_rows_is_refused():
    raw = xlsform(
        [["type", "name", "label"]] + [["note", f"n{n}", "x"] for n in range(5_001)]
    )
    with pytest.raises(ValidationError, match="at most 5,000 are read"):
        formats.read("x.xlsx", raw)


def test_the_limesurvey_reader_reads_texts_as_plain_text():
    parsed = formats.read("s.lss", fixture("citric_survey.lss"))[1]
    assert parsed.title == "Test Survey"
    assert parsed.questions[0].text == "Text for first question"
    assert parsed.questions[1].text == "Text for second question"
