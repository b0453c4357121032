"""The audit log page and its CSV (surveys/accounts/audit.py says who reads what)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from surveys.accounts import audit

PAGE_SIZE = 100


def _survey_filter(request) -> tuple[int | None, str]:
    """The ``survey`` parameter as an id, or an error message for a bad one."""
    raw = request.GET.get("survey", "").strip()
    if not raw:
        return None, ""
    if not raw.isdecimal() or len(raw) > 18:
        return None, gettext("“%(value)s” is not a survey number.") % {
            "value": raw[:20]
        }
    return int(raw), ""


@login_required
@require_GET
def audit_log(request):
    """What was done to the reader's surveys, and what they did, newest first."""
    survey_id, error = _survey_filter(request)
    if error:
        return render(
            request, "registration/audit_log.html", {"error": error}, status=400
        )
    entries = audit.entries_for(request.user, survey_id=survey_id)
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "registration/audit_log.html",
        {"page": page, "survey_id": survey_id},
    )


@login_required
@require_GET
def audit_log_csv(request):
    """The same entries as a CSV file."""
    survey_id, error = _survey_filter(request)
    if error:
        return render(
            request, "registration/audit_log.html", {"error": error}, status=400
        )
    entries = audit.entries_for(request.user, survey_id=survey_id).iterator()
    response = StreamingHttpResponse(
        audit.csv_lines(entries), content_type="text/csv; charset=utf-8"
    )
    name = f"audit-survey-{survey_id}.csv" if survey_id else "audit.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response
