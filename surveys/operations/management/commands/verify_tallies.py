"""Check stored tallies against a recount: ``manage.py verify_tallies [--survey ID]``.

The upgrade check of docs/operations.md: after migrating a copy of production,
every survey's tallies (kept incrementally, possibly by the previous version),
with its tallies of unprotected answers and skips and its count of covered
submissions, must equal a recount from its reports by the new version.  For
each survey it folds in any reports not yet tallied (as a worker would), notes
the tallies, recounts from scratch and compares, all inside one transaction
that is rolled back: no row changes (only the tally id sequence moves on, as
sequences do after any rolled-back insert).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from surveys.analysis.models import Tally, TallyWatermark
from surveys.analysis.results.answer_counts import stored_counts
from surveys.analysis.tallies import services
from surveys.authoring.models import Survey

TallyKey = tuple[int, int]  # (question id, spec revision)


def _tallies(survey_id: int) -> dict[TallyKey, tuple[int, Any]]:
    return {
        (tally.question_id, tally.spec_revision): (tally.n, tally.stat)
        for tally in Tally.objects.filter(question__survey_id=survey_id)
    }


def _differences(
    stored: dict[TallyKey, tuple[int, Any]], recounted: dict[TallyKey, tuple[int, Any]]
) -> list[str]:
    lines = []
    for question_id, revision in sorted(stored.keys() | recounted.keys()):
        was = stored.get((question_id, revision))
        now = recounted.get((question_id, revision))
        if was != now:
            lines.append(
                f"  question {question_id} revision {revision}: stored "
                f"{_describe(was)}, recounted {_describe(now)}"
            )
    return lines


def _describe(tally: tuple[int, Any] | None) -> str:
    if tally is None:
        return "nothing"
    n, stat = tally
    return f"n={n} counts={stat.get('counts') if isinstance(stat, dict) else stat}"


def _answers(survey_id: int) -> tuple[Any, Any, int]:
    """The unprotected answers and skips tallied, and the covered submissions."""
    counts = stored_counts(survey_id=survey_id)
    mark = TallyWatermark.objects.filter(survey_id=survey_id).first()
    return counts.by_question(), counts.skip_reasons(), mark.responses if mark else 0


def _answer_differences(stored: tuple, recounted: tuple) -> list[str]:
    names = ("unprotected answers", "skips", "submissions covered")
    return [
        f"  {name}: stored {was}, recounted {now}"
        for name, was, now in zip(names, stored, recounted, strict=True)
        if was != now
    ]


def _check(survey_id: int) -> tuple[int, list[str]] | None:
    """(reports recounted, differences), or None if in-flight submissions
    kept the tallies from being brought up to date.  Writes nothing."""
    with transaction.atomic():
        try:
            if services.tallies_refresh(survey_id=survey_id).deferred:
                return None
            stored, answers = _tallies(survey_id), _answers(survey_id)
            counted = services.tallies_recount(survey_id=survey_id)
            return counted, _differences(
                stored, _tallies(survey_id)
            ) + _answer_differences(answers, _answers(survey_id))
        finally:
            transaction.set_rollback(True)


class Command(BaseCommand):
    help = (
        "Check that every survey's stored tallies equal a recount from its "
        "reports (the upgrade check). Changes no data; exits non-zero on any "
        "difference."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--survey", type=int, help="only this survey id")

    def handle(self, *args, survey: int | None = None, **options) -> None:
        if survey is not None and not Survey.objects.filter(pk=survey).exists():
            raise CommandError(f"survey {survey} does not exist; allowed: a survey id")
        ids = (
            [survey]
            if survey is not None
            else list(Survey.objects.order_by("pk").values_list("pk", flat=True))
        )
        failed = []
        for survey_id in ids:
            checked = _check(survey_id)
            if checked is None:
                failed.append(survey_id)
                self.stdout.write(
                    f"survey {survey_id}: submissions stayed in flight; not checked"
                )
                continue
            counted, differences = checked
            if differences:
                failed.append(survey_id)
                self.stdout.write(
                    f"survey {survey_id}: tallies differ from a recount of "
                    f"{counted} reports:\n" + "\n".join(differences)
                )
            else:
                self.stdout.write(
                    f"survey {survey_id}: tallies equal a recount of {counted} reports"
                )
        if failed:
            raise CommandError(
                f"{len(failed)} survey(s) not verified: "
                f"{', '.join(map(str, failed))}. `manage.py recount_tallies` "
                "replaces tallies with a recount."
            )
