"""The audit log of researcher actions: one service writes it, two read it.

``record`` is called by the services where an action happens (publishing,
editing, exporting, inviting, changing a role, deleting, signing in through
single sign-on); nothing else writes ``AuditEntry`` rows.  ``entries_for``
gives what a reader may see: the entries of surveys they owned when the entry
was written and their own actions, everything for administrators (staff).
``csv_lines`` writes them as CSV, with spreadsheet formulas neutralised.

What is recorded never names a respondent: callers pass a file kind, a count,
a co-researcher's username and role, never a token, an address of a
respondent, an answer or a submission's time.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Q, QuerySet

from surveys.accounts.models import AuditEntry

Action = AuditEntry.Action
DETAIL_MAX = AuditEntry._meta.get_field("detail").max_length
CSV_HEADER = ["time_utc", "researcher", "action", "survey_id", "survey", "detail"]


def record(actor, action: str, survey=None, detail: str = "") -> AuditEntry:
    """Write one entry: ``actor`` did ``action`` to ``survey`` (or to no survey).

    ``survey`` is any object with ``pk``, ``title`` and ``owner_id`` (the
    survey model lives in a layer above).  ``detail`` is cut to its column.
    Runs inside the caller's transaction, so a refused action leaves no entry.
    """
    if action not in Action.values:
        raise ValueError(f"{action!r} is not an audited action")
    return AuditEntry.objects.create(
        actor=actor if getattr(actor, "pk", None) else None,
        actor_name=getattr(actor, "username", "") or "",
        action=action,
        survey_id=getattr(survey, "pk", None),
        survey_title=(getattr(survey, "title", "") or "")[:200],
        owner_id=getattr(survey, "owner_id", None),
        detail=" ".join(str(detail).split())[:DETAIL_MAX],
    )


def entries_for(user, *, survey_id: int | None = None) -> QuerySet[AuditEntry]:
    """The entries ``user`` may read, newest first, of one survey if given."""
    entries = AuditEntry.objects.all()
    if not user.is_staff:
        entries = entries.filter(Q(owner=user) | Q(actor=user))
    if survey_id is not None:
        entries = entries.filter(survey_id=survey_id)
    return entries.order_by("-at", "-pk")


def _cell(value: Any) -> str:
    """A CSV cell a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_lines(entries: Iterable[AuditEntry]) -> Iterator[str]:
    """The entries as CSV lines, header first (times in UTC, ISO 8601)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in [CSV_HEADER, *(_row(entry) for entry in entries)]:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def _row(entry: AuditEntry) -> list[str]:
    return [
        entry.at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        _cell(entry.actor_name),
        entry.action,
        "" if entry.survey_id is None else str(entry.survey_id),
        _cell(entry.survey_title),
        _cell(entry.detail),
    ]
