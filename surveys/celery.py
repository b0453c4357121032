"""The Celery application; configuration lives in Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")

app = Celery("surveys")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Finds tasks.py in every installed app (surveys.accounts, surveys.analysis, ...).
app.autodiscover_tasks()
