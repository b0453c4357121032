"""Read stored reports back as the JSON the device sent, for assertions.

Reports are stored in compact columns (``surveys.collection.report_codec``);
these helpers decode them under the spec each was made with.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from surveys.collection import report_codec
from surveys.collection.models import Report
from surveys.collection.selectors import report_specs


def payloads(reports: QuerySet[Report], *keys: str) -> list[Any]:
    """The JSON reports of ``reports`` in their order; with ``keys``, tuples of
    those fields' values followed by the report, e.g.
    ``dict(payloads(reports, "submission_id"))``."""
    rows = list(
        reports.values_list(*keys, "question_id", "spec_revision", "value", "bits")
    )
    specs = report_specs({(row[-4], row[-3]) for row in rows})
    decoded = [
        (*row[:-4], report_codec.decode(specs[(row[-4], row[-3])], *row[-2:]))
        for row in rows
    ]
    return decoded if keys else [row[0] for row in decoded]


def payload(report: Report) -> Any:
    """One stored report's JSON report."""
    (found,) = payloads(Report.all_objects.filter(pk=report.pk))
    return found
