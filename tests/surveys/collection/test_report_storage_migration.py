"""collection 0008-0010: JSON payloads of earlier versions become compact columns.

Rows written with a JSON payload under the previous schema (through the
historical models of collection 0007) are converted in several batches, each
decoding to exactly the payload written; migrating back restores the very
payloads; a conversion that stopped part-way keeps the batches it committed
and converts the rest when the migration runs again.
"""

from __future__ import annotations

import importlib
import random
import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Q

import ldp
from surveys.collection import report_codec
from surveys.collection.models import Report
from tests.surveys.analysis.conftest import make_survey
from tests.surveys.stored_reports import payloads

# Migrating the whole test database back and forth: the suite, not the fast lane.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BEFORE = [("collection", "0007_submission_survey_id")]
CONVERTING = [("collection", "0008_report_value_bits")]
AFTER = [("collection", "0010_report_payload_dropped")]
MIGRATION = importlib.import_module(
    "surveys.collection.migrations.0009_report_payloads_converted"
)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return _state(targets)


def _state(targets):
    """The historical models at ``targets``."""
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture
def previous_schema(researcher):
    """The survey of every family, the database back at collection 0007; the
    newest migrations are applied again afterwards, whatever happened."""
    survey = make_survey(researcher)
    try:
        yield survey, _migrate(BEFORE)
    finally:
        executor = MigrationExecutor(connection)
        _migrate(executor.loader.graph.leaf_nodes())


def _write_payloads(apps, survey, count: int) -> dict[int, object]:
    """``count`` submissions with a JSON payload per private question, written
    through the historical models; report id → the payload written."""
    Submission = apps.get_model("collection", "Submission")
    OldReport = apps.get_model("collection", "Report")
    words = random.Random(3)
    written = {}
    for _ in range(count):
        submission = Submission.objects.create(
            survey_id=survey.pk,
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
        )
        for question in survey.questions.filter(is_private=True):
            mechanism = ldp.build(question.spec)
            selected = [words.randrange(mechanism.k)]
            answer = selected if question.kind == "multi_select" else selected[0]
            payload = mechanism.randomize_one(answer, lambda: words.getrandbits(32))
            report = OldReport._default_manager.create(
                submission_id=submission.pk,
                question_id=question.pk,
                spec_revision=question.spec_revision,
                payload=payload,
            )
            written[report.pk] = payload
    return written


def test_payloads_become_columns_in_batches_and_come_back_when_migrating_back(
    previous_schema, monkeypatch
):
    survey, apps = previous_schema
    written = _write_payloads(apps, survey, 5)  # 70 reports
    monkeypatch.setattr(MIGRATION, "BATCH", 16)  # five batches

    _migrate(AFTER)
    stored = dict(payloads(Report.all_objects.order_by("id"), "id"))
    assert stored == written
    assert (
        Report.all_objects.filter(value__isnull=False, bits__isnull=False).count() == 0
    )

    apps = _migrate(BEFORE)
    OldReport = apps.get_model("collection", "Report")
    assert dict(OldReport._default_manager.values_list("id", "payload")) == written


def test_a_stopped_conversion_converts_the_rest_when_run_again(
    previous_schema, monkeypatch
):
    survey, apps = previous_schema
    written = _write_payloads(apps, survey, 5)  # 70 reports
    monkeypatch.setattr(MIGRATION, "BATCH", 16)
    encode, calls = report_codec.encode, []

    def stops_after_two_batches(spec, report):
        calls.append(report)
        if len(calls) > 40:
            raise RuntimeError("the conversion stopped")
        return encode(spec, report)

    monkeypatch.setattr(report_codec, "encode", stops_after_two_batches)
    with pytest.raises(RuntimeError, match="the conversion stopped"):
        _migrate(AFTER)
    monkeypatch.setattr(report_codec, "encode", encode)
    OldReport = _state(CONVERTING).get_model("collection", "Report")
    done = OldReport._default_manager.filter(
        Q(value__isnull=False) | Q(bits__isnull=False)
    )
    # The two batches that committed: the 32 lowest ids, in id order.
    assert sorted(done.values_list("id", flat=True)) == sorted(written)[:32]

    _migrate(AFTER)
    assert dict(payloads(Report.all_objects.order_by("id"), "id")) == written
