"""Fixtures: a small PNG logo and a themed, published demo survey."""

from __future__ import annotations

import base64

import pytest

from surveys.themes.models import Theme
from tests.surveys.collection.conftest import (  # noqa: F401  (fixtures)
    researcher,
    survey,
)

# A 1 × 1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
    "60e6kgAAAABJRU5ErkJggg=="
)


@pytest.fixture
def theme() -> Theme:
    return Theme.objects.create(
        name="Université de Exemple", accent="#6b2c91", logo=PNG, logo_type="image/png"
    )


@pytest.fixture
def themed_survey(survey, theme):  # noqa: F811  (the imported fixture)
    survey.theme = theme
    survey.save(update_fields=["theme"])
    return survey
