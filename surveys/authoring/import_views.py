"""Builder pages for importing a questionnaire (XLSForm, LimeSurvey .lss)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from surveys.authoring import access, selectors
from surveys.authoring.imports import drafts, formats, suggestions, wording
from surveys.authoring.imports.parsed import MAX_BYTES
from surveys.authoring.models import SurveyImport


class QuestionnaireImportForm(forms.Form):
    """Upload of a questionnaire made with another tool."""

    questionnaire = forms.FileField(
        label=gettext_lazy("Questionnaire file (.xlsx or .lss)"),
        help_text=gettext_lazy(
            "An XLSForm workbook (KoboToolbox, ODK) or a LimeSurvey survey "
            "structure file (.lss). It becomes a new draft survey owned by you, "
            "every question unprotected."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": formats.ACCEPT}),
    )

    def clean_questionnaire(self):
        upload = self.cleaned_data["questionnaire"]
        if upload.size > MAX_BYTES:
            raise ValidationError(
                _(
                    "The file is %(size)s bytes; a questionnaire file is at most "
                    "%(most)s. Nothing was imported."
                )
                % {
                    "size": number_format(upload.size, force_grouping=True),
                    "most": number_format(MAX_BYTES, force_grouping=True),
                }
            )
        return upload


@login_required
@require_http_methods(["GET", "POST"])
def questionnaire_import(request: HttpRequest) -> HttpResponse:
    """A new draft survey from an uploaded questionnaire; a bad file changes
    nothing and says why."""
    form = QuestionnaireImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["questionnaire"]
        name = upload.name or ""
        try:
            source, parsed = formats.read(name, upload.read())
            survey = drafts.draft_from(
                owner=request.user, parsed=parsed, source=source, file_name=name
            )
        except ValidationError as error:
            for message in error.messages:
                form.add_error("questionnaire", message)
        else:
            return redirect("authoring:survey_import_report", pk=survey.pk)
    status = 400 if form.errors else 200
    return render(
        request,
        "authoring/questionnaire_import.html",
        {"form": form, "max_bytes": MAX_BYTES},
        status=status,
    )


@login_required
@require_GET
def survey_import_report(request: HttpRequest, pk: int) -> HttpResponse:
    """What an import brought in, what it left out, and what to protect."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.VIEW)
    record = SurveyImport.objects.filter(survey=survey).first()
    findings = [
        {**finding, "sentence": wording.sentence(finding)}
        for finding in (record.findings if record else [])
    ]
    return render(
        request,
        "authoring/survey_import_report.html",
        {
            "survey": survey,
            "record": record,
            "dropped": [f for f in findings if f.get("dropped")],
            "changed": [f for f in findings if not f.get("dropped")],
            "suggested": suggestions.suggest(survey),
            "can_edit": access.can(survey, request.user, access.EDIT),
        },
    )
