"""Builder pages for a survey's languages and each language's texts."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from surveys.authoring import access, selectors, translation_services, translations
from surveys.authoring.forms import add_validation_errors
from surveys.authoring.translation_forms import LanguagesForm, TranslationForm


@login_required
@require_http_methods(["GET", "POST"])
def survey_languages(request: HttpRequest, pk: int) -> HttpResponse:
    """Which languages the survey is offered in, and what each one still lacks."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = LanguagesForm(request.POST or None, survey=survey)
    if request.method == "POST" and form.is_valid():
        try:
            translation_services.survey_languages_update(
                survey=survey, user=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            add_validation_errors(form, error)
        else:
            messages.success(request, _("Languages saved."))
            return redirect("authoring:survey_languages", pk=survey.pk)
    questions = list(survey.questions.all())
    offered = translations.offered_languages(survey, questions)
    status = [
        {
            "code": code,
            "name": translations.language_name(code),
            "missing": translations.survey_missing(survey, questions, code),
            "offered": code in offered,
        }
        for code in survey.languages
    ]
    return render(
        request,
        "authoring/survey_languages.html",
        {
            "survey": survey,
            "form": form,
            "source_name": translations.language_name(survey.source_language),
            "status": status,
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def survey_translation(request: HttpRequest, pk: int, language: str) -> HttpResponse:
    """Every source text beside its translation into ``language``."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    if language not in survey.languages:
        raise Http404("This survey isn't offered in that language.")
    form = TranslationForm(request.POST or None, survey=survey, language=language)
    if request.method == "POST" and form.is_valid():
        try:
            translation_services.translations_update(
                survey=survey,
                user=request.user,
                language=language,
                survey_texts=form.survey_texts(),
                question_texts=form.question_texts(),
            )
        except ValidationError as error:
            add_validation_errors(form, error)
        else:
            saved = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
            missing = translations.survey_missing(
                saved, list(saved.questions.all()), language
            )
            name = translations.language_name(language)
            if missing:
                messages.warning(
                    request,
                    _("%(language)s saved; still missing: %(missing)s.")
                    % {"language": name, "missing": "; ".join(missing)},
                )
            else:
                messages.success(
                    request,
                    _("%(language)s saved; it is complete.") % {"language": name},
                )
            return redirect("authoring:survey_languages", pk=survey.pk)
    return render(
        request,
        "authoring/survey_translation.html",
        {
            "survey": survey,
            "form": form,
            "language": language,
            "language_name": translations.language_name(language),
            "source_name": translations.language_name(survey.source_language),
        },
        status=400 if form.errors else 200,
    )
