"""Who may work on a survey: its owner adds people, changes roles, removes
access (:mod:`surveys.authoring.people`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from surveys.authoring import access, people, selectors
from surveys.authoring.survey_forms import CollaboratorForm


@login_required
@require_http_methods(["GET", "POST"])
def survey_people(request: HttpRequest, pk: int) -> HttpResponse:
    """Who has access (owner only): add someone, change a role, remove."""
    survey = selectors.survey_get_for(user=request.user, pk=pk, need=access.OWN)
    form = CollaboratorForm()
    problems: list[str] = []
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "add")
        try:
            if action == "add":
                form = CollaboratorForm(request.POST)
                if not form.is_valid():
                    raise ValidationError("")
                added = people.collaborator_add(
                    survey=survey,
                    user=request.user,
                    name_or_email=form.cleaned_data["person"],
                    role=form.cleaned_data["role"],
                )
                messages.success(request, _can(added.role, added.user.username))
            elif action in ("role", "remove"):
                target = _int(request.POST.get("collaborator"))
                if action == "role":
                    people.collaborator_set_role(
                        survey=survey,
                        user=request.user,
                        collaborator_id=target,
                        role=request.POST.get("role", ""),
                    )
                    messages.success(request, _("Role changed."))
                else:
                    people.collaborator_remove(
                        survey=survey, user=request.user, collaborator_id=target
                    )
                    messages.success(request, _("Access removed."))
            else:
                raise ValidationError(
                    _("Unknown action “%(action)s”.") % {"action": action[:20]}
                )
        except ValidationError as error:
            status = 400
            for message in error.messages:
                if message and form.is_bound:
                    form.add_error(None, message)
                elif message:
                    problems.append(message)
        else:
            return redirect("authoring:survey_people", pk=survey.pk)
    return render(
        request,
        "authoring/survey_people.html",
        {
            "survey": survey,
            "form": form,
            "problems": problems,
            "collaborators": survey.collaborators.select_related("user"),
        },
        status=status,
    )


def _int(value: str | None) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise ValidationError(
            _("That person no longer has access to this survey.")
        ) from None


def _can(role: str, username: str) -> str:
    """What the person just given ``role`` may now do, as a sentence."""
    if role == "editor":
        return _("%(username)s can now change and field this survey.") % {
            "username": username
        }
    return _("%(username)s can now read this survey, its results and exports.") % {
        "username": username
    }
