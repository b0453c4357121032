"""The Celery application; configuration lives in Django settings (CELERY_*)."""

import logging
import os

from celery import Celery
from celery.signals import setup_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

app = Celery("surveys")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Finds tasks.py in every installed app (surveys.accounts, surveys.analysis, ...).
app.autodiscover_tasks()


@setup_logging.connect
def use_the_redacting_logging(**kwargs: object) -> None:
    """A worker logs through Django's LOGGING (its redacting console handler,
    surveys/redaction.py) instead of Celery's own handlers, so an invitation
    token, receipt code or unsubscribe token in a worker's log line is
    redacted as it is in the web processes'.  The level the command asks for
    (``--loglevel``) is kept."""
    from logging.config import dictConfig

    from django.conf import settings

    dictConfig(settings.LOGGING)
    if kwargs.get("loglevel"):
        logging.getLogger().setLevel(kwargs["loglevel"])  # type: ignore[arg-type]
