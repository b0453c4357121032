"""The consistent-estimate page of a survey: show and change its method.

Saving changes the survey's results definition, so the snapshot is stale and
a worker recomputes it (``consistent.consistent_method_set``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from surveys.analysis.pages import consistent
from surveys.analysis.pages.consistent_forms import ConsistentMethodForm
from surveys.analysis.results import selectors
from surveys.authoring import access


@login_required
@require_http_methods(["GET", "POST"])
def consistent_method(request, pk: int):
    """GET: the two methods, the survey's current one chosen; POST: store one.

    Editors and the owner only: the method changes the results every reader
    sees.  A refused choice stores nothing and says why (status 400).
    """
    survey = access.survey_get_for(user=request.user, pk=pk, need=access.EDIT)
    current = selectors.consistent_method(survey_id=survey.pk)
    status = 200
    if request.method == "POST":
        form = ConsistentMethodForm(request.POST)
        if form.is_valid():
            consistent.consistent_method_set(
                survey=survey, user=request.user, method=form.cleaned_data["method"]
            )
            return redirect(reverse("analysis:dashboard", args=[survey.pk]))
        status = 400
    else:
        form = ConsistentMethodForm(initial={"method": current})
    context = {
        "survey": survey,
        "form": form,
        "current": consistent.method_label(current),
        "explanations": [
            (consistent.method_label(method), words)
            for method, words in consistent.EXPLANATIONS.items()
        ],
    }
    return render(request, "analysis/consistent_method.html", context, status=status)
