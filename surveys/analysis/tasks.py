"""Celery tasks of the analysis app."""

import socket

from celery import shared_task
from django.db import connection


@shared_task
def health_check() -> dict[str, str]:
    """Prove a worker is alive and can reach the database; used by operators."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        (one,) = cursor.fetchone()
    return {
        "worker": socket.gethostname(),
        "database": "ok" if one == 1 else "unexpected",
    }
