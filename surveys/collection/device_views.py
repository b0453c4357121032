"""What the independent device reads and where it sends (docs/threat-model.md).

The independent device is a static page served from another origin than the
survey server (``device/``, ``manage.py build_device``): the survey server
cannot write to its code or to its storage.  It reads a survey's content
objects here (``content.py``), shows them as text, keeps its own memory and
posts only reports and the survey's allowlisted non-answer fields back.

Both endpoints answer cross-origin requests from ``settings.DEVICE_ORIGINS``
only (django-cors-headers: ``CORS_URLS_REGEX`` in settings), without
credentials, so they work with third-party cookies blocked.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST, require_safe

from surveys.authoring import lifecycle, translations
from surveys.authoring.models import Survey
from surveys.collection import content, ratelimit, selectors, views
from surveys.collection.forms import ResponseForm


def _json(request: HttpRequest) -> None:
    """Every answer here is JSON, refusals included (``views._wants_json``)."""
    request.META["HTTP_ACCEPT"] = "application/json"


def _refused(message: str, code: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message, "code": code}, status=status)


def _language(request: HttpRequest, survey: Survey) -> str:
    """``?language=`` if the survey is offered in it, else the browser's."""
    offered = translations.offered_languages(survey, list(survey.questions.all()))
    asked = request.GET.get("language", "")
    if asked in offered:
        return asked
    return translations.chosen_language(request, offered)


def _content(request: HttpRequest, survey: Survey, report_url: str) -> HttpResponse:
    """The survey's content objects in one language, and the non-answer
    fields and settings the device needs to send a body the answer form
    accepts (``ResponseForm``; the device's allowlist is outbox.js's)."""
    availability = lifecycle.survey_availability(survey)
    if not availability.is_open:
        return _refused(
            gettext("This survey is not accepting answers."), "closed", status=410
        )
    try:
        ResponseForm(survey=survey)
    except ValueError:
        return _refused(
            gettext("This survey cannot be answered yet."), "unanswerable", 503
        )
    language = _language(request, survey)
    texts = translations.localize_survey(Survey.objects.get(pk=survey.pk), language)
    objects = content.survey_content(survey, language)
    return JsonResponse(
        {
            "v": content.VERSION,
            "language": texts.language,
            "languages": texts.offered,
            # Words the server shows beside the questions; none about protection.
            "survey": {
                "title": texts.survey.title,
                "description": texts.survey.description,
                "consent": texts.survey.consent_text,
                "contact": survey.researcher_contact,
                "allow_reanswer": survey.allow_reanswer,
            },
            "questions": [item.as_json() for item in objects],
            # The answer form's fields that are not answers.
            "fields": {
                "survey_revision": survey.revision,
                "opened": lifecycle.open_stamp(survey),
            },
            "link_fields": list(survey.link_fields),
            "report_url": request.build_absolute_uri(report_url),
        }
    )


@require_safe
@never_cache
def content_public(request: HttpRequest, public_token: str) -> HttpResponse:
    """A public link's content objects."""
    _json(request)
    if exceeded := ratelimit.check_page(request):
        return views._too_many(request, exceeded)
    survey = selectors.answerable_survey(public_token)
    if survey is None:
        return _refused(gettext("No such survey."), "unknown_survey", 404)
    if survey.invitation_only:
        return _refused(
            gettext("This survey is by invitation only."), "invitation_only", 403
        )
    return _content(
        request, survey, reverse("collection:device_report", args=[public_token])
    )


@require_safe
@never_cache
def content_invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation's content objects (its survey's; the same for every
    invitation of the survey)."""
    _json(request)
    if exceeded := ratelimit.check_lookup(request):
        return views._too_many(request, exceeded)
    invitation = selectors.invitation_by_token(token)
    if invitation is None or invitation.survey.status == Survey.Status.DRAFT:
        return _refused(
            gettext("This invitation link is not valid."), "unknown_invitation", 404
        )
    if invitation.used:
        return _refused(
            gettext("This invitation link has already been used."), "used", 410
        )
    return _content(
        request,
        invitation.survey,
        reverse("collection:device_report_invitation", args=[token]),
    )


# The two report endpoints are CSRF-exempt.  CSRF is a forged request that
# borrows a browser's ambient authority (its cookies) to act as that browser.
# These endpoints read no cookie and no session, and accept nothing a cookie
# could authorise: only a body the answer form validates (reports, skip
# markers, unprotected answers and the survey's link fields), which anyone
# holding the public link, or the invitation token in the path, can send from
# anywhere anyway.  A forged post from another site can do no more than its
# author could do directly, and is rate limited and validated the same way.
@csrf_exempt
@sensitive_post_parameters()
@require_POST
@never_cache
def report_public(request: HttpRequest, public_token: str) -> HttpResponse:
    """A report from the independent device for a public link: the respondent
    POST of ``collection:respond`` itself, answered in JSON."""
    _json(request)
    return views.respond_public(request, public_token)


@csrf_exempt
@sensitive_post_parameters()
@require_POST
@never_cache
def report_invitation(request: HttpRequest, token: str) -> HttpResponse:
    """A report from the independent device for an invitation: the POST of
    ``collection:respond_invitation`` itself, answered in JSON."""
    _json(request)
    return views.respond_invitation(request, token)
