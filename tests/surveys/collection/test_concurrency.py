"""One invitation, 50 simultaneous submissions: the database lets one through."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from surveys.collection import services
from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from tests.surveys.collection.conftest import JSON, body

ATTEMPTS = 50


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_one_invitation_token_accepts_exactly_one_of_50_concurrent_submissions(
    survey,
):
    (token,) = services.invitations_create(survey=survey, count=1)
    url = reverse("collection:respond_invitation", args=[token])
    bodies = [body(survey) for _ in range(ATTEMPTS)]  # 50 different respondents
    start = threading.Barrier(ATTEMPTS)

    def submit(data: dict[str, str]) -> tuple[int, dict]:
        try:
            client = Client()
            start.wait(timeout=30)
            response = client.post(url, data, **JSON)
            return response.status_code, response.json()
        finally:
            connections.close_all()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=ATTEMPTS) as pool:
        results = list(pool.map(submit, bodies))

    statuses = sorted(status for status, _ in results)
    assert statuses == [201] + [409] * (ATTEMPTS - 1), statuses
    for status, payload in results:
        if status == 409:
            assert "already been used" in payload["error"]
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 6 and PlainAnswer.objects.count() == 1
    assert Invitation.objects.get().used is True


@pytest.mark.slow  # a race between real transactions on other threads
@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_of_one_response_store_it_once(survey):
    url = reverse("collection:respond", args=[survey.public_token])
    data = body(survey)
    start = threading.Barrier(10)

    def submit(_: int) -> int:
        try:
            start.wait(timeout=30)
            return Client().post(url, data, **JSON).status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = sorted(pool.map(submit, range(10)))
    assert statuses == [200] * 9 + [201]
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 6
