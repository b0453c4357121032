"""Respondent-side lifecycle pages: the researcher's preview and test mode,
and withdrawal.

Preview: the real respond page of the owner's survey (drafts included) with a
banner; it posts to the preview URL, which refuses every submission and stores
nothing.  Refusing (rather than pretending to accept) keeps one code path for
storing answers and leaves no doubt that a preview never counts.

Test mode: the same page for the owner only, whose submissions are stored
marked as test (``Submission.is_test``), never counted in results, exports or
the target, and deleted in one click.

Withdrawal: whoever holds a receipt code may delete that submission (reports
and unprotected answers); the tallies and results are corrected.  Nothing
records that a withdrawal happened.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from surveys.authoring import access, translations
from surveys.authoring.models import Survey
from surveys.collection import device_config, ratelimit, selectors, services
from surveys.collection.forms import ResponseForm
from surveys.collection.views import (
    _problem,
    _too_many,
    _unanswerable,
    _wants_json,
    store_posted_answers,
)
from surveys.expected_fields import (
    EmptyPostForm,
    ExpectedFieldsMixin,
    refusal_page,
)

PREVIEW_REFUSAL = gettext_lazy(
    "Preview: nothing was stored. Respondents' devices send only the randomized "
    "reports; use the public or invitation link to answer for real."
)


# --- preview ------------------------------------------------------------------------
@login_required
@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
@never_cache
def preview(request: HttpRequest, survey_id: int) -> HttpResponse:
    """The respond page as respondents see it; submitting stores nothing."""
    survey = access.survey_get_for(user=request.user, pk=survey_id, need=access.EDIT)
    try:
        form = ResponseForm(survey=survey)
    except ValueError:
        return _unanswerable(request, survey)
    if request.method == "POST" and _wants_json(request):
        return JsonResponse({"error": PREVIEW_REFUSAL, "code": "preview"}, status=409)
    status = 409 if request.method == "POST" else 200
    device = device_config.device_context(survey, form, "respond")
    # The device shows what would be sent and posts nothing (docs/privacy.md).
    device["device_config"]["preview"] = True
    return render(
        request,
        "collection/respond.html",
        {
            "survey": survey,
            "form": form,
            "error": PREVIEW_REFUSAL if request.method == "POST" else "",
            "preview": True,
            "form_action": reverse("collection:preview", args=[survey.pk]),
            "open_stamp": "",
            **device,
        },
        status=status,
    )


# --- test mode ----------------------------------------------------------------------
@login_required
@sensitive_post_parameters()
@require_http_methods(["GET", "POST"])
@never_cache
def test_mode(request: HttpRequest, survey_id: int) -> HttpResponse:
    """The respond page for the owner; what is sent is stored as a test."""
    survey = access.survey_get_for(user=request.user, pk=survey_id, need=access.EDIT)
    if survey.status == Survey.Status.DRAFT or survey.archived:
        return _problem(
            request,
            gettext(
                "Test responses need a published survey that is not archived. Use "
                "the preview to see a draft."
            ),
            status=409,
            survey=survey,
        )
    try:
        form = ResponseForm(survey=survey)
    except ValueError:
        return _unanswerable(request, survey)
    if request.method == "POST":
        # A test response is never sent on to a panel's completion page.
        return store_posted_answers(request, survey, redirect_url="", is_test=True)
    return render(
        request,
        "collection/respond.html",
        {
            "survey": survey,
            "form": form,
            "error": "",
            "test_mode": True,
            "form_action": reverse("collection:test_mode", args=[survey.pk]),
            "open_stamp": "",
            **device_config.device_context(survey, form, "respond"),
        },
    )


@login_required
@require_POST
def test_responses_delete(request: HttpRequest, survey_id: int) -> HttpResponse:
    """Delete every test response of the owner's survey."""
    survey = access.survey_get_for(user=request.user, pk=survey_id, need=access.EDIT)
    deleted = services.test_submissions_delete(survey=survey)
    messages.success(
        request,
        ngettext(
            "Deleted %(count)s test response; the results never counted it.",
            "Deleted %(count)s test responses; the results never counted them.",
            deleted,
        )
        % {"count": deleted},
    )
    return redirect("authoring:survey_detail", pk=survey.pk)


# --- withdrawal ---------------------------------------------------------------------
@require_http_methods(["GET", "POST"])
@never_cache
def withdraw(request: HttpRequest, receipt: str) -> HttpResponse:
    """Ask, then delete the submission a receipt code names."""
    if exceeded := ratelimit.check_lookup(request):
        return _too_many(request, exceeded)
    submission = selectors.submission_by_receipt(receipt)
    if submission is None:
        raise Http404("No such receipt.")
    survey = submission.survey
    if request.method == "POST":
        form = EmptyPostForm(request.POST, request.FILES)
        if not form.is_valid():  # a field the confirmation does not send
            return refusal_page(request, form)
        services.submission_withdraw(submission=submission)
        # Worded like the survey's other pages (after the write: a localized
        # survey refuses to be saved).
        translations.localize_for_request(request, survey)
        return render(request, "collection/withdrawn.html", {"survey": survey})
    translations.localize_for_request(request, survey)
    return render(
        request,
        "collection/withdraw_confirm.html",
        {"survey": survey, "receipt": receipt},
    )


class ReceiptCodeForm(ExpectedFieldsMixin, forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Your receipt code"),
        max_length=200,
        help_text=gettext_lazy(
            "The last part of your receipt link, after “/receipt/”."
        ),
    )

    def clean_code(self) -> str:
        code = self.cleaned_data["code"].strip().rstrip("/")
        return code.rsplit("/", 1)[-1]


@require_http_methods(["GET", "POST"])
@never_cache
def withdraw_lookup(request: HttpRequest) -> HttpResponse:
    """From the verify page: a receipt code leads to its withdrawal page."""
    if exceeded := ratelimit.check_lookup(request):
        return _too_many(request, exceeded)
    form = (
        ReceiptCodeForm(request.POST, request.FILES)
        if request.method == "POST"
        else ReceiptCodeForm()
    )
    if request.method == "POST" and form.is_valid():
        code = form.cleaned_data["code"]
        if selectors.submission_by_receipt(code) is not None:
            return redirect("collection:withdraw", receipt=code)
        form.add_error(
            "code",
            gettext(
                "No submission has this receipt code (or its receipt has "
                "expired). Check that you copied the whole code."
            ),
        )
    return render(
        request,
        "collection/withdraw_lookup.html",
        {"form": form},
        status=400 if form.errors else 200,
    )
