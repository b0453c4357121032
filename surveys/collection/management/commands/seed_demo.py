"""Load a demo researcher, a published demo survey and simulated respondents."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from surveys.collection import demo, device_links
from surveys.collection.signals import announce_reports_on_commit


class Command(BaseCommand):
    help = (
        "Create (once) the demo researcher, a published demo survey with one "
        "question of every kind, and simulated respondents. Safe to run "
        "again: existing demo data is left as it is. Development only."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--respondents",
            type=int,
            default=500,
            help="simulated respondents for a new demo survey (default 500)",
        )
        parser.add_argument(
            "--server-url",
            default="http://127.0.0.1:8000",
            help="the survey server's address, for the independent device's link",
        )

    def handle(self, *args, respondents: int, server_url: str, **options) -> None:
        if getattr(settings, "PRODUCTION", False):
            raise CommandError(
                "seed_demo creates an account with a published password; it "
                "refuses to run with DENIABLE_PRODUCTION on."
            )
        if respondents < 0:
            raise CommandError(f"--respondents is {respondents}; allowed: 0 or more")
        user, _ = demo.demo_researcher()
        survey, created = demo.demo_survey(owner=user)
        stored = 0
        if not survey.submissions.exists():
            stored = demo.simulate_respondents(survey=survey, count=respondents)
        else:
            # Results at once for a demo stored before they were computed on
            # ingest: whoever tallies (analysis) catches up now or in a worker.
            announce_reports_on_commit(survey_id=survey.pk)
        total = survey.submissions.count()
        self.stdout.write(
            f"Demo researcher: username {demo.DEMO_USERNAME}, password "
            f"{demo.DEMO_PASSWORD} (development only)."
        )
        self.stdout.write(
            f"Demo survey {'created' if created else 'already present'}: "
            f"“{survey.title}”, {total} response(s)"
            + (f" ({stored} simulated now)." if stored else ".")
        )
        self.stdout.write(
            "Answer it at " + reverse("collection:consent", args=[survey.public_token])
        )
        on_device = device_links.device_link(
            server_url.rstrip("/"), survey=survey.public_token
        )
        if on_device:
            self.stdout.write(f"or on the independent device at {on_device}")
