"""How fresh the results are, in words: when they were computed, how many
reports and responses they hold, and how many newer ones are waiting.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext, ngettext

from surveys.analysis.pages.numbers import grouped
from surveys.analysis.results import release
from surveys.analysis.results.objects import SurveyResults
from surveys.analysis.results.pending import PENDING_COUNT_CAP


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


def _held_back(held: int, closed: bool) -> str:
    """Why ``held`` newer responses (fewer than k) are not in the results,
    and when they will be (``results.release``)."""
    k = release.min_batch()
    words = {"count": grouped(held), "k": grouped(k)}
    if closed:
        return (
            ngettext(
                "%(count)s response held back because releasing fewer than %(k)s "
                "could single out a respondent; the survey is closed, so it stays "
                "stored and is released only if the survey reopens and a batch "
                "of %(k)s is reached",
                "%(count)s responses held back because releasing fewer than %(k)s "
                "could single out a respondent; the survey is closed, so they stay "
                "stored and are released only if the survey reopens and a batch "
                "of %(k)s is reached",
                held,
            )
            % words
        )
    words["more"] = grouped(release.still_needed(held))
    return (
        ngettext(
            "%(count)s response held back until %(more)s more arrive: releasing "
            "fewer than %(k)s could single out a respondent",
            "%(count)s responses held back until %(more)s more arrive: releasing "
            "fewer than %(k)s could single out a respondent",
            held,
        )
        % words
    )


def freshness(
    results: SurveyResults | None, now: datetime | None = None, closed: bool = False
) -> str:
    """For example "computed 12 s ago from 4,812 responses; 3 responses held
    back until 7 more arrive: ..." (results read from a snapshot), or what is
    happening instead.  ``closed``: the survey takes no more responses."""
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
    if 0 < pending < release.min_batch():
        words["held"] = _held_back(pending, closed)
        return gettext("computed %(ago)s ago from %(responses)s; %(held)s") % words
    if pending:
        words["newer"] = _newer_responses(pending)
        return (
            gettext("computed %(ago)s ago from %(responses)s; %(newer)s being added")
            % words
        )
    return gettext("computed %(ago)s ago from %(responses)s") % words


def batch_size() -> int:
    """How many new submissions a release needs at least (``results.release``)."""
    return release.min_batch()
