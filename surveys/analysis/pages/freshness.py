"""How fresh the results are, in words: when they were computed, how many
reports and responses they hold, and how many newer ones are waiting.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from surveys.analysis.pages.numbers import grouped
from surveys.analysis.results.objects import SurveyResults
from surveys.analysis.results.selectors import PENDING_COUNT_CAP


def _ago(seconds: int) -> str:
    if seconds < 120:
        return gettext("%(count)s s") % {"count": seconds}
    if seconds < 7200:
        return gettext("%(count)s min") % {"count": seconds // 60}
    if seconds < 172800:
        return gettext("%(count)s h") % {"count": seconds // 3600}
    days = seconds // 86400
    return ngettext("%(count)s day", "%(count)s days", days) % {"count": days}


def _reports(value: int) -> str:
    if value > PENDING_COUNT_CAP:
        return gettext("more than %(count)s reports") % {
            "count": grouped(PENDING_COUNT_CAP)
        }
    return ngettext("%(count)s report", "%(count)s reports", value) % {
        "count": grouped(value)
    }


def _responses(value: int) -> str:
    if value > PENDING_COUNT_CAP:
        return gettext("more than %(count)s responses") % {
            "count": grouped(PENDING_COUNT_CAP)
        }
    return ngettext("%(count)s response", "%(count)s responses", value) % {
        "count": grouped(value)
    }


def _newer_responses(value: int) -> str:
    if value > PENDING_COUNT_CAP:
        return gettext("more than %(count)s newer responses") % {
            "count": grouped(PENDING_COUNT_CAP)
        }
    return ngettext("%(count)s newer response", "%(count)s newer responses", value) % {
        "count": grouped(value)
    }


def freshness(results: SurveyResults | None, now: datetime | None = None) -> str:
    """For example "computed 12 s ago from 4,812 responses; 3 newer responses
    being added" (results read from a snapshot), or what is happening instead."""
    if results is None:
        return gettext("results not computed yet: a worker is computing them now")
    if results.computed_at is None:  # computed in this request, not stored
        return gettext("computed just now; %(reports)s pending") % {
            "reports": _reports(results.pending_reports)
        }
    now = now or timezone.now()
    seconds = max(int((now - results.computed_at).total_seconds()), 0)
    words = {"ago": _ago(seconds), "responses": _responses(results.responses or 0)}
    pending = results.pending_responses or 0
    if pending:
        words["newer"] = _newer_responses(pending)
        return (
            gettext("computed %(ago)s ago from %(responses)s; %(newer)s being added")
            % words
        )
    return gettext("computed %(ago)s ago from %(responses)s") % words


def batch_size() -> int:
    """How many new submissions advance the results (settings)."""
    return int(settings.SNAPSHOT_MIN_NEW_SUBMISSIONS)
