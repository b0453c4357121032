"""The answer page, rendered once per survey content and reused.

Rendering the answer page (every question's widgets, sections, grids and the
device's configuration) costs far more than everything else its GET does, and
for one survey it is the same for every respondent but for three things:

* the CSRF token (``{% csrf_token %}``), which is per browser;
* the signed "loaded while open" stamp (``lifecycle.open_stamp``), which
  carries the time;
* the survey's link fields (URL parameters such as ``PROLIFIC_PID``): their
  hidden inputs and the note that shows their values.

So the page is rendered once, as an anonymous visitor sees it, with a random
marker in place of each of the three, and kept in this process, split at the
markers.  Each request joins the pieces with its own token, stamp and link
fields, escaped as the template would escape them.  Nothing else in the page
depends on the request, and nothing one respondent sent is ever in it.

The key is a SHA-256 of everything the page is rendered from: the active
language (``LocaleMiddleware`` picked it for this request), the survey's
fields and every field of every question (texts, options, specs, positions,
display logic...).  Any change, whether or not it starts a new survey
revision (a text-only edit or a move does not), gives a new key, so the page
is rendered again; old entries fall out of the bounded cache.

Served from the cache only to anonymous visitors with no pending messages (a
signed-in researcher's page has their name and a sign-out form in its header);
everyone else gets a page rendered for them alone.

A kept page is served without building the survey's and its questions' model
instances (:func:`kept_response`): the GET's one query gives the rows as the
database returns them (``selectors.answerable_rows``: every column of the
survey and of each question), and each time a page is served the ordinary
way its key is remembered under those rows and the page's language.  Equal
rows are the same survey to the last field, so the next respondent whose
rows and language are the same gets the kept page at once; the survey's
facts the filling needs (its id for the stamp, its link fields, whether it is
open now) come from one instance built from the same rows, kept with them and
never changed, localized or shown.  Anything else (a new row, a page not
kept, a closed survey, a bad link value, a signed-in visitor) takes the
ordinary path.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from surveys import page_slots
from surveys.authoring import lifecycle, translations
from surveys.authoring.models import Question, Survey
from surveys.collection import selectors
from surveys.collection.forms import ResponseForm, link_inputs
from surveys.version import deniable_version

TEMPLATE = "collection/respond.html"
LINK_FIELDS_TEMPLATE = "collection/respond_link_fields.html"
# Pages kept per process (a page is tens of kilobytes; a survey's page is one
# entry until its content changes).
PAGE_CACHE_SIZE = 64
# Random per process: no survey text can contain them by accident.
_MARK = secrets.token_hex(16)
CSRF_SLOT = f"csrf-{_MARK}"
STAMP_SLOT = f"stamp-{_MARK}"
LINKS_SLOT = f"links-{_MARK}"
SLOTS = (CSRF_SLOT, STAMP_SLOT, LINKS_SLOT)

# The survey fields the page shows or its device configuration carries.
SURVEY_FIELDS = (
    "pk",
    "public_token",
    "revision",
    "title",
    "allow_reanswer",
    "researcher_contact",
    "link_fields",
    "status",
    "updated_at",
    # Its languages and their texts (the page is in one of them; the language
    # picker lists those offered).
    "source_language",
    "languages",
    "translations",
    "record_language",
)
QUESTION_FIELDS = tuple(field.attname for field in Question._meta.concrete_fields)

_kept = page_slots.KeptPages(PAGE_CACHE_SIZE)


@dataclass(frozen=True)
class _Known:
    """What serving a kept page needs of the survey whose rows these are."""

    survey: Survey  # built from the rows; read only, never localized or shown
    offered: tuple[str, ...]  # the languages it is offered in
    keys: dict[str, str]  # language -> the kept page's key


_known: OrderedDict[selectors.Rows, _Known] = OrderedDict()
_known_lock = threading.Lock()


def page_key(survey: Survey, questions: list[Question]) -> str:
    """A digest of everything the answer page is rendered from, the active
    language included (a page in one language is never served in another)."""
    facts = (
        deniable_version(),
        get_language(),
        tuple(getattr(survey, name) for name in SURVEY_FIELDS),
        tuple(
            tuple(getattr(question, name) for name in QUESTION_FIELDS)
            for question in questions
        ),
    )
    return hashlib.sha256(repr(facts).encode()).hexdigest()


_NO_LINK_FIELDS: list[SafeString] = []  # what a survey without them renders


def link_fields_html(survey: Survey, link_values: Mapping[str, str]) -> SafeString:
    """The link fields' hidden inputs and the note showing their values (for a
    survey without link fields, the same every time: rendered once)."""
    if not survey.link_fields and not link_values:
        if not _NO_LINK_FIELDS:
            _NO_LINK_FIELDS.append(_render_link_fields(survey, link_values))
        return _NO_LINK_FIELDS[0]
    return _render_link_fields(survey, link_values)


def _render_link_fields(survey: Survey, link_values: Mapping[str, str]) -> SafeString:
    return mark_safe(  # noqa: S308 - rendered by the template engine, escaped there
        render_to_string(
            LINK_FIELDS_TEMPLATE,
            {
                "link_inputs": link_inputs(survey, link_values),
                "link_values": dict(link_values),
            },
        )
    )


def _shareable(request: HttpRequest) -> bool:
    """Whether this visitor sees the anonymous page (no name, no messages)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return False
    return not len(messages.get_messages(request))


def kept_response(
    request: HttpRequest,
    rows: selectors.Rows,
    link_values: Callable[[HttpRequest, Survey], Mapping[str, str] | str],
) -> HttpResponse | None:
    """The kept answer page for the survey these ``rows`` are
    (``selectors.answerable_rows``), filled for this request, if it can be
    served without loading the survey; else None (take the ordinary path).

    ``link_values`` reads the request's link fields (a string: why one
    cannot be stored, which the ordinary path answers)."""
    if not rows or not _shareable(request):
        return None
    with _known_lock:
        known = _known.get(rows)
        if known is not None:
            _known.move_to_end(rows)
    if known is None:
        return None
    survey = known.survey
    if survey.invitation_only or not lifecycle.accepts_submission(
        survey, within_grace=False
    ):
        return None
    language = translations.chosen_language(request, known.offered)
    key = known.keys.get(language)
    cached = _kept.get(key) if key is not None else None
    if cached is None:
        return None
    values = link_values(request, survey)
    if isinstance(values, str):
        return None
    # What ``translations.localize_for_request`` does for the page's language.
    translation.activate(language)
    request.LANGUAGE_CODE = language
    return _filled(request, survey, cached, values)


def _remember(rows: selectors.Rows, language: str, key: str) -> None:
    """Serve the page kept under ``key`` to the next request whose rows and
    language these are (:func:`kept_response`)."""
    with _known_lock:
        known = _known.get(rows)
    if known is None:
        survey = selectors.survey_from_rows(rows)  # its own instances
        questions = list(survey.questions.all())
        offered = tuple(translations.offered_languages(survey, questions))
        known = _Known(survey=survey, offered=offered, keys={})
    with _known_lock:
        known = _known.setdefault(rows, known)
        known.keys[language] = key
        _known.move_to_end(rows)
        while len(_known) > PAGE_CACHE_SIZE:
            _known.popitem(last=False)


def _filled(
    request: HttpRequest,
    survey: Survey,
    cached: page_slots.Pieces,
    link_values: Mapping[str, str],
) -> HttpResponse:
    pieces, order = cached
    html = page_slots.fill(
        pieces,
        order,
        {
            CSRF_SLOT: escape(get_token(request)),
            STAMP_SLOT: escape(lifecycle.open_stamp(survey)),
            LINKS_SLOT: link_fields_html(survey, link_values),
        },
    )
    return HttpResponse(html)


def respond_page(
    request: HttpRequest,
    survey: Survey,
    link_values: Mapping[str, str],
    make_form: Callable[[], ResponseForm],
    context: Callable[[ResponseForm], dict[str, Any]],
    rows: selectors.Rows = (),
) -> HttpResponse:
    """The answer page for this request (200).

    ``make_form`` builds the unbound form and ``context`` the template's
    context for it (survey, form, device configuration); both are called only
    when the page is rendered, not when it is reused.  ``make_form`` may raise
    ValueError (a question the browser cannot answer); nothing is cached then.
    ``rows``: the survey's ``selectors.answerable_rows``, under which the kept
    page is remembered for :func:`kept_response` (none: not remembered).
    """
    questions = list(survey.questions.all())
    if not _shareable(request):
        form = make_form()
        return render(
            request,
            TEMPLATE,
            {
                **context(form),
                "open_stamp": lifecycle.open_stamp(survey),
                "link_fields": link_fields_html(survey, link_values),
            },
        )
    key = page_key(survey, questions)
    cached = _kept.get(key)
    if cached is None:
        form = make_form()
        html = render_to_string(
            TEMPLATE,
            {
                **context(form),
                # As an anonymous visitor with no messages sees the page.
                "deniable_version": deniable_version(),
                "csrf_token": CSRF_SLOT,
                "open_stamp": STAMP_SLOT,
                "link_fields": mark_safe(LINKS_SLOT),  # noqa: S308 - a marker
            },
        )
        cached = page_slots.split(html, SLOTS, repeated=(CSRF_SLOT,))
        if cached is None:  # a marker went missing: never serve this page shared
            raise RuntimeError("the answer page lost one of its markers")
        _kept.put(key, cached)
    if rows:
        _remember(rows, get_language(), key)
    return _filled(request, survey, cached, link_values)


def cache_info() -> dict[str, int]:
    """Pages reused (``hits``), rendered (``renders``) and kept (``size``)."""
    return _kept.info()


def cache_clear() -> None:
    """Forget every kept page (for tests and benchmarks)."""
    _kept.clear()
    with _known_lock:
        _known.clear()
