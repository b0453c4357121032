"""Site-wide pages that belong to no single app: the home page, a health probe
and a trivial baseline view for benchmarks."""

import contextlib

from django import forms
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import defaults, i18n
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from django.views.generic import RedirectView, TemplateView

from surveys.analysis.results import selectors as analysis_selectors
from surveys.authoring.models import Survey
from surveys.expected_fields import ExpectedFieldsMixin, refusal_page
from surveys.middleware import retry_after_seconds
from surveys.version import deniable_version


class HomeView(TemplateView):
    template_name = "home.html"


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers request where a page names no icon
    (the admin, a JSON answer): the site's icon among the static files."""

    http_method_names = ("get", "head")

    def get_redirect_url(self, *args, **kwargs) -> str:
        return static("favicon.svg")


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for load balancers and compose.

    A healthy answer also names the installed version, so an upgrade can be
    checked from outside, and how far tallies and results lag behind the
    stored reports (``lag``, in reports).
    """
    try:
        Survey.objects.exists()  # one cheap ORM query: the database answers
    except DatabaseError:
        # The same Retry-After as every other page answers while the database
        # is unreachable (surveys.middleware).
        retry_after = retry_after_seconds()
        response = JsonResponse(
            {"database": "unavailable", "retry_after": retry_after}, status=503
        )
        response["Retry-After"] = str(retry_after)
        return response
    return JsonResponse(
        {"database": "ok", "version": deniable_version(), "lag": _lag()}
    )


LAG_CACHE_KEY = "healthz:lag"
LAG_CACHE_SECONDS = 15


def _lag() -> dict[str, int]:
    """How many reports are not tallied yet, and not in the results yet.

    Cached briefly: probes call this often and it costs a query per survey.
    """
    try:
        lag = cache.get(LAG_CACHE_KEY)
    except Exception:  # a cache outage must not fail the probe
        return analysis_selectors.lag()
    if lag is None:
        lag = analysis_selectors.lag()
        with contextlib.suppress(Exception):
            cache.set(LAG_CACHE_KEY, lag, LAG_CACHE_SECONDS)
    return lag


@require_safe
@never_cache
def ping(request: HttpRequest) -> HttpResponse:
    """A two-byte answer with no database work: the baseline for load benchmarks.

    It passes through the same server and middleware as every other page, so
    the time a real page takes can be given as a ratio to it.
    """
    return HttpResponse(b"ok", content_type="text/plain; charset=utf-8")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404: JSON under the research API (its clients read JSON), else the page."""
    document = reverse("analysis:api_openapi")
    if request.path.startswith(document.rsplit("/", 1)[0] + "/"):
        return JsonResponse(
            {"error": f"No such API path; the API is described at {document}."},
            status=404,
        )
    return defaults.page_not_found(request, exception)


def _languages() -> list[tuple[str, str]]:
    return list(settings.LANGUAGES)


class LanguageChoiceForm(ExpectedFieldsMixin, forms.Form):
    """What the language picker posts (Django's ``set_language`` reads these)."""

    language = forms.ChoiceField(
        choices=_languages,
        required=False,
        error_messages={
            "invalid_choice": gettext_lazy("That is not a language this site offers.")
        },
    )
    next = forms.CharField(required=False)


def set_language(request: HttpRequest) -> HttpResponse:
    """Django's ``set_language``, refusing a POST with fields it does not read."""
    if request.method == "POST":
        form = LanguageChoiceForm(request.POST, request.FILES)
        if not form.is_valid():
            return refusal_page(request, form)
    return i18n.set_language(request)
