"""Which reader an upload goes to, by its name and its first bytes."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from surveys.authoring.imports.limesurvey import read_lss
from surveys.authoring.imports.parsed import MAX_BYTES, ParsedSurvey, refuse, too_big
from surveys.authoring.imports.xlsform import read_xlsform
from surveys.authoring.models import SurveyImport

Reader = Callable[..., ParsedSurvey]
READERS: dict[str, tuple[str, Reader]] = {
    ".xlsx": (SurveyImport.Source.XLSFORM, read_xlsform),
    ".lss": (SurveyImport.Source.LIMESURVEY, read_lss),
}
ACCEPT = ",".join(READERS)


def read(file_name: str, raw: bytes) -> tuple[str, ParsedSurvey]:
    """(source, parsed questionnaire) for an uploaded file; ValidationError
    for a file of another format or one its reader cannot read."""
    if len(raw) > MAX_BYTES:
        raise too_big(len(raw))
    lower = file_name.lower()
    for suffix, (source, reader) in READERS.items():
        if lower.endswith(suffix):
            return source, reader(raw, file_name=file_name)
    if lower.endswith((".xls", ".ods", ".csv")):
        raise refuse(
            gettext(
                "“%(name)s” is not an .xlsx workbook: open it in a spreadsheet "
                "program and save it as Excel (.xlsx)."
            ),
            name=file_name[:80],
        )
    raise refuse(
        gettext(
            "“%(name)s” is neither an XLSForm (.xlsx) nor a LimeSurvey survey "
            "structure (.lss)."
        ),
        name=file_name[:80],
    )


__all__ = ["ACCEPT", "READERS", "ValidationError", "read"]
