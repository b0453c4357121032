"""The bins page of one number question: show and change its cut points.

Saving changes the survey's results definition, so the snapshot is stale and
a worker recomputes it (``tasks.send_snapshot``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from surveys.analysis import tasks
from surveys.analysis.models import QuestionBins
from surveys.analysis.pages.bins_forms import BinsForm
from surveys.analysis.results import bins
from surveys.authoring import access, kinds
from surveys.authoring.catalogue import identifies_only_the_mean, mean_only_reason
from surveys.authoring.models import Question

NOT_A_NUMBER = gettext_lazy("Only protected number questions can be grouped into bins.")


def _values(question: Question) -> tuple[Any, str | None]:
    """(the question's possible answers, None) or (None, why it has no bins)."""
    if not kinds.facts(question.kind).grid or not question.is_private:
        return None, str(NOT_A_NUMBER)
    mechanism = question.compiled_mechanism()
    values = None if mechanism is None else mechanism.input_values()
    if mechanism is None or values is None:
        return None, str(NOT_A_NUMBER)
    if identifies_only_the_mean(mechanism.name):
        # docs/maths.md, section 11.1: the reports identify the mean alone.
        return None, " ".join(mean_only_reason(mechanism.name))
    return values, None


@login_required
@require_http_methods(["GET", "POST"])
def question_bins(request, pk: int, question_pk: int):
    """GET: the form with the current cut points; POST: store valid ones.

    Editors and the owner only: the bins change the results every reader sees.
    Refused input stores nothing and shows why (status 400).
    """
    survey = access.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    question = get_object_or_404(survey.questions, pk=question_pk)
    values, refusal = _values(question)
    stored = QuestionBins.objects.filter(question=question).first()
    context = {"survey": survey, "question": question}
    if refusal is not None:
        context["refusal"] = refusal
        return render(
            request,
            "analysis/question_bins.html",
            context,
            status=400 if request.method == "POST" else 200,
        )
    current = stored.cuts if stored is not None else bins.default_cuts(values)
    initial = {"cuts": ", ".join(f"{c:g}" for c in current)}
    if request.method == "POST":
        form = BinsForm(request.POST, values=values)
        if form.is_valid():
            with transaction.atomic():
                QuestionBins.objects.update_or_create(
                    question=question, defaults={"cuts": form.cleaned_data["cuts"]}
                )
                transaction.on_commit(lambda: tasks.send_snapshot(survey.pk))
            url = reverse("analysis:dashboard", args=[survey.pk])
            return redirect(f"{url}#q{question.pk}")
        status = 400
    else:
        form = BinsForm(initial=initial, values=values)
        status = 200
    context.update(
        form=form,
        custom=stored is not None,
        low=f"{values[0]:g}",
        high=f"{values[-1]:g}",
    )
    return render(request, "analysis/question_bins.html", context, status=status)
