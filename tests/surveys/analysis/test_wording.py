"""Notes: a snapshot's warnings and a job's failures, stored as codes with
values and worded when shown, in the reader's language on a page and in the
exports' unchanged English everywhere a script reads them."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from surveys.analysis import wording
from surveys.analysis.jobs.regressions import RegressionRefused
from surveys.analysis.pages import charts
from surveys.analysis.wording import english, note, shown
from surveys.authoring.catalogue import (
    mechanism_label,
    mechanism_label_shown,
    stored_label_shown,
)
from surveys.authoring.designs import design_label, design_label_shown

NBSP = "\u00a0"
CUSTOM_SPLIT = {
    "type": "custom",
    "truthful": "141/200",
    "forced_yes": "1/5",
    "forced_no": "89/1000",
}
TICK = re.compile(r'class="tick"[^>]*>([^<]+)<')
COORDINATES = re.compile(r'\s(?:x|y|x1|x2|y1|y2|width|height|cx|cy)="([^"]*)"')

# The exports' wording of each warning, as every earlier release wrote it.
EXPORTED = [
    (note(wording.NO_REPORTS), "No reports yet."),
    (note(wording.TOO_FEW, n=1), "Only 1 report: too few to estimate."),
    (note(wording.TOO_FEW, n=3), "Only 3 report: too few to estimate."),
    (
        note(wording.SINGULAR_CHANNEL, bound=0.0123456),
        "This mechanism's channel is numerically singular: its mean may be "
        "biased by up to 0.0123.",
    ),
    (
        note(wording.FAR_OUTSIDE, low=-0.354, high=1.27, n=12),
        "Some raw estimates lie far outside 0–100% (-35% to 127%): the noise "
        "still dominates at n = 12; read the consistent estimate and wait for "
        "more responses.",
    ),
    (
        note(wording.OLDER_REPORTS, n=1),
        "1 report made under earlier versions of this question is not included.",
    ),
    (
        note(wording.OLDER_REPORTS, n=12),
        "12 reports made under earlier versions of this question are not included.",
    ),
]


@pytest.mark.parametrize(("stored", "text"), EXPORTED)
def test_a_warning_is_worded_for_exports_exactly_as_before(stored, text):
    with translation.override("fr"):
        assert english(stored) == text


@pytest.mark.parametrize(("stored", "text"), EXPORTED)
def test_an_older_snapshots_english_warning_is_read_as_its_note(stored, text):
    assert english(wording.from_sentence(text)) == text
    assert wording.from_sentence(text)["code"] == stored["code"]


def test_an_unknown_sentence_of_an_older_snapshot_is_shown_as_stored():
    stored = wording.from_sentence("Something a later release never wrote.")
    with translation.override("es"):
        assert shown(stored) == "Something a later release never wrote."
    assert english(stored) == "Something a later release never wrote."


def test_warnings_are_worded_in_french_with_plural_forms_and_decimal_commas():
    with translation.override("fr"):
        assert shown(note(wording.NO_REPORTS)) == "Pas encore de rapports."
        assert shown(note(wording.TOO_FEW, n=3)) == (
            f"Seulement 3 rapports{NBSP}: trop peu pour estimer."
        )
        assert "jusqu’à 0,0123." in shown(note(wording.SINGULAR_CHANNEL, bound=0.0123))
        far = shown(note(wording.FAR_OUTSIDE, low=-0.354, high=1.27, n=12))
        assert far.startswith("Certaines estimations brutes")
        assert re.search(r"de -35\s%\sà 127\s%", far)
        assert shown(note(wording.OLDER_REPORTS, n=1)).endswith("n’est pas inclus.")


def test_warnings_are_worded_in_spanish_with_plural_forms():
    with translation.override("es"):
        assert shown(note(wording.OLDER_REPORTS, n=1)) == (
            "No se incluye 1 informe hecho con versiones anteriores de esta pregunta."
        )
        assert shown(note(wording.OLDER_REPORTS, n=4)) == (
            "No se incluyen 4 informes hechos con versiones anteriores de esta "
            "pregunta."
        )
        assert shown(note(wording.TOO_FEW, n=1)) == (
            "Solo 1 informe: no basta para estimar."
        )


def test_a_refusal_is_english_in_text_and_in_the_readers_language_when_shown():
    refusal = RegressionRefused(
        "“%(text)s” is no longer protected.", text="Have you cheated?"
    )
    assert str(refusal) == "“Have you cheated?” is no longer protected."
    with translation.override("es"):
        assert refusal.shown() == "«Have you cheated?» ya no está protegida."
        assert english(refusal.note()) == str(refusal)


def test_a_refusals_numbers_follow_the_readers_language():
    refused = note(
        wording.REFUSED,
        message="Empty cell: no respondent answered “%(answer)s” to “%(text)s”, "
        "whose population share is %(share)s%%. Merge it with a neighbouring "
        "answer (add their shares) or give it 0%%.",
        values={"answer": "Yes", "text": "Q", "share": 12.5},
    )
    assert "whose population share is 12.5%." in english(refused)
    with translation.override("fr"):
        assert f"est de 12,5{NBSP}%." in shown(refused)


def test_mechanism_names_are_english_for_exports_and_translated_when_shown():
    with translation.override("fr"):
        assert mechanism_label("grr") == "Generalized randomized response"
        assert mechanism_label_shown("grr") == "Réponse randomisée généralisée"
        assert stored_label_shown("Warner randomized response") == (
            "Réponse randomisée de Warner"
        )
        assert stored_label_shown("not a mechanism") == "not a mechanism"
        assert mechanism_label_shown("no-such-mechanism") == "no-such-mechanism"


def test_a_forced_response_design_is_named_in_the_readers_language():
    with translation.override("es"):
        assert design_label("forced_response", CUSTOM_SPLIT) == (
            "Forced response, custom split: true answer 70.5%, “yes” 20%, “no” 8.9%"
        )
        assert design_label_shown("forced_response", CUSTOM_SPLIT) == (
            "Respuesta forzada, reparto personalizado: respuesta verdadera "
            "70,5 %, «sí» 20 %, «no» 8,9 %"
        )


def _chart() -> str:
    return str(
        charts.interval_chart(
            chart_id="c",
            title="t",
            desc="d",
            bars=[charts.Bar("a", 1.25, 0.4, 2.1), charts.Bar("b", 0.7, 0.2, 1.3)],
            percent=False,
        )
    )


def test_chart_tick_labels_follow_the_language_and_coordinates_do_not():
    with translation.override("en"):
        english_chart = _chart()
    with translation.override("fr"):
        french_chart = _chart()
    english_ticks = TICK.findall(english_chart)
    assert any("." in tick for tick in english_ticks)
    assert TICK.findall(french_chart) == [t.replace(".", ",") for t in english_ticks]
    assert COORDINATES.findall(french_chart) == COORDINATES.findall(english_chart)


def test_percent_chart_ticks_use_the_languages_percent_sign():
    bars = [charts.Bar("a", 0.25, 0.1, 0.4)]
    with translation.override("fr"):
        french = str(
            charts.interval_chart(chart_id="c", title="t", desc="d", bars=bars)
        )
    with translation.override("en"):
        plain = str(charts.interval_chart(chart_id="c", title="t", desc="d", bars=bars))
    assert "0%" in TICK.findall(plain)
    assert any(re.fullmatch(r"0\s%", tick) for tick in TICK.findall(french))
