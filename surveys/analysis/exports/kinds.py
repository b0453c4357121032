"""Exports a worker writes to a file: a registry of export kinds.

Each kind names a file format the researcher can ask for as a background job
(``jobs.export_request``): its name (the job's ``params["export"]``), a label
for the page, the file's extension and content type, and a writer
``(survey, fileobj, progress) -> None`` that writes the whole file to a binary
file object and calls ``progress(share)`` (0 to 1) as it goes.  A new format
is one ``register(ExportKind(...))`` call in the module that defines its
writer; the job, the progress bar, the download and the clean-up are shared.

The raw-report kinds below write exactly what the streamed downloads send
(``raw_reports.reports_csv`` / ``raw_reports.reports_json``), nothing more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import BinaryIO

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from surveys.analysis.exports import datasets, raw_reports
from surveys.authoring.models import Survey
from surveys.collection.models import PlainAnswer, Report

Progress = Callable[[float], None]
Writer = Callable[[Survey, BinaryIO, Progress], None]

# Progress is recorded once per this many lines written (one UPDATE each).
PROGRESS_EVERY_LINES = 10_000


StrOrPromise = str | Promise


@dataclass(frozen=True)
class ExportKind:
    """One file format an export job can write."""

    name: str  # stable identifier: URLs, the job's params
    label: StrOrPromise  # what the page calls it ("CSV"), translated lazily
    description: StrOrPromise  # what the file holds, for the page
    extension: str  # without the dot
    content_type: str
    writer: Writer

    def filename(self, survey: Survey) -> str:
        """The name the researcher's browser saves the file under."""
        return f"survey-{survey.pk}-{self.name.replace('_', '-')}.{self.extension}"


_KINDS: dict[str, ExportKind] = {}


def register(kind: ExportKind) -> ExportKind:
    """Add an export kind (a second registration of the same name is an error)."""
    if kind.name in _KINDS and _KINDS[kind.name] != kind:
        raise ValueError(f"export kind {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def get(name: str) -> ExportKind | None:
    """The registered kind called ``name`` (None: no such kind)."""
    return _KINDS.get(name)


def all_kinds() -> list[ExportKind]:
    """Every registered kind, in registration order."""
    return list(_KINDS.values())


def write_lines(
    lines: Iterable[str], fileobj: BinaryIO, progress: Progress, total: int
) -> None:
    """Write text lines as UTF-8, recording progress against ``total`` lines."""
    for written, line in enumerate(lines, start=1):
        fileobj.write(line.encode("utf-8"))
        if written % PROGRESS_EVERY_LINES == 0:
            progress(min(0.99, written / max(total, 1)))
    progress(1.0)


def _raw_rows(survey: Survey) -> int:
    """How many report and plain-answer lines a raw export has (for progress)."""
    reports = Report.objects.filter(survey=survey).count()
    answers = PlainAnswer.objects.filter(question__survey=survey).count()
    return reports + answers


def write_reports_csv(survey: Survey, fileobj: BinaryIO, progress: Progress) -> None:
    """The raw-report CSV (``raw_reports.reports_csv``), written to a file."""
    write_lines(raw_reports.reports_csv(survey), fileobj, progress, _raw_rows(survey))


def write_reports_json(survey: Survey, fileobj: BinaryIO, progress: Progress) -> None:
    """The raw-report JSON (``raw_reports.reports_json``), written to a file."""
    write_lines(raw_reports.reports_json(survey), fileobj, progress, _raw_rows(survey))


REPORTS_CSV = register(
    ExportKind(
        name="reports_csv",
        label="CSV",
        description=_("Randomized reports with every question's spec"),
        extension="csv",
        content_type="text/csv; charset=utf-8",
        writer=write_reports_csv,
    )
)


def write_reports_csv_with_test(
    survey: Survey, fileobj: BinaryIO, progress: Progress
) -> None:
    """The raw-report CSV with the owner's test responses, marked ``is_test``."""
    total = (
        _raw_rows(survey)
        + Report.all_objects.filter(survey=survey, is_test=True).count()
    )
    write_lines(
        raw_reports.reports_csv(survey, include_test=True), fileobj, progress, total
    )


REPORTS_CSV_WITH_TEST = register(
    ExportKind(
        name="reports_csv_with_test",
        label=_("CSV with test responses"),
        description=_(
            "Randomized reports with every question's spec, and your own test "
            "responses too, each row marked in an is_test column (test "
            "responses are never in any estimate)"
        ),
        extension="csv",
        content_type="text/csv; charset=utf-8",
        writer=write_reports_csv_with_test,
    )
)
REPORTS_JSON = register(
    ExportKind(
        name="reports_json",
        label="JSON",
        description=_("Randomized reports with every question's spec"),
        extension="json",
        content_type="application/json",
        writer=write_reports_json,
    )
)


# The per-respondent files (surveys/analysis/exports/datasets.py) as jobs too: SPSS and
# Stata files are built whole in memory by pyreadstat, so a large survey's
# file is written by a worker rather than inside a web request.
WIDE_SAV = register(
    ExportKind(
        name="wide_sav",
        label="SPSS (.sav)",
        description=_("One row per respondent, with variable and value labels"),
        extension="sav",
        content_type="application/x-spss-sav",
        writer=datasets.write_sav,
    )
)
WIDE_DTA = register(
    ExportKind(
        name="wide_dta",
        label="Stata (.dta)",
        description=_("One row per respondent, with variable and value labels"),
        extension="dta",
        content_type="application/x-stata-dta",
        writer=datasets.write_dta,
    )
)
WIDE_CSV_BOM = register(
    ExportKind(
        name="wide_csv_bom",
        label=_("spreadsheet CSV (UTF-8 with BOM)"),
        description=_("One row per respondent, answers written as their labels"),
        extension="csv",
        content_type="text/csv; charset=utf-8",
        writer=datasets.write_wide_csv_bom,
    )
)
