"""Housekeeping tasks of the accounts app."""

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from surveys.accounts.tasks import clear_expired_sessions


@pytest.mark.django_db
def test_clear_expired_sessions_deletes_only_expired_ones():
    for _ in range(2):
        SessionStore().create()
    Session.objects.filter(
        pk__in=Session.objects.values_list("pk", flat=True)[:1]
    ).update(expire_date=timezone.now() - timedelta(days=1))
    assert clear_expired_sessions.delay().get() == 1
    assert Session.objects.count() == 1
    assert clear_expired_sessions.delay().get() == 0
