"""Fixtures: a published survey (through the authoring services) and bodies."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

import ldp
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import demo


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user("ada", password="correct horse 42")


OPTIONS = ("Red", "Green", "Blue", "Cyan", "Magenta", "Yellow")
SCALE = ("Never", "Rarely", "Sometimes", "Often", "Always")
GRID = {"low": Decimal("0.5"), "high": Decimal("5"), "step": Decimal("0.5")}
# Every mechanism the new kinds can use, one question each.
CONFIGS = {
    "ordinal": PrivacyConfig(kind="ordinal", options=SCALE, mechanism="ordinal"),
    "geometric": PrivacyConfig(kind="numeric", mechanism="geometric", **GRID),
    "gaussian": PrivacyConfig(kind="numeric", mechanism="gaussian", **GRID),
    "duchi": PrivacyConfig(kind="numeric", mechanism="duchi", **GRID),
    "piecewise": PrivacyConfig(kind="numeric", mechanism="piecewise", **GRID),
    "multi_rr": PrivacyConfig(
        kind="multi_select", options=OPTIONS, mechanism="multi_rr"
    ),
    "padding_sampling": PrivacyConfig(
        kind="multi_select",
        options=OPTIONS,
        mechanism="padding_sampling",
        max_selections=3,
    ),
}
PLAIN_MULTI = PrivacyConfig(
    kind="multi_select", is_private=False, options=OPTIONS, max_selections=2
)


@pytest.fixture
def kinds_survey(researcher) -> Survey:
    survey = authoring.survey_create(
        owner=researcher, title="Every kind", epsilon_budget=10.0
    )
    for name, config in CONFIGS.items():
        authoring.question_create(survey=survey, text=f"About {name}?", privacy=config)
    authoring.question_create(
        survey=survey,
        text="Which colours do you like?",
        privacy=PLAIN_MULTI,
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=survey, user=researcher)


@pytest.fixture
def survey(researcher) -> Survey:
    """The demo survey: one question of every kind, one of them unprotected."""
    created, _ = demo.demo_survey(owner=researcher)
    return created


def questions(survey: Survey) -> dict[str, Any]:
    """The survey's questions keyed by mechanism name (or "plain")."""
    return {
        (q.spec["mechanism"] if q.is_private else "plain"): q
        for q in survey.questions.all()
    }


def valid_reports(survey: Survey, seed: int = 7) -> dict[int, Any]:
    """One possible report per private question, from the Python reference."""
    rng = np.random.default_rng(seed)
    reports = {}
    for q in survey.questions.filter(is_private=True):
        mechanism = ldp.build(q.spec)
        truth = [[0]] if q.kind == "multi_select" else np.array([0])
        reports[q.pk] = mechanism.randomize(truth, rng).tolist()[0]
    return reports


def body(
    survey: Survey,
    *,
    reports: dict[int, Any] | None = None,
    key: uuid.UUID | None = None,
    plain: int = 1,
    **overrides: Any,
) -> dict[str, str]:
    """A form body as respond.js builds it (reports as JSON strings)."""
    reports = valid_reports(survey) if reports is None else reports
    data = {
        "idempotency_key": str(key or uuid.uuid4()),
        "survey_revision": str(survey.revision),
    }
    for q in survey.questions.all():
        if q.is_private:
            if q.pk in reports:
                data[f"q{q.pk}_report"] = json.dumps(reports[q.pk])
            data[f"q{q.pk}_spec_revision"] = str(q.spec_revision)
        else:
            data[f"q{q.pk}"] = str(plain)
    data.update(overrides)
    return data


def offered_in(survey: Survey, *languages: str) -> Survey:
    """Offer ``survey`` in ``languages`` too, every text translated as
    "[code] source text" (a complete translation, told apart from the source)."""
    from surveys.authoring import translation_services, translations

    translation_services.survey_languages_update(
        survey=survey,
        user=survey.owner,
        source_language=survey.source_language,
        languages=list(languages),
        record_language=survey.record_language,
    )
    for code in languages:
        questions = list(survey.questions.all())
        texts = {}
        for question in questions:
            source = translations.question_source(question)
            texts[question.pk] = {
                name: (
                    [f"[{code}] {label}" for label in value]
                    if isinstance(value, list)
                    else f"[{code}] {value}"
                    if value
                    else ""
                )
                for name, value in source.items()
            }
        translation_services.translations_update(
            survey=survey,
            user=survey.owner,
            language=code,
            survey_texts={
                name: f"[{code}] {getattr(survey, name)}"
                for name, _ in translations.SURVEY_TEXTS
                if getattr(survey, name)
            },
            question_texts=texts,
        )
    survey.refresh_from_db()
    return survey


JSON = {"HTTP_ACCEPT": "application/json"}
PRIVATE_COUNT = 6  # private questions in the demo survey
