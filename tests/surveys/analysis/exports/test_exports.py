"""Exports: estimates, raw reports with specs (streamed), design card.

Round trip: parse the raw export back, re-estimate with ldp from the reports
and specs alone, and compare with the estimates export.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

import ldp
from surveys.analysis.exports import estimates as exports
from surveys.analysis.exports.csv_cells import csv_lines, neutralise
from surveys.collection.assets import randomizer_script

pytestmark = pytest.mark.django_db


ANSWERED_RESPONDENTS = 250  # the module's kept survey (conftest.py)


def _get(client, name, survey):
    response = client.get(reverse(f"analysis:{name}", args=[survey.pk]))
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    if isinstance(response, StreamingHttpResponse):
        return response, b"".join(response.streaming_content).decode("utf-8-sig")
    return response, response.content.decode("utf-8-sig")


def _estimates_by_question(document) -> dict[int, list[float]]:
    return {q["question_id"]: q["estimate"] for q in document["questions"]}


def _reestimate(groups, specs) -> dict[int, list[float]]:
    found = {}
    for (question_id, revision), reports in groups.items():
        mechanism = ldp.build(specs[(question_id, revision)])
        estimate = mechanism.estimate(mechanism.aggregate(reports))
        found[question_id] = [float(v) for v in estimate.estimate]
    return found


def test_raw_reports_json_round_trip_reproduces_the_estimates(ada_client, answered):
    response, body = _get(ada_client, "export_reports_json", answered)
    assert isinstance(response, StreamingHttpResponse)
    raw = json.loads(body)
    specs = {
        (q["question_id"], int(rev)): spec
        for q in raw["questions"]
        if q["is_private"]
        for rev, spec in q["spec_revisions"].items()
    }
    groups = defaultdict(list)
    for report in raw["reports"]:
        groups[(report["question_id"], report["spec_revision"])].append(
            report["report"]
        )
    _, estimates = _get(ada_client, "export_estimates_json", answered)
    expected = _estimates_by_question(json.loads(estimates))
    again = _reestimate(groups, specs)
    assert again.keys() == expected.keys()
    for question_id, values in expected.items():
        np.testing.assert_allclose(again[question_id], values, rtol=1e-9, atol=1e-12)
    assert len(raw["plain_answers"]) == 250


def test_raw_reports_csv_round_trip_reproduces_the_estimates_csv(ada_client, answered):
    response, body = _get(ada_client, "export_reports_csv", answered)
    assert isinstance(response, StreamingHttpResponse)
    specs, groups = {}, defaultdict(list)
    for row in csv.DictReader(io.StringIO(body)):
        key = (int(row["question_id"]), row["spec_revision"])
        if row["record"] == "spec":
            specs[(key[0], int(key[1]))] = json.loads(row["value"])
        elif row["record"] == "report":
            groups[(key[0], int(key[1]))].append(json.loads(row["value"]))
    _, estimates = _get(ada_client, "export_estimates_csv", answered)
    expected = defaultdict(list)
    for row in csv.DictReader(io.StringIO(estimates)):
        if row["row_type"] not in (exports.BIN, exports.NOT_PROTECTED):
            expected[int(row["question_id"])].append(float(row["estimate"]))
    again = _reestimate(groups, specs)
    assert again.keys() == expected.keys()
    for question_id, values in expected.items():
        np.testing.assert_allclose(again[question_id], values, rtol=1e-9, atol=1e-12)


def test_estimates_csv_has_intervals_epsilon_n_and_method(ada_client, answered):
    _, body = _get(ada_client, "export_estimates_csv", answered)
    rows = list(csv.DictReader(io.StringIO(body)))
    assert rows and all(row["n"] == "250" for row in rows)
    assert all(int(row["answered"]) == 250 for row in rows)
    rows = [row for row in rows if row["row_type"] != exports.NOT_PROTECTED]
    for row in rows:
        # exact intervals are clipped to [0, 1]; raw estimates and Wald are not
        low, high, estimate = (float(row[k]) for k in ("ci_low", "ci_high", "estimate"))
        clipped = min(max(estimate, 0.0), 1.0)
        assert low <= estimate <= high or low <= clipped <= high
        assert float(row["epsilon"]) > 0
        assert row["interval_method"] and row["mechanism_label"]


def test_csv_exports_neutralise_formula_cells(ada_client, answered):
    _, body = _get(ada_client, "export_estimates_csv", answered)
    rows = list(csv.DictReader(io.StringIO(body)))
    texts = {row["question"] for row in rows}
    assert '\'=HYPERLINK("http://evil.example") Which income bracket?' in texts
    assert "'-Very high" in {row["answer"] for row in rows}
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), value
    _, raw = _get(ada_client, "export_reports_csv", answered)
    for row in csv.DictReader(io.StringIO(raw)):
        assert not row["question"].startswith("=")


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ("=1+2", "'=1+2"),
        ("+SUM(A1)", "'+SUM(A1)"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("plain", "plain"),
        (-0.25, -0.25),
    ],
)
def test_neutralise_prefixes_a_quote_to_formula_text_only(cell, written):
    assert neutralise(cell) == written


def test_csv_lines_quote_and_neutralise_through_the_csv_module():
    text = "".join(csv_lines(["a"], [['=cmd|" /C calc"!A0']]))
    assert list(csv.reader(io.StringIO(text))) == [["a"], ['\'=cmd|" /C calc"!A0']]


def test_design_card_lists_questions_specs_epsilon_budget_and_randomizer_hash(
    ada_client, answered
):
    _, body = _get(ada_client, "export_design", answered)
    card = json.loads(body)
    assert card["survey"]["epsilon_budget"] == answered.epsilon_budget
    assert card["randomizer_sha384"] == randomizer_script().integrity
    private = [q for q in card["questions"] if q["is_private"]]
    assert len(private) == 7
    for q in private:
        mechanism = ldp.build(q["spec"])
        assert q["epsilon"] == mechanism.epsilon
        assert q["spec_revisions"][str(q["spec_revision"])] == q["spec"]
    assert card["survey"]["total_epsilon"] == pytest.approx(
        sum(q["epsilon"] for q in private)
    )


def test_estimates_csv_starts_with_a_byte_order_mark_for_spreadsheets(
    ada_client, answered
):
    response = ada_client.get(
        reverse("analysis:export_estimates_csv", args=[answered.pk])
    )
    assert response.content.startswith(b"\xef\xbb\xbfsurvey_id,")


@pytest.mark.parametrize(
    ("closing", "status", "because"),
    [
        (None, "open", None),
        ("by_hand", "closed", "by_hand"),
        ("date", "closed", "date"),
    ],
)
def test_design_card_status_is_what_respondents_meet(
    ada_client, answered, closing, status, because
):
    from datetime import timedelta

    from django.utils import timezone

    if closing == "by_hand":
        answered.status = answered.Status.CLOSED
    elif closing == "date":
        answered.closes_at = timezone.now() - timedelta(hours=1)
    answered.save()
    _, body = _get(ada_client, "export_design", answered)
    card = json.loads(body)
    assert card["survey"]["status"] == status
    assert card["survey"]["closed_because"] == because
