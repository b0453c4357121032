"""Builder pages for a survey's lifecycle: schedule, archive, delete."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from surveys.authoring import access, lifecycle, lifecycle_services, selectors
from surveys.authoring.forms import add_validation_errors
from surveys.authoring.lifecycle_forms import ScheduleForm


@login_required
@require_http_methods(["GET", "POST"])
def survey_schedule(request: HttpRequest, pk: int) -> HttpResponse:
    """When the survey takes answers, and whether the public link works."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = ScheduleForm(request.POST or None, survey=survey)
    if request.method == "POST" and form.is_valid():
        try:
            lifecycle_services.survey_schedule_update(
                survey=survey, user=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            add_validation_errors(form, error)
        else:
            messages.success(request, "Schedule saved.")
            return redirect("authoring:survey_detail", pk=survey.pk)
    return render(
        request,
        "authoring/survey_schedule.html",
        {
            "survey": survey,
            "form": form,
            "availability": lifecycle.survey_availability(survey),
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def survey_archive(request: HttpRequest, pk: int) -> HttpResponse:
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.OWN)
    try:
        lifecycle_services.survey_archive(survey=survey, user=request.user)
    except ValidationError as error:
        for message in error.messages:
            messages.error(request, message)
    else:
        messages.success(
            request,
            _("Archived: the survey is closed and read-only; its results are kept."),
        )
    return redirect("authoring:survey_detail", pk=survey.pk)


@login_required
@require_http_methods(["GET", "POST"])
def survey_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask (offering the export first), then delete the survey and its data."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.OWN)
    responses = selectors.survey_response_count(survey=survey)
    if request.method == "POST":
        if request.POST.get("confirm_title", "").strip() != survey.title.strip():
            messages.error(
                request, _("Nothing was deleted: type the survey's title to confirm.")
            )
            return render(
                request,
                "authoring/survey_confirm_delete.html",
                {"survey": survey, "responses": responses},
                status=400,
            )
        title = survey.title
        deleted = lifecycle_services.survey_delete(survey=survey, user=request.user)
        messages.success(
            request,
            ngettext(
                "Deleted “%(title)s” with its %(count)d response. Nothing of it "
                "is kept.",
                "Deleted “%(title)s” with its %(count)d responses. Nothing of it "
                "is kept.",
                deleted,
            )
            % {"title": title, "count": deleted},
        )
        return redirect("authoring:survey_list")
    return render(
        request,
        "authoring/survey_confirm_delete.html",
        {"survey": survey, "responses": responses},
    )
