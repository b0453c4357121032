"""Result snapshots: computed once per change, stored, read in constant time."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from celery.signals import task_prerun
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from surveys.analysis import reading, tasks
from surveys.analysis.models import (
    QuestionBins,
    ResultSnapshot,
    ResultsSettings,
    TallyWatermark,
)
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import results_from_document, results_to_document
from surveys.analysis.tallies import services, snapshots
from surveys.analysis.wording import english
from surveys.authoring import services as authoring
from surveys.authoring.models import Question, Survey
from surveys.views import LAG_CACHE_KEY
from tests.surveys.analysis.conftest import submit_bulk
from tests.surveys.analysis.dashboard_support import make_survey, simulate

pytestmark = pytest.mark.django_db
# The module's kept answered survey (``answered``, tests/surveys/analysis/
# conftest.py): built, answered and snapshotted once, each test reading or
# changing it inside its own rolled-back transaction.
ANSWERED_RESPONDENTS = 30


@pytest.fixture
def family_survey(shared_family_survey):
    """The module's survey of every family, made once; each test adds its
    reports inside its own transaction (rolled back)."""
    return shared_family_survey


def _from_scratch(survey) -> dict:
    """What a snapshot must hold: the results computed from the tallies now."""
    return results_to_document(selectors.survey_results(survey=survey))


def test_refresh_task_stores_a_snapshot_equal_to_a_from_scratch_computation(
    family_survey,
):
    submit_bulk(family_survey, 40)
    tasks.refresh_survey_tallies(family_survey.pk)  # queues the snapshot (eagerly)
    snapshot = ResultSnapshot.objects.get(survey=family_survey)
    assert snapshot.version == 1
    assert snapshot.responses == 40
    assert snapshot.watermark == selectors.survey_watermark(survey_id=family_survey.pk)
    assert snapshot.document == _from_scratch(family_survey)


def test_document_round_trips_to_the_same_results(family_survey):
    submit_bulk(family_survey, 30)
    services.tallies_refresh(survey_id=family_survey.pk)
    results = selectors.survey_results(survey=family_survey)
    again = results_from_document(
        results_to_document(results), pending_reports=results.pending_reports
    )
    assert again == results


def test_non_finite_numbers_survive_the_json_document():
    document = results_to_document(
        results_from_document(
            {
                "survey_id": 1,
                "title": "t",
                "total_epsilon": float("inf"),
                "questions": [],
                "not_protected": [[3, "plain"]],
                "refreshed_at": None,
            },
            pending_reports=0,
        )
    )
    assert document["total_epsilon"] == {"float": "inf"}
    assert results_from_document(document, pending_reports=0).total_epsilon == float(
        "inf"
    )


def test_a_rerun_keeps_the_same_snapshot(family_survey):
    submit_bulk(family_survey, 20)
    services.tallies_refresh(survey_id=family_survey.pk)
    first = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    stored = ResultSnapshot.objects.get(survey=family_survey)
    second = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert first.advanced and not second.advanced
    assert second.version == first.version == 1
    again = ResultSnapshot.objects.get(survey=family_survey)
    assert (again.pk, again.computed_at, again.document) == (
        stored.pk,
        stored.computed_at,
        stored.document,
    )


def test_a_newer_snapshot_replaces_the_old_one_and_only_the_latest_is_kept(
    family_survey,
):
    submit_bulk(family_survey, 20)
    services.tallies_refresh(survey_id=family_survey.pk)
    snapshots.snapshot_refresh(survey_id=family_survey.pk)
    submit_bulk(family_survey, 15, seed=2)
    services.tallies_refresh(survey_id=family_survey.pk)
    outcome = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert outcome.advanced and outcome.version == 2
    (snapshot,) = ResultSnapshot.objects.filter(survey=family_survey)
    assert snapshot.responses == 35
    assert snapshot.document == _from_scratch(family_survey)


def test_batching_holds_the_snapshot_until_enough_submissions_are_new(
    family_survey, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    submit_bulk(family_survey, 12)
    services.tallies_refresh(survey_id=family_survey.pk)
    assert snapshots.snapshot_refresh(survey_id=family_survey.pk).advanced
    submit_bulk(family_survey, 9, seed=2)
    services.tallies_refresh(survey_id=family_survey.pk)
    held = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert not held.advanced and held.waiting == 9
    assert ResultSnapshot.objects.get(survey=family_survey).responses == 12
    submit_bulk(family_survey, 1, seed=3)
    services.tallies_refresh(survey_id=family_survey.pk)
    advanced = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert advanced.advanced and advanced.version == 2
    assert ResultSnapshot.objects.get(survey=family_survey).responses == 22


def test_editing_a_question_inside_a_batch_never_moves_results_past_the_batch(
    family_survey, settings
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    submit_bulk(family_survey, 12)
    services.tallies_refresh(survey_id=family_survey.pk)
    assert snapshots.snapshot_refresh(survey_id=family_survey.pk).advanced
    before = ResultSnapshot.objects.get(survey=family_survey)
    submit_bulk(family_survey, 1, seed=2)  # one new respondent, then an edit
    services.tallies_refresh(survey_id=family_survey.pk)
    question = family_survey.questions.filter(is_private=True).first()
    Question.objects.filter(pk=question.pk).update(text="Reworded question")
    recomputed = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    after = ResultSnapshot.objects.get(survey=family_survey)
    assert recomputed.advanced and after.version == before.version + 1
    assert after.watermark == before.watermark and after.responses == 12
    assert "Reworded question" in [q["text"] for q in after.document["questions"]]

    # The same estimates as before the edit: the new respondent is not in them.
    def estimates(snapshot):
        return [
            {key: value for key, value in q.items() if key != "text"}
            for q in snapshot.document["questions"]
        ]

    assert estimates(after) == estimates(before)


def test_no_wait_lets_a_batch_smaller_than_k_through(family_survey, settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    submit_bulk(family_survey, 10)
    services.tallies_refresh(survey_id=family_survey.pk)
    snapshots.snapshot_refresh(survey_id=family_survey.pk)
    submit_bulk(family_survey, 2, seed=2)
    services.tallies_refresh(survey_id=family_survey.pk)
    ResultSnapshot.objects.filter(survey=family_survey).update(
        computed_at=timezone.now() - timedelta(days=30)
    )
    held = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert not held.advanced and held.waiting == 2
    assert ResultSnapshot.objects.get(survey=family_survey).responses == 10


@pytest.mark.parametrize(
    ("new", "ready"), [(0, False), (1, False), (9, False), (10, True), (11, True)]
)
def test_batch_rule_releases_only_batches_of_at_least_k(settings, new, ready):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    assert snapshots.snapshot_batch_ready(new_responses=new) is ready


def test_an_operators_recount_never_releases_fewer_than_k(family_survey, settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    submit_bulk(family_survey, 10)
    tasks.refresh_survey_tallies(family_survey.pk)
    submit_bulk(family_survey, 3, seed=2)
    services.tallies_refresh(survey_id=family_survey.pk)
    call_command("recount_tallies", survey=family_survey.pk, stdout=StringIO())
    snapshot = ResultSnapshot.objects.get(survey=family_survey)
    assert snapshot.version == 2 and snapshot.responses == 10


def test_first_snapshot_below_the_batch_size_holds_no_reports(family_survey, settings):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    submit_bulk(family_survey, 3)
    services.tallies_refresh(survey_id=family_survey.pk)
    snapshots.snapshot_refresh(survey_id=family_survey.pk)
    snapshot = ResultSnapshot.objects.get(survey=family_survey)
    assert (snapshot.watermark, snapshot.responses) == (0, 0)
    results = selectors.latest_results(survey=family_survey).results
    assert {q.n for q in results.questions} == {0}
    assert results.pending_responses == 3


def test_an_edited_question_makes_the_snapshot_stale_and_readers_recompute(
    ada_client, answered
):
    survey = answered
    url = reverse("analysis:dashboard", args=[survey.pk])
    ada_client.get(url)
    question = survey.questions.filter(is_private=True).first()
    Question.objects.filter(pk=question.pk).update(text="Reworded question")
    assert selectors.latest_results(survey=survey).stale
    html = ada_client.get(url).content.decode()
    assert "Reworded question" in html
    assert ResultSnapshot.objects.get(survey=survey).version == 2


def _reword(survey) -> None:
    question = survey.questions.order_by("position").first()
    question.text = "A new wording?"
    question.save(update_fields=["text"])


def _reorder(survey) -> None:
    second = survey.questions.order_by("position")[1]
    authoring.question_move(question=second, direction="up")


def _bin(survey) -> None:
    numeric = survey.questions.filter(kind="numeric").first()
    QuestionBins.objects.create(question=numeric, cuts=[0, 5, 10])


def _choose_consistent_method(survey) -> None:
    ResultsSettings.objects.create(survey=survey, consistent_method="mle")


@pytest.mark.parametrize(
    "change",
    [_reword, _reorder, _bin, _choose_consistent_method],
    ids=["reword", "reorder", "bins", "consistent-method"],
)
def test_a_change_to_what_results_are_computed_under_makes_them_stale_at_once(
    answered, change
):
    survey = answered
    reading.latest_results(survey)  # the first reader computes it (no broker)
    assert not selectors.latest_results(survey=survey).stale
    change(survey)
    assert selectors.latest_results(survey=survey).stale


def test_dashboard_query_count_does_not_grow_with_the_number_of_reports(
    ada_client, ada
):
    counts = []
    for respondents in (20, 400):
        survey = make_survey(ada)
        simulate(survey, respondents)
        url = reverse("analysis:dashboard", args=[survey.pk])
        ada_client.get(url)  # the first reader computes the snapshot in-process
        with CaptureQueriesContext(connection) as queries:
            assert ada_client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_live_endpoint_exports_and_api_read_the_same_snapshot(ada_client, answered):
    survey = answered
    live = ada_client.get(reverse("analysis:dashboard_live", args=[survey.pk])).json()
    estimates = ada_client.get(
        reverse("analysis:export_estimates_json", args=[survey.pk])
    ).json()
    snapshot = ResultSnapshot.objects.get(survey=survey)
    assert live["responses"] == estimates["responses"] == ANSWERED_RESPONDENTS
    assert estimates["snapshot_version"] == snapshot.version
    exported = [
        # added by exports
        {k: v for k, v in q.items() if k not in ("estimate_kind", "item_counts")}
        for q in estimates["questions"]
    ]
    # Exports word the stored warnings in English and leave out the design
    # (which ``mechanism_label`` names).
    stored = [
        {
            **{k: v for k, v in q.items() if k != "design"},
            "warnings": [english(w) for w in q["warnings"]],
        }
        for q in _from_scratch(survey)["questions"]
    ]
    assert exported == stored


def test_reconciliation_recomputes_snapshots_behind_their_tallies(family_survey):
    submit_bulk(family_survey, 25)
    services.tallies_refresh(survey_id=family_survey.pk)  # tallies only
    assert selectors.snapshots_behind() == [family_survey.pk]
    tasks.reconcile_tallies()
    assert selectors.snapshots_behind() == []
    assert ResultSnapshot.objects.get(survey=family_survey).responses == 25


def test_reconciliation_warns_when_results_lag_far_behind(
    family_survey, settings, caplog
):
    settings.SNAPSHOT_LAG_WARNING_REPORTS = 5
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 100
    submit_bulk(family_survey, 3)
    tasks.reconcile_tallies()
    assert "results lag behind stored reports" in caplog.text


def test_healthz_reports_how_far_tallies_and_results_lag(client, family_survey):
    submit_bulk(family_survey, 4)
    cache.delete(LAG_CACHE_KEY)
    lag = client.get(reverse("healthz")).json()["lag"]
    reports = 4 * (family_survey.questions.filter(is_private=True).count())
    assert lag == {"reports_untallied": reports, "reports_not_in_results": reports}
    tasks.reconcile_tallies()
    cache.delete(LAG_CACHE_KEY)
    lag = client.get(reverse("healthz")).json()["lag"]
    assert lag == {"reports_untallied": 0, "reports_not_in_results": 0}


def test_recount_tallies_recomputes_the_snapshot(family_survey):
    submit_bulk(family_survey, 12)
    tasks.refresh_survey_tallies(family_survey.pk)
    ResultSnapshot.objects.filter(survey=family_survey).update(document={})
    call_command("recount_tallies", survey=family_survey.pk, stdout=None)
    snapshot = ResultSnapshot.objects.get(survey=family_survey)
    assert snapshot.version == 2
    assert snapshot.document == _from_scratch(family_survey)


def test_a_late_snapshot_never_replaces_a_newer_one(family_survey):
    submit_bulk(family_survey, 10)
    services.tallies_refresh(survey_id=family_survey.pk)
    snapshots.snapshot_refresh(survey_id=family_survey.pk)
    newer = ResultSnapshot.objects.get(survey=family_survey)
    # The tallies' watermark as a slow, earlier computation would have read it.
    TallyWatermark.objects.filter(survey=family_survey).update(last_report_id=1)
    outcome = snapshots.snapshot_refresh(survey_id=family_survey.pk)
    assert not outcome.advanced
    assert ResultSnapshot.objects.get(survey=family_survey).pk == newer.pk


def test_seeded_demo_shows_tallied_results_at_once(
    client, settings, django_capture_on_commit_callbacks
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10  # the production default
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo", "--respondents", "30", stdout=StringIO())
    survey = Survey.objects.latest("pk")  # the demo's: the module keeps others
    snapshot = ResultSnapshot.objects.get(survey=survey)
    assert snapshot.responses == 30
    assert selectors.pending_report_count(survey_id=survey.pk) == 0
    client.force_login(survey.owner)
    html = client.get(reverse("analysis:dashboard", args=[survey.pk])).content.decode()
    assert "from 30 responses" in html
    assert "Not tallied" not in html and "pending" not in html


def test_empty_cards_show_a_dash_and_a_sentence_instead_of_a_margin(ada_client, ada):
    survey = make_survey(ada)
    html = ada_client.get(reverse("analysis:dashboard", args=[survey.pk]))
    html = html.content.decode()
    assert "±196" not in html
    assert (
        html.count('<dd data-field="margin">—</dd>')
        == survey.questions.filter(is_private=True).count()
    )
    assert "No margin of error yet: it needs at least one response." in html


def test_a_snapshot_stored_in_another_format_is_recomputed_not_misread(
    ada_client, answered
):
    survey = answered
    url = reverse("analysis:dashboard", args=[survey.pk])
    ada_client.get(url)
    ResultSnapshot.objects.filter(survey=survey).update(
        document={"format": 0, "questions": "an older release's layout"}
    )
    assert ada_client.get(url).status_code == 200
    snapshot = ResultSnapshot.objects.get(survey=survey)
    assert snapshot.version == 2
    assert snapshot.document == _from_scratch(survey)


@pytest.mark.parametrize("page", ["analysis:dashboard", "analysis:dashboard_live"])
def test_a_page_view_while_a_batch_is_held_back_queues_no_snapshot(
    ada_client, ada, settings, page
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 10
    survey = make_survey(ada)
    simulate(survey, 12)
    services.tallies_refresh(survey_id=survey.pk)
    snapshots.snapshot_refresh(survey_id=survey.pk)
    assert ResultSnapshot.objects.get(survey=survey).responses == 12
    simulate(survey, 3, seed=2)  # tallied, held back by the batch rule
    services.tallies_refresh(survey_id=survey.pk)
    assert not snapshots.snapshot_refresh(survey_id=survey.pk).advanced
    queued: list[str] = []

    def record(sender=None, **kwargs) -> None:
        queued.append(sender.name)

    task_prerun.connect(record, weak=False)  # eager Celery runs every task sent
    try:
        for _ in range(3):
            assert ada_client.get(reverse(page, args=[survey.pk])).status_code == 200
        assert queued == []
        assert selectors.survey_watermark(survey_id=survey.pk) > (
            ResultSnapshot.objects.get(survey=survey).watermark
        )
        # Once k are new, the next view queues the release's computation.
        submit_bulk(survey, 7, seed=3)
        services.tallies_refresh(survey_id=survey.pk)
        ada_client.get(reverse(page, args=[survey.pk]))
        assert queued == [tasks.compute_survey_snapshot.name]
    finally:
        task_prerun.disconnect(record)
    assert ResultSnapshot.objects.get(survey=survey).responses == 22
