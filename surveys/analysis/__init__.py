"""Tallies, debiased estimates, dashboards, exports and their Celery tasks."""
