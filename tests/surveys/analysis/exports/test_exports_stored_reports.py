"""Raw-report exports are unchanged by compact storage.

Reports are stored as integers or packed bits (``report_codec``), but every
export shows each report exactly as the device sent it: the CSV's value cell,
the JSON export's and the API's report documents are the JSON text of the
report that was submitted, for a survey with a question of every mechanism
(bit mechanisms also at widths that do not end on a byte).  The expected text
is built here from what was sent, never read back from the database.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from surveys.analysis.exports import raw_reports
from surveys.analysis.exports.csv_cells import csv_lines
from surveys.analysis.exports.raw_reports import REPORT_COLUMNS
from surveys.collection.models import Report, Submission
from surveys.collection.services import submissions_ingest_bulk
from tests.surveys.analysis.conftest import make_survey, release, responses

pytestmark = pytest.mark.django_db

OPTIONS = tuple(f"Option {i}" for i in range(70))
# Bit reports over 9, 12 and 70 options: the last byte only partly used.
BIT_FAMILIES = [
    ("oue", "single_choice", {"options": OPTIONS[:9]}),
    ("multi_rr", "multi_select", {"options": OPTIONS[:12]}),
    ("sue", "single_choice", {"options": OPTIONS}),
]


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.fixture(params=["every family", "bit widths"])
def sent(request, researcher):
    """A survey with stored responses and, per (submission public id, question
    id), the report that was sent."""
    families = {"every family": None, "bit widths": BIT_FAMILIES}[request.param]
    survey = (
        make_survey(researcher)
        if families is None
        else make_survey(researcher, families, plain=False)
    )
    batch = responses(survey, 40, seed=17)
    submissions_ingest_bulk(survey=survey, responses=batch)
    release(survey)
    by_key = {response.idempotency_key: response for response in batch}
    reports = {}
    for public_id, key in Submission.objects.filter(survey=survey).values_list(
        "public_id", "idempotency_key"
    ):
        for question_id, report in by_key[key].reports.items():
            reports[(public_id, question_id)] = (report.spec_revision, report.payload)
    return survey, reports


def _expected_documents(survey, sent) -> list[dict]:
    """The report documents the exports wrote from JSON payloads, in export order."""
    rows = (
        Report.objects.filter(question__survey=survey)
        .order_by("public_id")
        .values_list(
            "public_id",
            "submission__public_id",
            "submission__received_at",
            "question_id",
        )
    )
    documents = []
    for public_id, submission_id, received_at, question_id in rows:
        revision, payload = sent[(submission_id, question_id)]
        documents.append(
            {
                "report_id": public_id,
                "submission_id": submission_id,
                "received_at": received_at.isoformat(),
                "question_id": question_id,
                "spec_revision": revision,
                "report": payload,
            }
        )
    assert len(documents) == len(sent)
    return documents


def test_every_stored_report_is_exported_in_the_csv_as_the_json_that_was_sent(sent):
    survey, reports = sent
    body = "".join(raw_reports.reports_csv(survey))
    expected = [
        [
            "report",
            doc["question_id"],
            doc["spec_revision"],
            doc["submission_id"],
            doc["received_at"],
            "",
            _compact(doc["report"]),
        ]
        for doc in _expected_documents(survey, reports)
    ]
    # The report rows, byte for byte, as one block in the export's order.
    lines = list(csv_lines(REPORT_COLUMNS, expected))[1:]
    assert "".join(lines) in body
    found = [r for r in csv.reader(io.StringIO(body)) if r[0] == "report"]
    assert len(found) == len(expected)


def test_the_csv_with_test_responses_marks_the_same_report_rows(sent):
    survey, reports = sent
    body = "".join(raw_reports.reports_csv(survey, include_test=True))
    lines = list(
        csv_lines(
            [*REPORT_COLUMNS, "is_test"],
            [
                [
                    "report",
                    doc["question_id"],
                    doc["spec_revision"],
                    doc["submission_id"],
                    doc["received_at"],
                    "",
                    _compact(doc["report"]),
                    "false",
                ]
                for doc in _expected_documents(survey, reports)
            ],
        )
    )[1:]
    assert "".join(lines) in body


def test_every_stored_report_is_in_the_json_export_as_the_json_that_was_sent(sent):
    survey, reports = sent
    body = "".join(raw_reports.reports_json(survey))
    expected = _expected_documents(survey, reports)
    text = ",\n".join(_compact(doc) for doc in expected)
    assert f'"reports": [{text}], "plain_answers": [' in body
    assert json.loads(body)["reports"] == expected


def test_api_pages_carry_each_report_as_the_json_that_was_sent(sent):
    survey, reports = sent
    expected = _expected_documents(survey, reports)
    pages, after = [], ""
    while page := raw_reports.reports_page(survey, after=after, limit=7):
        pages.extend(page)
        after = page[-1]["report_id"]
    assert pages == expected
    assert [_compact(doc) for doc in pages] == [_compact(doc) for doc in expected]
