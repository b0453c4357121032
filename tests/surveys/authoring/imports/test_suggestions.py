"""The import's suggestions are the builder's own recommendation."""

from __future__ import annotations

from decimal import Decimal

import pytest

from surveys.authoring import mechanisms, services
from surveys.authoring.imports import drafts, formats
from surveys.authoring.imports.suggestions import suggest
from surveys.authoring.mechanisms import PrivacyConfig
from tests.surveys.authoring.imports.workbooks import STUDENT_LIFE

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(ada):
    source, parsed = formats.read("s.xlsx", STUDENT_LIFE)
    return drafts.draft_from(owner=ada, parsed=parsed, source=source)


def test_each_question_gets_the_mechanism_the_question_form_recommends(imported):
    found = {row.question.text: row for row in suggest(imported).rows}
    drinks = found["How often do you drink?"]
    recommended = mechanisms.build(
        PrivacyConfig(kind="ordinal", options=("Never", "Monthly", "Weekly"))
    )
    assert drinks.preview.mechanism == recommended.name
    assert Decimal(drinks.preview.epsilon_display) == 1
    age = found["Your age"]
    assert (
        age.preview.mechanism
        == mechanisms.build(
            PrivacyConfig(
                kind="numeric", low=Decimal(16), high=Decimal(99), step=Decimal(1)
            )
        ).name
    )


def test_a_question_that_drives_display_logic_is_kept_unprotected(imported):
    found = {row.question.text: row for row in suggest(imported).rows}
    assert found["Your faculty"].preview is None
    assert "decides which questions are shown" in found["Your faculty"].reason


def test_the_total_if_every_suggestion_were_followed_is_checked_against_the_budget(
    imported,
):
    suggested = suggest(imported)
    protectable = [row for row in suggested.rows if row.preview]
    assert len(protectable) == 5
    assert Decimal(suggested.total_display) == 5
    assert suggested.within_budget is False  # the default budget is 4


def test_a_protected_question_is_no_longer_suggested(imported):
    drinks = imported.questions.get(text="How often do you drink?")
    services.question_update(
        question=drinks,
        text=drinks.text,
        privacy=PrivacyConfig(kind="ordinal", options=tuple(drinks.options)),
        optional=drinks.optional,
        show_if=drinks.show_if,
    )
    texts = [row.question.text for row in suggest(imported).rows]
    assert "How often do you drink?" not in texts
