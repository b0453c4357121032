"""The survey builder's pages: thin views over selectors, forms and services."""

from __future__ import annotations

from decimal import Decimal
from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import (
    require_GET,
    require_POST,
)

from ldp.mechanisms.base import Mechanism
from ldp.spec.ceilings import EPSILON_CEILING_QUESTION, EPSILON_CEILING_SURVEY
from surveys.authoring import (
    access,
    display_logic,
    lifecycle,
    lifecycle_services,
    mechanisms,
    previews,
    selectors,
    services,
)
from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.forms import GridForm, QuestionForm, add_validation_errors
from surveys.authoring.kinds import KINDS, kind_groups
from surveys.authoring.lifecycle_forms import PublishForm
from surveys.authoring.models import Question, Survey
from surveys.authoring.planning_forms import PlanningForm
from surveys.authoring.survey_forms import SurveyForm


def _messages_from(error: ValidationError) -> list[str]:
    return [str(m) for m in error.messages]


def _collection_url(name: str, **kwargs) -> str | None:
    """A page of the collection app, linked by name if it provides it."""
    try:
        return reverse(f"collection:{name}", kwargs=kwargs)
    except NoReverseMatch:
        return None


@login_required
@require_GET
def survey_list(request: HttpRequest) -> HttpResponse:
    show_archived = request.GET.get("archived") == "1"
    owned = selectors.surveys_for_owner(user=request.user)
    surveys = list(owned if show_archived else owned.filter(archived=False))
    rows = [
        (
            survey,
            selectors.survey_overview(survey=survey),
            lifecycle.survey_availability(survey, responses=survey.response_count),
        )
        for survey in surveys
    ]
    return render(
        request,
        "authoring/survey_list.html",
        {
            "rows": rows,
            "show_archived": show_archived,
            "archived_count": owned.filter(archived=True).count(),
        },
    )


@login_required
def survey_create(request: HttpRequest) -> HttpResponse:
    form = SurveyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        survey = services.survey_create(owner=request.user, **form.cleaned_data)
        messages.success(request, _("Survey created. Now add its questions."))
        return redirect("authoring:survey_detail", pk=survey.pk)
    return render(request, "authoring/survey_form.html", {"form": form, "survey": None})


@login_required
def survey_edit(request: HttpRequest, pk: int) -> HttpResponse:
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = SurveyForm(request.POST or None, instance=survey)
    if request.method == "POST" and form.is_valid():
        try:
            services.survey_update(
                survey=survey, actor=request.user, **form.cleaned_data
            )
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                for message in errors:
                    form.add_error(field if field in form.fields else None, message)
        else:
            messages.success(request, _("Survey settings saved."))
            return redirect("authoring:survey_detail", pk=survey.pk)
    survey.refresh_from_db()
    return render(
        request, "authoring/survey_form.html", {"form": form, "survey": survey}
    )


@login_required
@require_GET
def survey_detail(request: HttpRequest, pk: int) -> HttpResponse:
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.VIEW)
    overview = selectors.survey_overview(survey=survey)
    return render(
        request,
        "authoring/survey_detail.html",
        {
            "survey": survey,
            "overview": overview,
            "public_url": _collection_url("consent", public_token=survey.public_token),
            "invitations_url": _collection_url("invitations", survey_id=survey.pk),
            "recipients_url": _collection_url("recipients", survey_id=survey.pk),
            "preview_url": _collection_url("preview", survey_id=survey.pk),
            "test_url": _collection_url("test_mode", survey_id=survey.pk),
            "test_delete_url": _collection_url(
                "test_responses_delete", survey_id=survey.pk
            ),
            "test_responses": selectors.survey_test_response_count(survey=survey),
            "availability": lifecycle.survey_availability(survey),
            "role": access.role_of(survey, request.user),
            "ceilings": {
                "question": EPSILON_CEILING_QUESTION,
                "survey": EPSILON_CEILING_SURVEY,
            },
            "publish_form": PublishForm(),
            # Asked only where publishing is offered (a draft, or open with
            # no responses yet).
            "weak_words": (
                lifecycle_services.weak_overall_words()
                if overview.publishable and overview.weak_overall
                else ""
            ),
        },
    )


def _survey_action(request: HttpRequest, pk: int, action, done: str) -> HttpResponse:
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    try:
        result = action(survey=survey, user=request.user)
    except ValidationError as error:
        for message in _messages_from(error):
            messages.error(request, message)
        return redirect("authoring:survey_detail", pk=survey.pk)
    messages.success(request, done)
    return redirect("authoring:survey_detail", pk=result.pk)


@login_required
@require_POST
def survey_publish(request: HttpRequest, pk: int) -> HttpResponse:
    """Publish; a survey its respondents' devices would label weakly protected
    overall only with the form's confirmation (``PublishForm``)."""
    form = PublishForm(request.POST)
    confirmed = form.is_valid() and form.cleaned_data["confirm_weak"]
    return _survey_action(
        request,
        pk,
        partial(services.survey_publish, weak_confirmed=confirmed),
        _(
            "Published: the survey is open and every protected question's spec "
            "is frozen."
        ),
    )


@login_required
@require_POST
def survey_close(request: HttpRequest, pk: int) -> HttpResponse:
    return _survey_action(
        request,
        pk,
        services.survey_close,
        _("Closed: no new responses are accepted."),
    )


@login_required
@require_POST
def survey_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    return _survey_action(
        request,
        pk,
        services.survey_reopen,
        _("Reopened: responses are accepted again."),
    )


@login_required
@require_POST
def survey_duplicate(request: HttpRequest, pk: int) -> HttpResponse:
    return _survey_action(
        request,
        pk,
        services.survey_duplicate,
        _("Duplicated: a new draft with copies of the questions and no responses."),
    )


def _question_page(
    request: HttpRequest, survey: Survey, form: QuestionForm, question: Question | None
) -> HttpResponse:
    preview = None
    if form.is_bound and form.config is not None:
        preview = previews.preview(
            form.config, n=survey.planned_respondents, mechanism=form.compiled
        )
    elif not form.is_bound:
        config = (
            selectors.question_privacy_config(question)
            if question
            else mechanisms.PrivacyConfig(kind="yes_no")
        )
        try:
            preview = previews.preview(config, n=survey.planned_respondents)
        except mechanisms.MechanismError:
            preview = None
    others = selectors.survey_epsilon_exact(
        survey=survey, exclude_question_id=question.pk if question else None
    )
    this = preview.epsilon_exact if preview and preview.is_private else Decimal(0)
    _, total_display, exact = previews.total_epsilon([others, this])
    plan_form = PlanningForm(request.POST if form.is_bound else None)
    return render(
        request,
        "authoring/question_form.html",
        {
            "survey": survey,
            "question": question,
            "form": form,
            "preview": preview,
            "plan_form": plan_form,
            "plan": _plan(preview, plan_form, form.compiled if form.is_bound else None),
            "total_display": total_display,
            "over_budget": exact > Decimal(survey.epsilon_budget),
            "has_responses": selectors.survey_has_responses(survey=survey),
            "kind_groups": kind_groups(),
            # The respondent's device modules word "Respondents read".
            "device_modules": {
                "randomizer": _collection_url("randomizer"),
                "wording": _collection_url("wording"),
            },
        },
    )


@login_required
def question_create(request: HttpRequest, pk: int) -> HttpResponse:
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = QuestionForm(
        request.POST or None,
        logic_choices=display_logic.choices_for(survey, before=None),
    )
    if request.method == "POST" and form.is_valid() and "preview" not in request.POST:
        try:
            services.question_create(
                survey=survey, actor=request.user, **form.service_kwargs()
            )
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, _("Question added."))
            if "add_another" in request.POST:
                return redirect("authoring:question_create", pk=survey.pk)
            return redirect("authoring:survey_detail", pk=survey.pk)
    return _question_page(request, survey, form, None)


@login_required
def grid_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Add a grid of scale items: one protected scale question per item."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = GridForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            rows = services.grid_create(survey=survey, **form.service_kwargs())
        except ValidationError as error:
            add_validation_errors(form, error)
        else:
            messages.success(
                request,
                ngettext(
                    "Grid added: %(count)d scale question.",
                    "Grid added: %(count)d scale questions.",
                    len(rows),
                )
                % {"count": len(rows)},
            )
            return redirect("authoring:survey_detail", pk=survey.pk)
    return render(request, "authoring/grid_form.html", {"survey": survey, "form": form})


@login_required
def question_edit(request: HttpRequest, pk: int, question_pk: int) -> HttpResponse:
    question = selectors.question_get_for(
        user=request.user, survey_pk=pk, pk=question_pk
    )
    survey = question.survey
    form = QuestionForm(
        request.POST or None,
        initial=QuestionForm.initial_for(question),
        logic_choices=display_logic.choices_for(survey, before=question.position),
    )
    if request.method == "POST" and form.is_valid() and "preview" not in request.POST:
        try:
            services.question_update(
                question=question, actor=request.user, **form.service_kwargs()
            )
        except ValidationError as error:
            _add_errors(form, error)
        else:
            messages.success(request, _("Question saved."))
            return redirect("authoring:survey_detail", pk=survey.pk)
    return _question_page(request, survey, form, question)


def _add_errors(form: QuestionForm, error: ValidationError) -> None:
    add_validation_errors(form, error)
    form.config = None


@login_required
@require_POST
def question_move(request: HttpRequest, pk: int, question_pk: int) -> HttpResponse:
    question = selectors.question_get_for(
        user=request.user, survey_pk=pk, pk=question_pk
    )
    direction = request.POST.get("direction", "")
    try:
        services.question_move(question=question, direction=direction)
    except ValidationError as error:
        for message in _messages_from(error):
            messages.error(request, message)
    url = reverse("authoring:survey_detail", kwargs={"pk": pk})
    return redirect(f"{url}#question-{question.pk}")


@login_required
def question_delete(request: HttpRequest, pk: int, question_pk: int) -> HttpResponse:
    question = selectors.question_get_for(
        user=request.user, survey_pk=pk, pk=question_pk
    )
    if request.method == "POST":
        try:
            services.question_delete(question=question, actor=request.user)
        except ValidationError as error:
            for message in _messages_from(error):
                messages.error(request, message)
        else:
            messages.success(request, _("Question deleted."))
        return redirect("authoring:survey_detail", pk=pk)
    return render(
        request,
        "authoring/question_confirm_delete.html",
        {"survey": question.survey, "question": question},
    )


@login_required
@require_GET
def question_preview(request: HttpRequest, pk: int) -> JsonResponse:
    """The live preview: delivered ε, plain words, respondent sentence, margin."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    form = QuestionForm(request.GET, preview_only=True)
    if not form.is_valid():
        kind = request.GET.get("kind", "")
        return JsonResponse(
            {
                "ok": False,
                "errors": {k: list(v) for k, v in form.errors.items()},
                "mechanisms": _mechanism_options(kind) if kind in KINDS else None,
            }
        )
    preview = previews.preview(
        form.config, n=survey.planned_respondents, mechanism=form.compiled
    )
    exclude = request.GET.get("question", "")
    # isdecimal, not isdigit ("²" is a digit int() refuses); ids fit in 18 digits.
    excluded = int(exclude) if exclude.isdecimal() and len(exclude) <= 18 else None
    others = selectors.survey_epsilon_exact(survey=survey, exclude_question_id=excluded)
    this = preview.epsilon_exact if preview.is_private else Decimal(0)
    total, display, exact = previews.total_epsilon([others, this])
    body = preview.as_json()
    plan_form = PlanningForm(request.GET)
    plan = _plan(preview, plan_form, form.compiled)
    body.update(
        plan=plan.as_json() if plan else None,
        plan_errors={k: list(v) for k, v in plan_form.errors.items()},
        survey_total=total,
        survey_total_display=display,
        budget=survey.epsilon_budget,
        over_budget=exact > Decimal(survey.epsilon_budget),
        mechanisms=_mechanism_options(form.config.kind),
        # The page words the survey total with the device's own modules.
        other_specs=selectors.survey_other_specs(
            survey=survey, exclude_question_id=excluded
        ),
    )
    return JsonResponse(body)


def _plan(
    preview: previews.Preview | None,
    plan_form: PlanningForm,
    compiled: Mechanism | None,
) -> previews.Plan | None:
    """The planning panel's figures for the previewed question, or None."""
    if preview is None:
        return None
    mechanism = None
    if preview.is_private:
        mechanism = compiled or (
            compiled_mechanism(preview.spec) if preview.spec else None
        )
        if mechanism is None:
            return None
    return previews.plan_study(mechanism, **plan_form.targets())


def _mechanism_options(kind: str) -> list[dict[str, str]]:
    return [
        {"value": value, "label": label}
        for value, label in mechanisms.mechanism_choices(kind)
    ]
