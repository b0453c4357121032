"""Researcher accounts are made with the production password hasher."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing() -> None:
    """Keep the production hashers here (tests/surveys/conftest.py swaps them)."""
