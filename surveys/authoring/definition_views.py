"""A survey's definition as a download, and a new draft from an uploaded one
(:mod:`surveys.authoring.definitions`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.formats import number_format
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET

from surveys.authoring import access, definitions, selectors
from surveys.authoring.survey_forms import DefinitionImportForm


@login_required
@require_GET
def survey_definition(request: HttpRequest, pk: int) -> HttpResponse:
    """The survey's definition as a JSON download (no responses, no owner)."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.VIEW)
    response = HttpResponse(
        definitions.definition_json(survey),
        content_type="application/json; charset=utf-8",
    )
    name = slugify(survey.title)[:60] or "survey"
    response["Content-Disposition"] = f'attachment; filename="{name}-definition.json"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
def survey_import(request: HttpRequest) -> HttpResponse:
    """A new draft survey from an uploaded definition; a bad file changes nothing."""
    form = DefinitionImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["definition"]
        try:
            if upload.size > definitions.MAX_BYTES:
                raise ValidationError(
                    _(
                        "The file is %(size)s bytes; a survey definition is at "
                        "most %(most)s bytes. Nothing was imported."
                    )
                    % {
                        "size": number_format(upload.size, force_grouping=True),
                        "most": number_format(
                            definitions.MAX_BYTES, force_grouping=True
                        ),
                    }
                )
            document = definitions.parse_definition(upload.read())
            survey = definitions.definition_import(
                owner=request.user, document=document
            )
        except ValidationError as error:
            for message in error.messages:
                form.add_error("definition", message)
        else:
            count = survey.questions.count()
            messages.success(
                request,
                ngettext(
                    "Imported as a new draft with %(count)d question. Check it, "
                    "then publish it when it is ready.",
                    "Imported as a new draft with %(count)d questions. Check it, "
                    "then publish it when it is ready.",
                    count,
                )
                % {"count": count},
            )
            return redirect("authoring:survey_detail", pk=survey.pk)
    status = 400 if form.errors else 200
    return render(
        request, "authoring/survey_import.html", {"form": form}, status=status
    )
