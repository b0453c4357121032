"""What a submission carries (``ResponseIn``, its ``SentReport``s), what ingesting it
answers (``IngestOutcome``), and the error that refuses it with a reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from surveys.collection.models import (
    Submission,
)


class SubmissionRejected(Exception):
    """A submission that was not stored; ``message`` is safe to show."""

    def __init__(self, message: str, *, status: int = 400, code: str = "invalid"):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


@dataclass(frozen=True)
class SentReport:
    """A report as the respondent's device sent it, with its spec revision."""

    spec_revision: int
    payload: Any


@dataclass(frozen=True)
class ResponseIn:
    """One respondent's whole response, before validation."""

    idempotency_key: uuid.UUID
    survey_revision: int
    reports: Mapping[int, SentReport]
    plain_answers: Mapping[int, Any] = field(default_factory=dict)
    # The words beside "Other, please specify", by question (sent as typed).
    other_texts: Mapping[int, str] = field(default_factory=dict)
    # Shown optional questions left unanswered: no report, no answer.
    skipped: frozenset[int] = frozenset()
    # How each of ``skipped`` was left (``surveys.collection.missing``:
    # declined or blank); a skipped question not named here is stored as
    # unknown (declined or left blank).
    skip_reasons: Mapping[int, str] = field(default_factory=dict)
    # Values of the survey's link fields (URL parameters), by name; sent as is.
    link_values: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class IngestOutcome:
    """A stored submission and the receipt code for its link (shown once)."""

    submission: Submission
    created: bool
    receipt_code: str
