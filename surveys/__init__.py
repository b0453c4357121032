"""The Deniable Django project: settings, URLs, the Celery app and the apps."""

from surveys.celery import app as celery_app

__all__ = ["celery_app"]
