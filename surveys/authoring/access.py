"""Who may do what with a survey: its owner, editors and viewers.

Every survey page looks the survey up through :func:`survey_get_for` with the
access the page needs; anyone without it gets 404, the same answer as for a
survey that does not exist, so a page never tells a stranger (or a viewer
trying an editor's page) that a survey exists.

- ``VIEW`` (owner, editor, viewer): the survey's page, its results,
  cross-tabs, privacy view, export files and the API.
- ``EDIT`` (owner, editor): questions and settings, publish, close, reopen,
  schedule, duplicate, invitations and email, preview and test mode.
- ``OWN`` (owner only): archive, delete, and who else has access.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from surveys.authoring.models import Collaborator, Survey

VIEW, EDIT, OWN = "view", "edit", "own"
ROLES_FOR = {
    VIEW: (Collaborator.Role.EDITOR, Collaborator.Role.VIEWER),
    EDIT: (Collaborator.Role.EDITOR,),
    OWN: (),
}


def accessible_surveys(*, user, need: str = VIEW) -> QuerySet[Survey]:
    """Surveys ``user`` owns or holds a role in that grants ``need``."""
    if not getattr(user, "is_authenticated", False):
        return Survey.objects.none()
    shared = Collaborator.objects.filter(
        user_id=user.pk, role__in=ROLES_FOR[need]
    ).values("survey_id")
    return Survey.objects.filter(Q(owner_id=user.pk) | Q(pk__in=shared))


def survey_get_for(*, user, pk: int, need: str = VIEW) -> Survey:
    """Survey ``pk`` if ``user`` has ``need`` on it; 404 otherwise."""
    return get_object_or_404(accessible_surveys(user=user, need=need), pk=pk)


def role_of(survey: Survey, user) -> str | None:
    """ "owner", "editor", "viewer" or None."""
    if survey.owner_id == getattr(user, "pk", None):
        return "owner"
    return (
        Collaborator.objects.filter(survey=survey, user_id=getattr(user, "pk", None))
        .values_list("role", flat=True)
        .first()
    )


def can(survey: Survey, user, need: str) -> bool:
    """Whether ``user`` has ``need`` on ``survey``."""
    role = role_of(survey, user)
    if role == "owner":
        return True
    return role is not None and role in ROLES_FOR[need]


def require(survey: Survey, user, need: str) -> None:
    """PermissionDenied unless ``user`` has ``need`` (services' own check)."""
    if not can(survey, user, need):
        raise PermissionDenied(
            "Only the survey's owner can do this."
            if need == OWN
            else "Only the survey's owner or an editor can change it."
        )
