"""Researchers' bins of a number question: stored, refused, recomputed."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from surveys.analysis.exports import estimates as exports
from surveys.analysis.models import QuestionBins, ResultSnapshot
from surveys.analysis.reading import latest_results
from surveys.analysis.results import selectors
from surveys.analysis.results.objects import DOCUMENT_FORMAT
from surveys.authoring.models import Collaborator

pytestmark = pytest.mark.django_db


def _question(survey, kind: str):
    return survey.questions.get(kind=kind, is_private=True)


def _url(survey, question) -> str:
    return reverse("analysis:question_bins", args=[survey.pk, question.pk])


def test_the_bins_page_offers_the_default_cut_points_of_a_number_question(
    ada_client, answered
):
    numeric = _question(answered, "numeric")  # 0 to 10 in steps of 1
    page = ada_client.get(_url(answered, numeric))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'for="id_cuts"' in html and 'value="2, 4, 6, 8"' in html


def test_good_cut_points_are_stored_and_the_snapshot_follows_them(ada_client, answered):
    numeric = _question(answered, "numeric")
    before = ResultSnapshot.objects.get(survey=answered)
    response = ada_client.post(_url(answered, numeric), {"cuts": "0, 3, 6, 10"})
    assert response.status_code == 302
    assert response["Location"].endswith(f"#q{numeric.pk}")
    assert QuestionBins.objects.get(question=numeric).cuts == [0.0, 3.0, 6.0, 10.0]
    # The definition changed: the snapshot is stale, and recomputed on the next
    # read (here, with eager tasks; in production the save also queues it).
    assert selectors.latest_results(survey=answered).stale
    html = ada_client.get(reverse("analysis:dashboard", args=[answered.pk]))
    after = ResultSnapshot.objects.get(survey=answered)
    assert after.version == before.version + 1
    assert after.definition == selectors.current_definition(survey_id=answered.pk)
    result = next(
        q for q in after.document["questions"] if q["question_id"] == numeric.pk
    )
    assert result["distribution"]["labels"] == ["0–2", "3–5", "6–10"]
    assert result["distribution"]["cuts"] == [0.0, 3.0, 6.0, 10.0]
    assert '<th scope="row">3–5</th>' in html.content.decode()


@pytest.mark.parametrize(
    ("cuts", "message"),
    [
        ("5, 3", "strictly increasing"),
        ("0, 20", "within the answer range"),
        ("-1, 5", "within the answer range"),
        ("a, b", "must be numbers"),
        ("", "This field is required"),
        (", ".join(str(v / 2) for v in range(1, 20)), "holds no possible answer"),
    ],
)
def test_bad_cut_points_are_refused_with_the_reason_and_nothing_is_stored(
    ada_client, answered, cuts, message
):
    numeric = _question(answered, "numeric")
    response = ada_client.post(_url(answered, numeric), {"cuts": cuts})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not QuestionBins.objects.filter(question=numeric).exists()


def test_more_than_twenty_bins_are_refused(ada_client, answered):
    numeric = _question(answered, "numeric")
    quarters = ", ".join(f"{v / 4:g}" for v in range(1, 40))  # 40 bins
    response = ada_client.post(_url(answered, numeric), {"cuts": quarters})
    assert response.status_code == 400
    assert "At most 20 bins" in response.content.decode()
    assert not QuestionBins.objects.exists()


def test_a_question_that_is_not_a_number_has_no_bins_form(ada_client, answered):
    scale = _question(answered, "ordinal")
    assert (
        "Only protected number questions"
        in ada_client.get(_url(answered, scale)).content.decode()
    )
    refused = ada_client.post(_url(answered, scale), {"cuts": "1, 2"})
    assert refused.status_code == 400
    assert not QuestionBins.objects.exists()


def test_a_viewer_cannot_change_the_bins(client, answered, bob):
    Collaborator.objects.create(survey=answered, user=bob, role="viewer")
    client.force_login(bob)
    numeric = _question(answered, "numeric")
    assert client.post(_url(answered, numeric), {"cuts": "5"}).status_code == 404
    assert not QuestionBins.objects.exists()


def test_snapshot_stores_median_and_bins_for_scales_and_numbers_only(answered):
    snapshot = ResultSnapshot.objects.get(survey=answered)
    assert snapshot.document["format"] == DOCUMENT_FORMAT == 8
    for result in snapshot.document["questions"]:
        distribution = result["distribution"]
        if result["kind"] in ("ordinal", "numeric"):
            assert sum(distribution["shares"]) == pytest.approx(1.0)
            low = distribution["median_interval"]["low"]
            assert low <= distribution["median"]
            assert distribution["method"] == (
                "constrained maximum likelihood, Wald and Woodruff intervals"
            )
            assert len(distribution["intervals"]) == len(distribution["labels"])
        else:
            assert distribution is None


def test_an_older_snapshot_format_is_recomputed_not_misread(answered):
    ResultSnapshot.objects.filter(survey=answered).update(
        document={"format": 3, "questions": []}
    )
    assert selectors.latest_results(survey=answered).stale
    results = latest_results(answered)  # eager tasks: recomputed here
    assert results is not None
    assert any(q.distribution is not None for q in results.questions)
    stored = ResultSnapshot.objects.get(survey=answered).document
    assert stored["format"] == DOCUMENT_FORMAT


def test_exports_label_the_per_level_rows_and_carry_the_bins(ada_client, answered):
    numeric = _question(answered, "numeric")
    body = ada_client.get(
        reverse("analysis:export_estimates_csv", args=[answered.pk])
    ).content.decode("utf-8-sig")
    rows = csv.DictReader(io.StringIO(body))
    rows = [r for r in rows if r["question_id"] == str(numeric.pk)]
    kinds = [r["row_type"] for r in rows]
    assert kinds.count(exports.RAW_LEVEL) == 11 and kinds.count(exports.BIN) == 5
    assert exports.RAW_LEVEL == (
        "raw per-level inversion (unbiased; can be negative; not a distribution)"
    )
    assert all(r["median"] != "" for r in rows)
    document = json.loads(
        ada_client.get(
            reverse("analysis:export_estimates_json", args=[answered.pk])
        ).content
    )
    question = next(q for q in document["questions"] if q["question_id"] == numeric.pk)
    assert question["estimate_kind"] == exports.RAW_LEVEL
    assert len(question["distribution"]["shares"]) == 5


def test_saving_bins_queues_the_snapshot_computation_after_commit(
    ada_client, answered, django_capture_on_commit_callbacks
):
    numeric = _question(answered, "numeric")
    before = ResultSnapshot.objects.get(survey=answered).version
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        ada_client.post(_url(answered, numeric), {"cuts": "5"})
    assert len(callbacks) == 1
    assert ResultSnapshot.objects.get(survey=answered).version == before + 1
