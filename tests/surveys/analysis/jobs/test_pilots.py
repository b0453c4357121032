"""Synthetic pilots: simulated respondents shown as the results page would."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest
from django.urls import reverse

from surveys.analysis.jobs import pilots
from surveys.analysis.jobs import running as jobs
from surveys.analysis.models import AnalysisJob
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import results_from_document
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.collection.models import Report, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def yes_no(ada):
    survey = authoring.survey_create(owner=ada, title="Pilot", epsilon_budget=5)
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=2.0, mechanism="warner"),
    )
    authoring.question_create(
        survey=survey,
        text="Your year",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("1", "2")
        ),
        not_private_acknowledged=True,
    )
    return survey


def _question(survey):
    return survey.questions.get(is_private=True)


def test_pilot_results_equal_the_reference_simulation_with_the_same_seed(yes_no):
    question = _question(yes_no)
    params = {"n": 800, "shares": {str(question.pk): [0.7, 0.3]}, "seed": 5}
    results = pilots.pilot_results(yes_no, params)
    rng = np.random.default_rng(5)
    mechanism = question.compiled_mechanism()
    values = rng.choice(2, size=800, p=[0.7, 0.3])
    stat = mechanism.aggregate(mechanism.randomize(values, rng))
    expected = mechanism.estimate(stat)
    assert results.questions[0].n == 800
    assert results.questions[0].estimate == pytest.approx(
        [float(v) for v in np.asarray(expected.estimate).reshape(-1)]
    )


def test_a_large_pilot_recovers_the_expected_share(yes_no):
    question = _question(yes_no)
    params = {"n": 100_000, "shares": {str(question.pk): [0.75, 0.25]}, "seed": 1}
    yes = pilots.pilot_results(yes_no, params).questions[0].estimate[1]
    assert yes == pytest.approx(0.25, abs=0.02)


def test_a_pilot_job_runs_stores_results_and_creates_no_responses(yes_no):
    question = _question(yes_no)
    job, created = pilots.pilot_request(
        survey=yes_no, n=300, shares={question.pk: [0.5, 0.5]}
    )
    jobs.job_run(job_id=job.pk)
    job.refresh_from_db()
    assert created and job.status == AnalysisJob.Status.DONE
    assert results_from_document(job.result, pending_reports=0).questions[0].n == 300
    assert not Submission.objects.filter(survey=yes_no).exists()
    assert not Report.objects.filter(question__survey=yes_no).exists()


def test_the_same_pilot_is_found_again_until_the_definition_changes(yes_no, ada):
    question = _question(yes_no)
    first, _ = pilots.pilot_request(survey=yes_no, n=300, shares={question.pk: None})
    again, created = pilots.pilot_request(
        survey=yes_no, n=300, shares={question.pk: None}
    )
    assert again.pk == first.pk and not created
    authoring.question_update(
        question=question,
        text="Have you ever copied homework?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=2.0, mechanism="warner"),
    )
    assert pilots.latest_pilot(yes_no) is None
    fresh, created = pilots.pilot_request(
        survey=yes_no, n=300, shares={question.pk: None}
    )
    assert created and fresh.pk != first.pk


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("50, 40", "add up to 90%"),
        ("abc", "not a list of percentages"),
        ("150, -50", "from 0 to 100"),
    ],
)
def test_bad_shares_are_refused_with_a_message(text, message):
    with pytest.raises(pilots.PilotRefused, match=message):
        pilots.parse_shares(text)


def test_shares_of_the_wrong_length_are_refused(yes_no):
    question = _question(yes_no)
    with pytest.raises(pilots.PilotRefused, match="give 2 shares"):
        pilots.pilot_request(survey=yes_no, n=10, shares={question.pk: [0.2, 0.3, 0.5]})
    assert not AnalysisJob.objects.exists()


def test_the_pilot_page_shows_simulated_cards(ada_client, yes_no):
    question = _question(yes_no)
    url = reverse("analysis:pilot", args=[yes_no.pk])
    html = ada_client.get(url, {"n": "400", f"share-{question.pk}": "80, 20"}).content
    html = html.decode()
    assert "SIMULATED" in html
    assert f'id="q{question.pk}"' in html
    assert '<dd data-field="n">400</dd>' in html
    assert "data-batching" not in html  # no real responses, so no batches


@pytest.mark.parametrize("n", ["0", "-5", "abc", "100001", "1e3"])
def test_the_pilot_page_refuses_a_bad_n_and_runs_nothing(ada_client, yes_no, n):
    url = reverse("analysis:pilot", args=[yes_no.pk])
    html = ada_client.get(url, {"n": n}).content.decode()
    assert 'id="pilot-error"' in html
    assert not AnalysisJob.objects.exists()


def test_pilots_never_reach_the_real_results(ada_client, yes_no, ada):
    survey = authoring.survey_publish(survey=yes_no, user=ada)
    url = reverse("analysis:pilot", args=[survey.pk])
    ada_client.get(url, {"n": "400"})
    results = selectors.survey_results(survey=survey)
    assert results.questions[0].n == 0


# --- multiple selections and unprotected questions ------------------------------
@pytest.fixture
def mixed(ada):
    survey = authoring.survey_create(owner=ada, title="Mixed pilot", epsilon_budget=10)
    authoring.question_create(
        survey=survey,
        text="Which have you done?",
        privacy=PrivacyConfig(
            kind="multi_select", options=("A", "B", "C"), epsilon=4.0
        ),
    )
    authoring.question_create(
        survey=survey,
        text="Where did you hear of us?",
        privacy=PrivacyConfig(
            kind="single_choice", is_private=False, options=("Web", "Friend", "Ad")
        ),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="Your age",
        privacy=PrivacyConfig(
            kind="numeric",
            is_private=False,
            low=Decimal(18),
            high=Decimal(30),
            step=Decimal(1),
        ),
        not_private_acknowledged=True,
    )
    return survey


def _by_text(survey, text: str):
    return survey.questions.get(text=text)


def test_multi_select_chances_need_not_add_up_to_100():
    assert pilots.parse_shares("20, 70, 50", independent=True) == [0.2, 0.7, 0.5]
    with pytest.raises(pilots.PilotRefused, match="from 0 to 100"):
        pilots.parse_shares("20, 170", independent=True)


def test_a_large_multi_select_pilot_recovers_each_options_chance(mixed):
    question = _by_text(mixed, "Which have you done?")
    params = {"n": 60_000, "shares": {str(question.pk): [0.1, 0.6, 0.3]}, "seed": 2}
    result = pilots.pilot_results(mixed, params).questions[0]
    assert result.n == 60_000
    for estimate, interval, true in zip(
        result.estimate, result.intervals, [0.1, 0.6, 0.3], strict=True
    ):
        assert interval.low - 0.01 <= true <= interval.high + 0.01
        assert estimate == pytest.approx(true, abs=0.03)


def test_simulated_respondents_tick_no_more_than_the_cap():
    rng = np.random.default_rng(0)
    matrix = pilots._selections(4, [0.9, 0.9, 0.9, 0.9], 2, 1000, rng)
    assert matrix.sum(axis=1).max() == 2
    assert matrix.any(axis=0).all()  # every option is still ticked by someone


def test_a_pilot_summarises_unprotected_answers_with_the_given_shares(mixed):
    question = _by_text(mixed, "Where did you hear of us?")
    params = {"n": 20_000, "shares": {str(question.pk): [0.5, 0.3, 0.2]}, "seed": 3}
    plain = {p.question_id: p for p in pilots.pilot_results(mixed, params).plain}
    summary = plain[question.pk]
    assert summary.n == 20_000
    assert summary.shares() == pytest.approx([0.5, 0.3, 0.2], abs=0.015)


def test_an_unprotected_number_is_drawn_from_its_range(mixed):
    question = _by_text(mixed, "Your age")
    params = {"n": 5_000, "shares": {}, "seed": 4}
    plain = {p.question_id: p for p in pilots.pilot_results(mixed, params).plain}
    summary = plain[question.pk]
    assert summary.n == 5_000
    assert (summary.lowest, summary.highest) == (18.0, 30.0)
    assert summary.mean == pytest.approx(24, abs=0.3)


def test_shares_for_an_unprotected_number_are_refused(mixed):
    question = _by_text(mixed, "Your age")
    with pytest.raises(pilots.PilotRefused, match="answers to choose"):
        pilots.pilot_request(survey=mixed, n=10, shares={question.pk: [1.0]})
    assert not AnalysisJob.objects.exists()


def test_the_pilot_page_simulates_multi_select_and_unprotected_questions(
    ada_client, mixed
):
    chosen = _by_text(mixed, "Which have you done?")
    heard = _by_text(mixed, "Where did you hear of us?")
    url = reverse("analysis:pilot", args=[mixed.pk])
    form = ada_client.get(url).content.decode()
    assert f'name="share-{chosen.pk}"' in form
    assert "need not add up to 100" in form
    assert f'name="share-{heard.pk}"' in form
    html = ada_client.get(
        url,
        {
            "n": "400",
            f"share-{chosen.pk}": "10, 60, 30",
            f"share-{heard.pk}": "50,30,20",
        },
    ).content.decode()
    assert 'id="pilot-error"' not in html
    assert f'id="q{chosen.pk}"' in html
    assert 'id="plain-answers"' in html and "Where did you hear of us?" in html


# --- display logic ---
@pytest.fixture
def branching(ada):
    survey = authoring.survey_create(owner=ada, title="Driving", epsilon_budget=5)
    drives = authoring.question_create(
        survey=survey,
        text="Do you drive?",
        privacy=PrivacyConfig(kind="yes_no", is_private=False),
        not_private_acknowledged=True,
    )
    authoring.question_create(
        survey=survey,
        text="Have you driven after drinking?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner"),
        show_if={"question": drives.pk, "any_of": [1]},
    )
    authoring.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner"),
    )
    return survey


def test_a_question_shown_for_some_answers_is_answered_only_by_those_respondents(
    branching,
):
    drives = _by_text(branching, "Do you drive?")
    params = {"n": 4_000, "shares": {str(drives.pk): [0.3, 0.7]}, "seed": 6}
    results = pilots.pilot_results(branching, params)
    (plain,) = results.plain
    drivers = plain.counts[plain.labels.index("Yes")]
    assert plain.n == 4_000
    assert drivers == pytest.approx(1_200, abs=120)
    by_text = {q.text: q.n for q in results.questions}
    assert by_text == {
        "Have you driven after drinking?": drivers,
        "Have you ever cheated on an exam?": 4_000,
    }


def test_a_question_nobody_is_shown_gets_no_simulated_reports(branching):
    drives = _by_text(branching, "Do you drive?")
    params = {"n": 500, "shares": {str(drives.pk): [0, 100]}, "seed": 7}
    results = pilots.pilot_results(branching, params)
    assert {q.text: q.n for q in results.questions}.get(
        "Have you driven after drinking?", 0
    ) == 0


def test_changing_the_display_logic_makes_a_new_pilot(branching):
    follow = _by_text(branching, "Have you driven after drinking?")
    drives = _by_text(branching, "Do you drive?")
    first, _ = pilots.pilot_request(survey=branching, n=300, shares={})
    authoring.question_update(
        question=follow,
        text=follow.text,
        privacy=PrivacyConfig(kind="yes_no", epsilon=1.0, mechanism="warner"),
        show_if={"question": drives.pk, "any_of": [0]},
    )
    again, created = pilots.pilot_request(survey=branching, n=300, shares={})
    assert created and again.pk != first.pk
