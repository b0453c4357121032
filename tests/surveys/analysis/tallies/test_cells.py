"""Joint and pattern tallies: kept by the fold, equal to a recount, and what
breakdowns and weights read instead of the reports."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterator

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import ldp
from surveys.analysis.jobs import crosstabs, weights, weights_grouped
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob, ResultSnapshot, TallyWatermark
from surveys.analysis.results import selectors
from surveys.analysis.results.cells import snapshot_cells
from surveys.analysis.tallies import cells, services, snapshots
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection.models import Report, Submission
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submission_withdraw, submissions_ingest_bulk
from tests.conftest import module_rows
from tests.surveys.analysis.conftest import GRID, _fresh, _user, untallied

pytestmark = pytest.mark.django_db
FOUR = ("Never", "Sometimes", "Often", "Always")
PROTECTED = [
    ("warner", "yes_no", {"options": YES_NO_OPTIONS}),
    ("grr", "single_choice", {"options": FOUR}),
    ("oue", "single_choice", {"options": FOUR}),
    ("olh", "single_choice", {"options": FOUR}),
    ("ordinal", "ordinal", {"options": FOUR}),
    ("duchi", "numeric", GRID),
    ("multi_rr", "multi_select", {"options": FOUR}),
]
REGIONS = ("North", "South", "East")


def cells_survey(owner, title: str = "Cells", protected=PROTECTED) -> Survey:
    """The ``protected`` questions (all seven by default), an optional region
    and a plain yes/no."""
    made = authoring.survey_create(owner=owner, title=title, epsilon_budget=8)
    for name, kind, extra in protected:
        authoring.question_create(
            survey=made,
            text=f"Under {name}",
            privacy=PrivacyConfig(kind=kind, epsilon=1.0, mechanism=name, **extra),
        )
    authoring.question_create(
        survey=made,
        text="Region",
        privacy=PrivacyConfig("single_choice", is_private=False, options=REGIONS),
        not_private_acknowledged=True,
        optional=True,
    )
    authoring.question_create(
        survey=made,
        text="Employed",
        privacy=PrivacyConfig("yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    return authoring.survey_publish(survey=made, user=owner)


@pytest.fixture
def survey(ada) -> Survey:
    return cells_survey(ada)


def submit(survey: Survey, count: int, seed: int) -> None:
    """``count`` responses: answers depending on the region, some skipping it."""
    rng = np.random.default_rng(seed)
    private = list(survey.questions.filter(is_private=True).order_by("position"))
    region, employed = survey.questions.filter(is_private=False).order_by("position")
    regions = rng.choice(3, size=count, p=[0.5, 0.3, 0.2])
    columns = {}
    for question in private:
        mechanism = ldp.build(question.spec)
        if question.kind == "multi_select":
            truth = (rng.random((count, mechanism.k)) < 0.3).astype(np.int64)
        else:
            truth = np.minimum(regions + rng.integers(0, 2, count), mechanism.k - 1)
        columns[question.pk] = mechanism.randomize(truth, rng).tolist()
    responses = []
    for i in range(count):
        skip = bool(rng.random() < 0.15)
        plain = {employed.pk: int(rng.integers(0, 2))}
        if not skip:
            plain[region.pk] = int(regions[i])
        responses.append(
            ResponseIn(
                idempotency_key=uuid.uuid4(),
                survey_revision=survey.revision,
                reports={
                    q.pk: SentReport(q.spec_revision, columns[q.pk][i]) for q in private
                },
                plain_answers=plain,
                skipped=frozenset({region.pk}) if skip else frozenset(),
            )
        )
    submissions_ingest_bulk(survey=survey, responses=responses)


def _rounded(value):
    if isinstance(value, float):
        return round(value, 6) + 0.0
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _canonical(stored: dict) -> tuple:
    joint = sorted(tuple(json.dumps(r)) for r in stored["joint"] if r[4])
    patterns = sorted(
        json.dumps(_rounded(p), sort_keys=True) for p in stored["patterns"] or []
    )
    return joint, patterns


def recounted(survey: Survey) -> dict:
    mark = selectors.survey_watermark(survey_id=survey.pk)
    _, _, counted = services.count_reports(
        survey.pk, end=mark, batch_size=50_000, with_cells=True
    )
    return cells.snapshot_form(counted)


# Several windows (9) and one (50 000) in the fast lane; one report a window
# in the suite.
@pytest.mark.parametrize(
    "batch_size", [pytest.param(1, marks=pytest.mark.slow), 9, 50_000]
)
def test_joint_and_pattern_tallies_equal_a_recount_after_every_batch(
    survey, batch_size
):
    with untallied():
        for seed in range(2):
            submit(survey, 12, seed)
            services.tallies_refresh(survey_id=survey.pk, batch_size=batch_size)
            assert _canonical(cells.stored(survey_id=survey.pk)) == _canonical(
                recounted(survey)
            )
            submit(survey, 3, 50 + seed)  # left for the next refresh

    stored = cells.stored(survey_id=survey.pk)
    assert sum(p[1] for p in stored["patterns"]) == selectors.responses_between(
        survey_id=survey.pk,
        after=0,
        up_to=selectors.survey_watermark(survey_id=survey.pk),
    )


def test_a_withdrawn_tallied_submission_leaves_the_joint_and_pattern_tallies(
    survey,
):
    with untallied():
        submit(survey, 10, 3)
        services.tallies_refresh(survey_id=survey.pk)
    withdrawn = Submission.objects.filter(survey=survey).first()

    submission_withdraw(submission=withdrawn)

    assert _canonical(cells.stored(survey_id=survey.pk)) == _canonical(
        recounted(survey)
    )


def test_a_recount_rebuilds_the_joint_and_pattern_tallies(survey):
    with untallied():
        submit(survey, 10, 4)
        services.tallies_refresh(survey_id=survey.pk, batch_size=7)
    before = _canonical(cells.stored(survey_id=survey.pk))
    cells.replace(survey_id=survey.pk, cells=cells.Cells())

    services.tallies_recount(survey_id=survey.pk)

    assert _canonical(cells.stored(survey_id=survey.pk)) == before


def test_a_survey_tallied_before_the_cells_gets_them_counted_at_its_next_refresh(
    survey,
):
    with untallied():
        submit(survey, 10, 6)
        services.tallies_refresh(survey_id=survey.pk, batch_size=7)
        expected = _canonical(cells.stored(survey_id=survey.pk))
        # As an upgrade leaves it: tallies, no cells, not counted yet.
        cells.replace(survey_id=survey.pk, cells=cells.Cells())
        TallyWatermark.objects.filter(survey=survey).update(cells_counted=False)
        snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
        assert ResultSnapshot.objects.get(survey=survey).cells == {}

        services.tallies_refresh(survey_id=survey.pk)

    assert _canonical(cells.stored(survey_id=survey.pk)) == expected
    assert TallyWatermark.objects.get(survey=survey).cells_counted


def _close(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or (
            math.isnan(a) and math.isnan(b)
        )
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return a == b


@pytest.fixture(scope="module")
def kept_snapshotted(django_db_setup, django_db_blocker) -> Iterator[int]:
    """A ``cells_survey`` of ada's answered by 240 respondents, tallied and
    snapshotted once for the module (its tests only read it)."""

    def make() -> int:
        made = cells_survey(_user("ada"))
        submit(made, 240, 5)
        services.tallies_refresh(survey_id=made.pk)
        snapshots.snapshot_refresh(survey_id=made.pk, force=True)
        return made.pk

    yield from module_rows(django_db_blocker, make)


@pytest.fixture
def snapshotted(kept_snapshotted, ada) -> Survey:
    return _fresh(kept_snapshotted)


@pytest.mark.parametrize("by", ["Region", "Employed"])
def test_a_breakdown_from_the_snapshots_joint_tallies_equals_one_from_reports(
    snapshotted, by
):
    snapshot = ResultSnapshot.objects.get(survey=snapshotted)
    group_by = snapshotted.questions.get(text=by)
    held = snapshot_cells(survey_id=snapshotted.pk, watermark=snapshot.watermark)

    for question in snapshotted.questions.filter(is_private=True):
        tallied = crosstabs.breakdown(
            question, group_by, upto=snapshot.watermark, cells=held
        )
        read = crosstabs.breakdown(question, group_by, upto=snapshot.watermark)
        assert _close(
            [vars(s) for s in tallied.strata], [vars(s) for s in read.strata]
        ), question.text


@pytest.mark.parametrize(
    "margins",
    [{"Region": [1 / 3] * 3}, {"Region": [0.4, 0.3, 0.3], "Employed": [0.5, 0.5]}],
    ids=["post-stratified", "raked"],
)
def test_weights_from_the_snapshots_pattern_tallies_equal_weights_from_reports(
    snapshotted, margins
):
    snapshot = ResultSnapshot.objects.get(survey=snapshotted)
    params = {
        "margins": {
            str(snapshotted.questions.get(text=t).pk): s for t, s in margins.items()
        }
    }

    tallied = weights_grouped.weighted_result(
        snapshotted, params, upto=snapshot.watermark, progress=lambda share: None
    )
    read = weights.weighted_result(
        snapshotted, params, upto=snapshot.watermark, progress=lambda share: None
    )

    assert _close(tallied, read)
    assert all(q["rows"] or q["note"] for q in tallied["questions"])


@pytest.mark.parametrize("kind", ["breakdown", "weighted"])
def test_breakdown_and_weights_jobs_read_no_report(snapshotted, kind):
    region = snapshotted.questions.get(text="Region")
    question = snapshotted.questions.filter(is_private=True).first()
    if kind == "breakdown":
        job, _ = jobs.job_request(
            survey=snapshotted,
            kind=AnalysisJob.Kind.BREAKDOWN,
            params={"q": question.pk, "by": region.pk},
        )
    else:
        job, _ = weights.weighted_request(
            survey=snapshotted, margins={region.pk: [1 / 3] * 3}
        )

    with CaptureQueriesContext(connection) as captured:
        jobs.job_run(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == AnalysisJob.Status.DONE, job.error
    table = Report._meta.db_table
    assert not [q for q in captured.captured_queries if table in q["sql"]]
