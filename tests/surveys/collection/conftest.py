"""Fixtures: a published survey (through the authoring services) and bodies."""

from __future__ import annotations

import json
import uuid
from typing import Any

import numpy as np
import pytest

import ldp
from surveys.authoring.models import Survey
from surveys.collection import demo


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user("ada", password="correct horse 42")


@pytest.fixture
def survey(researcher) -> Survey:
    """The demo survey: forced response, Warner, GRR and one unprotected question."""
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
        reports[q.pk] = mechanism.randomize(np.array([0]), rng).tolist()[0]
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


JSON = {"HTTP_ACCEPT": "application/json"}
