"""What ``load.py`` checks after the load, once the queue has drained.

Accepted = stored submissions = reports per private question = tallied n
(:func:`survey_counts`), the tallies equal a from-scratch aggregate of the
stored reports (:func:`recount_equal`), and the Celery queue is empty
(:func:`queue_length`); :class:`Consistency` holds the outcome and names
every problem found.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

CELERY_QUEUE = "celery"


class Recorded(Protocol):
    """What a load generator's recorder keeps (``load.Recorder``)."""

    accepted: set[str]
    failed: Any  # a Counter of connection errors by label

    def server_errors(self) -> int: ...

    def unexpected(self) -> int: ...


@dataclass(frozen=True)
class Consistency:
    """What was accepted, stored and tallied, after the queue drained."""

    accepted: int
    stored: int
    reports: dict[int, int]  # question id -> stored reports
    tallied: dict[int, int]  # question id -> tally n
    recount_equal: bool  # the tallies equal ldp's aggregate of the stored reports
    server_errors: int
    failed_requests: int
    unexpected: int
    drained_after: float | None  # seconds from the last submission; None: timed out
    queued: int  # tasks left in the Celery queue
    client_crashes: int = 0  # exceptions in the load generator itself

    def problems(self) -> list[str]:
        found = []
        if self.stored != self.accepted:
            found.append(f"accepted {self.accepted} but stored {self.stored}")
        if any(count != self.stored for count in self.reports.values()):
            found.append(f"reports per question {self.reports} != {self.stored}")
        if self.tallied != self.reports:
            found.append(f"tallied {self.tallied} != stored reports {self.reports}")
        if not self.recount_equal:
            found.append("the tallies differ from a recount of the stored reports")
        if self.server_errors or self.failed_requests:
            found.append(
                f"{self.server_errors} server errors, "
                f"{self.failed_requests} failed connections"
            )
        if self.unexpected:
            found.append(f"{self.unexpected} unexpected (4xx) answers")
        if self.drained_after is None:
            found.append("the tallies did not catch up before the timeout")
        if self.client_crashes:
            found.append(f"the load generator crashed {self.client_crashes} times")
        return found


def survey_counts(survey_id: int) -> tuple[int, dict[int, int], dict[int, int], int]:
    """Stored submissions, reports and tally n per private question, watermark gap."""
    from django.db.models import Count, Max, Sum

    from surveys.analysis.models import Tally
    from surveys.analysis.results.selectors import survey_watermark
    from surveys.authoring.models import Question
    from surveys.collection.models import Report, Submission

    private = Question.objects.filter(survey_id=survey_id, is_private=True)
    reports = dict.fromkeys(private.values_list("pk", flat=True), 0)
    rows = Report.objects.filter(survey_id=survey_id)
    reports.update(
        rows.values("question_id")
        .annotate(count=Count("id"))
        .values_list("question_id", "count")
    )
    tallied = dict.fromkeys(reports, 0)
    tallied.update(
        Tally.objects.filter(question__survey_id=survey_id)
        .values("question_id")
        .annotate(total=Sum("n"))
        .values_list("question_id", "total")
    )
    last = rows.aggregate(last=Max("id"))["last"] or 0
    gap = max(0, last - survey_watermark(survey_id=survey_id))
    stored = Submission.objects.filter(survey_id=survey_id).count()
    return stored, reports, tallied, gap


def queue_length(broker_url: str) -> int:
    """Tasks waiting in the Celery queue on the Redis broker."""
    import redis

    client = redis.Redis.from_url(broker_url)
    try:
        return int(client.llen(CELERY_QUEUE))
    finally:
        client.close()


def wait_for_drain(survey_id: int, broker_url: str, timeout: float) -> float | None:
    """Seconds until the queue is empty and the tallies cover every stored report."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        _, reports, tallied, gap = survey_counts(survey_id)
        if gap == 0 and tallied == reports and queue_length(broker_url) == 0:
            return time.monotonic() - started
        time.sleep(0.2)
    return None


def recount_equal(survey_id: int) -> bool:
    """The survey's tallies equal ldp's aggregate of its stored reports."""
    import ldp
    from surveys.analysis.results.selectors import survey_tallies
    from surveys.authoring.models import SpecRevision
    from surveys.collection import report_codec
    from surveys.collection.models import Report

    specs = {
        (r.question_id, r.revision): r.spec
        for r in SpecRevision.objects.filter(question__survey_id=survey_id)
    }
    payloads: dict[tuple[int, int], list[Any]] = defaultdict(list)
    for question_id, revision, value, bits in (
        Report.objects.filter(survey_id=survey_id)
        .order_by("id")
        .values_list("question_id", "spec_revision", "value", "bits")
    ):
        key = (question_id, revision)
        payloads[key].append(report_codec.decode(specs[key], value, bits))
    direct = {
        key: ldp.build(specs[key]).aggregate(values).to_dict()
        for key, values in payloads.items()
    }
    tallies = {
        key: stat.to_dict() for key, stat in survey_tallies(survey_id=survey_id).items()
    }
    return direct == tallies


def checked(
    survey_id: int,
    broker_url: str,
    recorders: list[Recorded],
    *,
    drained_after: float | None,
    client_crashes: int = 0,
) -> Consistency:
    """What the clients of ``recorders`` saw against what is stored and
    tallied for the survey now (after :func:`wait_for_drain`)."""
    stored, reports, tallied, _ = survey_counts(survey_id)
    return Consistency(
        accepted=sum(len(recorder.accepted) for recorder in recorders),
        stored=stored,
        reports=reports,
        tallied=tallied,
        recount_equal=recount_equal(survey_id),
        server_errors=sum(recorder.server_errors() for recorder in recorders),
        failed_requests=sum(sum(recorder.failed.values()) for recorder in recorders),
        unexpected=sum(recorder.unexpected() for recorder in recorders),
        drained_after=drained_after,
        queued=queue_length(broker_url),
        client_crashes=client_crashes,
    )
