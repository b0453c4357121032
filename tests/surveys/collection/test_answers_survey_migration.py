"""collection 0021: unprotected answers, skips and link values stored before
it get their submission's survey."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from surveys.collection.models import LinkValue, PlainAnswer, SkippedAnswer

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("collection", "0020_submission_released_and_invited")]
AFTER = [("collection", "0021_answers_carry_survey")]


def _migrate(targets):
    """Migrate to ``targets`` and return the models as the database now has
    them: every applied migration of every app, not only the targets' own
    ancestors (other apps stay at their newest)."""
    MigrationExecutor(connection).migrate(targets)
    loader = MigrationExecutor(connection).loader
    applied = [key for key in loader.applied_migrations if key in loader.graph.nodes]
    return loader.project_state(applied).apps


@pytest.fixture
def previous_schema():
    """The database back at collection 0020; the newest migrations are
    applied again afterwards, whatever happened."""
    try:
        yield _migrate(BEFORE)
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_rows_stored_before_the_survey_column_get_their_submissions_survey(
    previous_schema, researcher
):
    apps = previous_schema
    survey_model = apps.get_model("authoring", "Survey")
    question_model = apps.get_model("authoring", "Question")
    submission_model = apps.get_model("collection", "Submission")
    surveys = []
    for title in ("one", "two"):
        survey = survey_model.objects.create(owner_id=researcher.pk, title=title)
        question = question_model.objects.create(
            survey=survey, text="Yes?", kind="yes_no", position=1
        )
        submission = submission_model.objects.create(
            survey=survey, idempotency_key=uuid.uuid4(), survey_revision=1
        )
        apps.get_model("collection", "PlainAnswer").objects.create(
            submission=submission, question=question, value=1
        )
        apps.get_model("collection", "SkippedAnswer").objects.create(
            submission=submission, question=question, reason="blank"
        )
        apps.get_model("collection", "LinkValue").objects.create(
            submission=submission, name="source", value="mail"
        )
        surveys.append((survey.pk, submission.pk))

    _migrate(AFTER)

    for model in (PlainAnswer, SkippedAnswer, LinkValue):
        stored = set(model.objects.values_list("survey_id", "submission_id"))
        assert stored == set(surveys), model
