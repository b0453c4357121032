"""Tallies of unprotected answers and skips: equal to a recount of the stored
answers at every watermark, and all a snapshot reads of them."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.analysis.models import PlainAnswerTally, TallyWatermark
from surveys.analysis.results import answer_counts, selectors
from surveys.analysis.tallies import answers, services, snapshots
from surveys.analysis.tallies import windows as keyset
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import report_store
from surveys.collection.models import PlainAnswer, Report, SkippedAnswer, Submission
from surveys.collection.services import (
    ResponseIn,
    SentReport,
    submission_withdraw,
    submissions_ingest_bulk,
)
from tests.surveys.analysis.conftest import untallied

pytestmark = pytest.mark.django_db


@pytest.fixture
def mixed_survey(ada) -> Survey:
    """Two protected questions (one optional), an optional unprotected choice
    and an unprotected multi-select."""
    survey = authoring.survey_create(owner=ada, title="Mixed")
    authoring.question_create(
        survey=survey, text="Protected?", privacy=PrivacyConfig(kind="yes_no")
    )
    authoring.question_create(
        survey=survey,
        text="Protected, optional?",
        privacy=PrivacyConfig(kind="yes_no"),
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text="Age band?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Young", "Middle", "Old")
        ),
        not_private_acknowledged=True,
        optional=True,
    )
    authoring.question_create(
        survey=survey,
        text="Tools?",
        privacy=PrivacyConfig(
            kind="multi_select", is_private=False, options=("Pen", "Ink", "Pad")
        ),
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=survey, user=ada)


def submit(survey: Survey, count: int, seed: int) -> None:
    """``count`` responses with varied unprotected answers and skips."""
    required, optional, band, tools = survey.questions.order_by("position")
    rng = np.random.default_rng(seed)
    mechanisms = {q.pk: ldp.build(q.spec) for q in (required, optional)}
    responses = []
    for _ in range(count):
        skip = bool(rng.random() < 0.3)
        # How each skipped question was left: declined, blank, or (a marker
        # from before the two were told apart) unknown.
        how = ("declined", "blank", None)
        reasons = {
            pk: reason
            for pk in (optional.pk, band.pk)
            if (reason := how[int(rng.integers(0, 3))]) is not None
        }
        reports = {
            pk: SentReport(1, m.randomize(np.array([1]), rng).tolist()[0])
            for pk, m in mechanisms.items()
            if not (skip and pk == optional.pk)
        }
        plain = {tools.pk: sorted({int(v) for v in rng.integers(0, 3, size=2)})}
        if not skip:
            plain[band.pk] = int(rng.integers(0, 3))
        responses.append(
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports=reports,
                plain_answers=plain,
                skipped=frozenset({optional.pk, band.pk}) if skip else frozenset(),
                skip_reasons=reasons if skip else {},
            )
        )
    submissions_ingest_bulk(survey=survey, responses=responses)


def tallied(survey: Survey) -> tuple[dict, dict]:
    counts = answer_counts.stored_counts(survey_id=survey.pk)
    return counts.by_question(), counts.skip_reasons()


def recounted(survey: Survey) -> tuple[dict, dict]:
    counts = answers.counts_up_to(
        survey_id=survey.pk,
        last_submission_id=TallyWatermark.objects.get(
            survey_id=survey.pk
        ).last_submission_id,
    )
    return counts.by_question(), counts.skip_reasons()


# One report per question in a window (3), and one window (50 000), in the fast
# lane; the other sizes in the suite.
@pytest.mark.parametrize(
    "batch_size",
    [
        pytest.param(1, marks=pytest.mark.slow),
        3,
        pytest.param(7, marks=pytest.mark.slow),
        50_000,
    ],
)
def test_answer_tallies_equal_a_recount_after_every_batch(mixed_survey, batch_size):
    with untallied():
        for seed in range(3):
            submit(mixed_survey, 11, seed)
            services.tallies_refresh(survey_id=mixed_survey.pk, batch_size=batch_size)
            assert tallied(mixed_survey) == recounted(mixed_survey)
            submit(mixed_survey, 2, 100 + seed)  # left for the next refresh

    plain, skips = tallied(mixed_survey)
    assert sum(sum(by.values()) for by in skips.values()) > 0
    assert sum(count for pairs in plain.values() for _, count in pairs) > 0


def test_a_recount_gives_the_same_answer_tallies(mixed_survey):
    with untallied():
        submit(mixed_survey, 15, 1)
        services.tallies_refresh(survey_id=mixed_survey.pk, batch_size=4)
    before = tallied(mixed_survey)
    PlainAnswerTally.objects.filter(question__survey=mixed_survey).update(count=99)

    services.tallies_recount(survey_id=mixed_survey.pk)

    assert tallied(mixed_survey) == before


def test_a_withdrawn_tallied_submission_leaves_the_answer_tallies(mixed_survey):
    with untallied():
        submit(mixed_survey, 6, 2)
        services.tallies_refresh(survey_id=mixed_survey.pk)
        submit(mixed_survey, 3, 3)  # not tallied yet
    mark = selectors.survey_watermark(survey_id=mixed_survey.pk)
    tallied_one = Submission.objects.filter(
        survey=mixed_survey, reports__id__lte=mark
    ).first()
    untallied_one = Submission.objects.filter(
        survey=mixed_survey, reports__id__gt=mark
    ).first()

    submission_withdraw(submission=tallied_one)
    submission_withdraw(submission=untallied_one)

    assert tallied(mixed_survey) == recounted(mixed_survey)


def test_a_snapshot_reads_no_stored_answer_or_skip_and_only_its_batch_of_reports(
    mixed_survey,
):
    submit(mixed_survey, 12, 4)
    services.tallies_refresh(survey_id=mixed_survey.pk)
    tables = {m._meta.db_table for m in (PlainAnswer, SkippedAnswer)}
    reports = Report._meta.db_table

    with CaptureQueriesContext(connection) as captured:
        snapshots.snapshot_refresh(survey_id=mixed_survey.pk, force=True)

    sql = [q["sql"] for q in captured.captured_queries]
    assert {t for q in sql for t in tables if t in q} == set()
    # The release marks its submissions from the batch's id range only.
    report_reads = [q for q in sql if reports in q]
    assert all('."id" > ' in q and '."id" <= ' in q for q in report_reads), report_reads
    results = selectors.latest_results(survey=mixed_survey).results
    assert {s.question_id: s.n for s in results.plain} == {
        q: sum(c for _, c in pairs) for q, pairs in recounted(mixed_survey)[0].items()
    }


def test_a_backlog_larger_than_a_batch_refreshes_the_planner_statistics_once(
    mixed_survey,
):
    with untallied():
        submit(mixed_survey, 30, 5)

    outcome = services.tallies_refresh(survey_id=mixed_survey.pk, batch_size=4)
    again = services.tallies_refresh(survey_id=mixed_survey.pk, batch_size=4)

    assert outcome.analyzed and not again.analyzed
    question = mixed_survey.questions.filter(is_private=True).first()
    assert report_store.statistics_cover(
        survey_id=mixed_survey.pk, question_id=question.pk, up_to=outcome.watermark
    )
    assert outcome.folded == Report.objects.filter(survey=mixed_survey).count()
    assert tallied(mixed_survey) == recounted(mixed_survey)


@pytest.mark.parametrize("size", [1, 5, 16, 1_000])
def test_keyset_windows_hold_at_most_a_batch_and_cover_each_report_once(
    mixed_survey, size
):
    with untallied():
        submit(mixed_survey, 40, 6)
    ids = sorted(
        Report.objects.filter(survey=mixed_survey).values_list("id", flat=True)
    )
    questions = list(mixed_survey.questions.values_list("pk", flat=True))
    start, windows = 0, []
    while start < ids[-1]:
        end = keyset.window_end(
            mixed_survey.pk, questions, start=start, horizon=ids[-1], size=size
        )
        windows.append([i for i in ids if start < i <= end])
        start = end

    assert [i for window in windows for i in window] == ids
    assert all(1 <= len(window) <= max(size, len(questions)) for window in windows)
