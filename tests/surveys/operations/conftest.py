"""Fixtures for the operations tests: a researcher."""

import pytest


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user("grace", password="correct horse 42")
