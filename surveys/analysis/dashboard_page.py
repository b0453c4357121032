"""The results dashboard, rendered once per what it shows and reused.

Rendering the dashboard's templates (the header, the breadcrumb and results
navigation, the download list with a form per export file and some thirty
URLs) cost more than everything else a dashboard read does.  Between two reads
of the same survey almost all of it is the same; what differs is:

* the CSRF token (``{% csrf_token %}``, in every form), which is per browser;
* the reader's name in the header ("Signed in as …");
* the results: the freshness line and the results fragment, which depend on
  the snapshot and what arrived since (the fragment is itself cached per
  snapshot, ``views._results_body``), rendered per request.

So the page is rendered with a random marker in place of each of the three,
kept in this process cut at the markers (``surveys.page_slots``), and each
read fills in its own token, name and results, escaped as the template would
escape them.

The key is a SHA-256 of everything else the page is rendered from: the active
language, the survey's id and title, its availability (state and badge, which
move with time), each export file's newest job (every field, and how long ago
it was written in the page's words), the export retention and the poll
interval.  Any change to one of them gives a new key, so nothing can be served
stale and there is nothing to invalidate; old entries fall out of the bounded
cache.  The key holds nothing about the reader: only the slots do.

Served from the cache only to a signed-in reader with no pending messages;
anyone else gets the page rendered for them alone.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.timesince import timesince
from django.utils.translation import get_language

from surveys import page_slots
from surveys.analysis.models import AnalysisJob
from surveys.version import deniable_version

TEMPLATE = "analysis/dashboard.html"
# Pages kept per process (a dashboard is about 10 kB without its results).
PAGE_CACHE_SIZE = 256
CSRF_SLOT = page_slots.marker("csrf")
USER_SLOT = page_slots.marker("user")
RESULTS_SLOT = page_slots.marker("results")
SLOTS = (CSRF_SLOT, USER_SLOT, RESULTS_SLOT)
JOB_FIELDS = tuple(field.attname for field in AnalysisJob._meta.concrete_fields)

_kept = page_slots.KeptPages(PAGE_CACHE_SIZE)


class _ReaderSlot:
    """The signed-in reader as the cached page is rendered: a name slot."""

    is_authenticated = True
    is_anonymous = False

    def get_username(self) -> str:
        return USER_SLOT


def page_key(context: dict[str, Any]) -> str:
    """A digest of everything the page is rendered from but its slots."""
    survey, availability = context["survey"], context["availability"]
    facts = (
        get_language(),
        deniable_version(),
        survey.pk,
        survey.title,
        availability.state,
        availability.badge,
        tuple(
            (
                row["kind"].name,
                tuple(getattr(row["job"], name) for name in JOB_FIELDS)
                if row["job"] is not None
                else None,
                timesince(row["job"].finished_at)
                if row["job"] is not None and row["job"].finished_at
                else "",
            )
            for row in context["exports"]
        ),
        context["export_retention_hours"],
        context["poll_seconds"],
    )
    return hashlib.sha256(repr(facts).encode()).hexdigest()


def _shareable(request: HttpRequest) -> bool:
    """Whether this reader may get the cached page (signed in, no messages)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    return not len(messages.get_messages(request))


def dashboard_page(
    request: HttpRequest, context: dict[str, Any], results_html: str
) -> HttpResponse:
    """The dashboard for this request (200): ``context`` without the results,
    which ``results_html`` (the rendered ``analysis/_results.html``) gives."""
    if not _shareable(request):
        return render(request, TEMPLATE, {**context, "results_html": results_html})
    key = page_key(context)
    cached = _kept.get(key)
    if cached is None:
        html = render_to_string(
            TEMPLATE,
            {
                **context,
                "results_html": RESULTS_SLOT,
                "user": _ReaderSlot(),
                "csrf_token": CSRF_SLOT,
                "messages": (),
                "deniable_version": deniable_version(),
            },
        )
        cached = page_slots.split(html, SLOTS, repeated=(CSRF_SLOT,))
        if cached is None:  # a marker went missing: never serve this page shared
            raise RuntimeError("the dashboard lost one of its markers")
        _kept.put(key, cached)
    pieces, order = cached
    html = page_slots.fill(
        pieces,
        order,
        {
            CSRF_SLOT: escape(get_token(request)),
            USER_SLOT: escape(request.user.get_username()),
            RESULTS_SLOT: results_html,
        },
    )
    return HttpResponse(html)


def cache_info() -> dict[str, int]:
    """Pages reused (``hits``), rendered (``renders``) and kept (``size``)."""
    return _kept.info()


def cache_clear() -> None:
    """Forget every kept page (for tests and benchmarks)."""
    _kept.clear()
