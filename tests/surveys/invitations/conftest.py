"""The invitation tests use collection's researcher and survey fixtures."""

from tests.surveys.collection.conftest import (  # noqa: F401  (fixtures)
    kinds_survey,
    researcher,
    survey,
)
