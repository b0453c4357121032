"""Periodic housekeeping for accounts."""

from celery import shared_task
from django.contrib.sessions.models import Session
from django.utils import timezone


@shared_task
def clear_expired_sessions() -> int:
    """Delete expired sessions (scheduled by beat); returns how many were deleted.

    Idempotent: running it twice deletes nothing more the second time.
    """
    deleted, _ = Session.objects.filter(expire_date__lt=timezone.now()).delete()
    return deleted
