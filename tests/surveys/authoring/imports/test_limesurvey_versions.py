"""LimeSurvey's older layout (one row per language, before the l10n tables)."""

from __future__ import annotations

import pytest

from surveys.authoring.imports import drafts, formats
from surveys.authoring.imports.parsed import Condition
from surveys.authoring.models import Survey


def _rows(table: str, rows: list[dict[str, str]]) -> str:
    body = "".join(
        "<row>"
        + "".join(f"<{k}><![CDATA[{v}]]></{k}>" for k, v in row.items())
        + "</row>"
        for row in rows
    )
    return f"<{table}><rows>{body}</rows></{table}>"


def _question(qid, gid, kind, title, texts, order, parent="0", **more):
    return [
        {
            "qid": qid,
            "parent_qid": parent,
            "gid": gid,
            "type": kind,
            "title": title,
            "question": text,
            "help": "",
            "mandatory": more.get("mandatory", "N"),
            "question_order": order,
            "language": language,
            "relevance": more.get("relevance", "1"),
            "other": more.get("other", "N"),
        }
        for language, text in texts.items()
    ]


def _answer(qid, code, texts, order):
    return [
        {"qid": qid, "code": code, "answer": text, "sortorder": order, "language": lang}
        for lang, text in texts.items()
    ]


OLD_LSS = (
    '<?xml version="1.0" encoding="UTF-8"?><document>'
    "<LimeSurveyDocType>Survey</LimeSurveyDocType><DBVersion>178</DBVersion>"
    "<languages><language>en</language><language>fr</language>"
    "<language>de</language></languages>"
    + _rows(
        "groups",
        [
            {
                "gid": "1",
                "group_name": "Habits",
                "description": "<p>About <b>you</b></p>",
                "language": "en",
                "group_order": "0",
            },
            {
                "gid": "1",
                "group_name": "Habitudes",
                "description": "<p>Vous</p>",
                "language": "fr",
                "group_order": "0",
            },
            {
                "gid": "1",
                "group_name": "Gewohnheiten",
                "description": "",
                "language": "de",
                "group_order": "0",
            },
        ],
    )
    + _rows(
        "questions",
        _question(
            "10",
            "1",
            "X",
            "intro",
            {"en": "Please be honest.", "fr": "Soyez honnête.", "de": "Ehrlich."},
            "0",
        )
        + _question(
            "11",
            "1",
            "L",
            "smoke",
            {"en": "Do you smoke?", "fr": "Fumez-vous ?", "de": "Rauchen Sie?"},
            "1",
            mandatory="Y",
            other="Y",
        )
        + _question(
            "12",
            "1",
            "N",
            "cigs",
            {"en": "Cigarettes a day", "fr": "Cigarettes par jour", "de": "Zigaretten"},
            "2",
            relevance='((smoke.NAOK == "A1"))',
        )
        + _question(
            "13",
            "1",
            "A",
            "stress",
            {"en": "How stressed are you at", "fr": "Votre stress", "de": "Stress"},
            "3",
        )
        + _question(
            "14",
            "1",
            "A",
            "SQ1",
            {"en": "work", "fr": "au travail", "de": "Arbeit"},
            "1",
            parent="13",
        )
        + _question(
            "15",
            "1",
            "A",
            "SQ2",
            {"en": "home", "fr": "à la maison", "de": "Zuhause"},
            "2",
            parent="13",
        )
        + _question(
            "16",
            "1",
            "S",
            "name",
            {"en": "Your name", "fr": "Votre nom", "de": "Name"},
            "4",
        )
        + _question(
            "17",
            "1",
            "Y",
            "more",
            {"en": "Anything more?", "fr": "Autre ?", "de": "Mehr?"},
            "5",
            relevance="cigs > 10",
        ),
    )
    + _rows(
        "answers",
        _answer(
            "11", "A1", {"en": "Yes, daily", "fr": "Oui, chaque jour", "de": "Ja"}, "1"
        )
        + _answer(
            "11", "A2", {"en": "Sometimes", "fr": "Parfois", "de": "Manchmal"}, "2"
        )
        + _answer("11", "A3", {"en": "Never", "fr": "Jamais", "de": "Nie"}, "3"),
    )
    + _rows(
        "question_attributes",
        [
            {"qid": "12", "attribute": "min_num_value_n", "value": "0"},
            {"qid": "12", "attribute": "max_num_value_n", "value": "60"},
            {"qid": "12", "attribute": "num_value_int_only", "value": "1"},
        ],
    )
    + _rows(
        "surveys", [{"sid": "1", "language": "en", "additional_languages": "fr de"}]
    )
    + _rows(
        "surveys_languagesettings",
        [
            {
                "surveyls_language": "en",
                "surveyls_title": "Smoking &amp; stress",
                "surveyls_description": "A study",
            },
            {
                "surveyls_language": "fr",
                "surveyls_title": "Tabac et stress",
                "surveyls_description": "Une étude",
            },
        ],
    )
    + "</document>"
).encode()


def test_an_older_lss_maps_its_kinds_groups_and_conditions():
    _, parsed = formats.read("old.lss", OLD_LSS)
    assert (parsed.title, parsed.source_language, parsed.languages) == (
        "Smoking & stress",
        "en",
        ["fr"],
    )
    kinds = [(q.name, q.kind) for q in parsed.questions]
    assert kinds == [
        ("smoke", "single_choice"),
        ("cigs", "numeric"),
        ("stress_SQ1", "ordinal"),
        ("stress_SQ2", "ordinal"),
        ("name", "short_text"),
        ("more", "yes_no"),
    ]
    smoke, cigs, work, _, name, more = parsed.questions
    assert smoke.other_option and smoke.option_names[-1] == "-oth-"
    assert name.translations["fr"]["text"] == "Votre nom"
    assert smoke.options == ["Yes, daily", "Sometimes", "Never"]
    assert smoke.optional is False and smoke.help_text == "Please be honest."
    assert (smoke.section_title, smoke.section_intro) == ("Habits", "About you")
    assert smoke.translations["fr"]["options"] == [
        "Oui, chaque jour",
        "Parfois",
        "Jamais",
    ]
    assert smoke.translations["fr"]["section_title"] == "Habitudes"
    assert (cigs.low, cigs.high, cigs.step) == (0, 60, 1)
    assert cigs.condition == Condition("smoke", ("A1",))
    assert work.text == "How stressed are you at — work"
    assert work.translations["fr"]["text"] == "Votre stress — au travail"
    assert more.condition is None
    codes = [(f.code, f.where) for f in parsed.findings]
    assert ("language", "de") in codes
    assert not {"open_text", "or_other"} & {code for code, _ in codes}
    assert ("condition", "more (Anything more?)") in codes


@pytest.mark.django_db
def test_an_older_lss_becomes_a_french_and_english_draft(ada):
    source, parsed = formats.read("old.lss", OLD_LSS)
    survey = drafts.draft_from(owner=ada, parsed=parsed, source=source)
    assert survey.languages == ["fr"]
    assert survey.translations["fr"]["title"] == "Tabac et stress"
    smoke, cigs = survey.questions.order_by("position")[:2]
    assert cigs.show_if == {"question": smoke.pk, "any_of": [0]}
    assert Survey.objects.get().questions.count() == 6
    assert survey.questions.get(kind="short_text").is_private is False
    assert smoke.other_option is True
