"""The survey's consistent-estimate method: chosen, stored, computed, exported."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pytest
from django.urls import reverse

from surveys.analysis.models import ResultSnapshot, ResultsSettings
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import results_to_document
from surveys.authoring.models import Collaborator
from tests.surveys.analysis.dashboard_support import (
    reference_estimates,
)

pytestmark = pytest.mark.django_db

MLE_LABEL = "Maximum likelihood through the randomization (EM)"


def _url(survey) -> str:
    return reverse("analysis:consistent_method", args=[survey.pk])


def _consistent_questions(survey) -> dict[int, dict]:
    """The snapshot's questions that have a consistent column, by id."""
    document = ResultSnapshot.objects.get(survey=survey).document
    questions = document["questions"]
    return {q["question_id"]: q for q in questions if q["consistent"] is not None}


def _choose_mle(client, survey):
    response = client.post(_url(survey), {"method": "mle"})
    assert response.status_code == 302
    client.get(reverse("analysis:dashboard", args=[survey.pk]))  # recomputes
    return response


def test_without_a_choice_the_consistent_column_is_the_projection(answered):
    references = reference_estimates(answered)
    questions = _consistent_questions(answered)
    assert len(questions) == 6  # every private question but the multi-select one
    for pk, result in questions.items():
        assert result["consistent_method"] == "norm-sub"
        assert result["consistent"] == pytest.approx(
            references[pk].consistent("norm-sub").tolist(), abs=1e-12
        )
    assert not ResultsSettings.objects.exists()


def test_choosing_maximum_likelihood_stores_it_and_recomputes_the_snapshot(
    ada_client, answered
):
    before = ResultSnapshot.objects.get(survey=answered)
    response = ada_client.post(_url(answered), {"method": "mle"})
    assert response.status_code == 302
    assert response["Location"] == reverse("analysis:dashboard", args=[answered.pk])
    assert ResultsSettings.objects.get(survey=answered).consistent_method == "mle"
    # The definition changed: the snapshot is stale, and recomputed on the next
    # read (here, with eager tasks; in production the save also queues it).
    assert selectors.latest_results(survey=answered).stale
    ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))
    after = ResultSnapshot.objects.get(survey=answered)
    assert after.version == before.version + 1
    assert after.definition == selectors.current_definition(survey_id=answered.pk)
    assert after.definition != before.definition


def test_the_stored_choice_changes_the_snapshots_consistent_column(
    ada_client, answered
):
    projected = _consistent_questions(answered)
    _choose_mle(ada_client, answered)
    references = reference_estimates(answered)
    chosen = _consistent_questions(answered)
    assert set(chosen) == set(projected)
    moved = 0
    for pk, result in chosen.items():
        assert result["consistent_method"] == "mle"
        assert result["consistent"] == pytest.approx(
            references[pk].consistent("mle").tolist(), abs=1e-9
        )
        moved += not np.allclose(result["consistent"], projected[pk]["consistent"])
    assert moved >= 1


def test_maximum_likelihood_shares_are_non_negative_and_sum_to_one(
    ada_client, answered
):
    _choose_mle(ada_client, answered)
    for result in _consistent_questions(answered).values():
        shares = np.asarray(result["consistent"])
        assert shares.min() >= 0.0
        assert shares.sum() == pytest.approx(1.0, abs=1e-9)


def test_the_snapshot_equals_a_from_scratch_computation_with_the_method(
    ada_client, answered
):
    _choose_mle(ada_client, answered)
    stored = ResultSnapshot.objects.get(survey=answered).document
    fresh = results_to_document(selectors.survey_results(survey=answered))
    assert stored["questions"] == fresh["questions"]


def test_the_estimate_exports_name_the_consistent_method(ada_client, answered):
    def exported() -> tuple[set[str], set[str]]:
        body = ada_client.get(
            reverse("analysis:export_estimates_csv", args=[answered.pk])
        ).content.decode("utf-8-sig")
        rows = list(csv.DictReader(io.StringIO(body)))
        in_csv = {r["consistent_method"] for r in rows if r["consistent"] != ""}
        document = json.loads(
            ada_client.get(
                reverse("analysis:export_estimates_json", args=[answered.pk])
            ).content
        )
        in_json = {
            q["consistent_method"]
            for q in document["questions"]
            if q["consistent"] is not None
        }
        assert all(r["consistent_method"] == "" for r in rows if r["consistent"] == "")
        return in_csv, in_json

    assert exported() == ({"norm-sub"}, {"norm-sub"})
    _choose_mle(ada_client, answered)
    assert exported() == ({"mle"}, {"mle"})


def test_the_results_page_names_the_method_and_links_to_the_choice(
    ada_client, answered
):
    _choose_mle(ada_client, answered)
    html = ada_client.get(
        reverse("analysis:dashboard", args=[answered.pk])
    ).content.decode()
    assert f"Consistent column: {MLE_LABEL}." in html
    assert _url(answered) in html


def test_the_choice_page_shows_both_methods_with_the_current_one_chosen(
    ada_client, answered
):
    page = ada_client.get(_url(answered))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'value="norm-sub"' in html and 'value="mle"' in html
    assert re.search(r'<input[^>]*value="norm-sub"[^>]*checked', html)
    assert not re.search(r'<input[^>]*value="mle"[^>]*checked', html)


def test_an_unknown_method_is_refused_and_nothing_is_stored(ada_client, answered):
    response = ada_client.post(_url(answered), {"method": "median"})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not ResultsSettings.objects.exists()


@pytest.mark.parametrize(("role", "status"), [("editor", 302), ("viewer", 404)])
def test_editors_may_choose_the_method_and_viewers_may_not(
    client, answered, bob, role, status
):
    Collaborator.objects.create(survey=answered, user=bob, role=role)
    client.force_login(bob)
    assert client.post(_url(answered), {"method": "mle"}).status_code == status
    assert client.get(_url(answered)).status_code == (200 if status == 302 else 404)
    stored = ResultsSettings.objects.filter(survey=answered).exists()
    assert stored == (role == "editor")


@pytest.mark.parametrize(("role", "linked"), [("editor", True), ("viewer", False)])
def test_the_privacy_page_names_the_method_and_offers_the_choice_to_editors(
    client, answered, bob, role, linked
):
    Collaborator.objects.create(survey=answered, user=bob, role=role)
    client.force_login(bob)
    html = client.get(reverse("analysis:privacy", args=[answered.pk])).content.decode()
    assert "Projection onto the simplex (Norm-Sub)" in html
    assert (_url(answered) in html) == linked


def test_choosing_the_method_queues_the_snapshot_computation_after_commit(
    ada_client, answered, django_capture_on_commit_callbacks
):
    before = ResultSnapshot.objects.get(survey=answered).version
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ada_client.post(_url(answered), {"method": "mle"})
    assert len(callbacks) == 1
    assert ResultSnapshot.objects.get(survey=answered).version == before + 1
