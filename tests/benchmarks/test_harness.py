"""The benchmark harness's commands and the trivial view.

The benchmark itself, run small against the real stack, is
``tests/system/servers/benchmarks/test_load_stack.py``.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from benchmarks import harness
from tests.surveys.compose import service_command

SUBMISSIONS = 150


def test_the_harness_starts_the_compose_web_and_worker_commands():
    assert service_command("web") == harness.WEB_COMMAND
    assert service_command("worker") == harness.WORKER_COMMAND


@pytest.mark.django_db
def test_trivial_view_answers_ok_without_the_database(
    client, django_assert_num_queries
):
    with django_assert_num_queries(0):
        response = client.get(reverse("ping"))
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert "no-cache" in response["Cache-Control"]
