"""Writes for co-researchers: the owner shares a survey as editor or viewer."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from surveys.accounts import audit
from surveys.authoring import access
from surveys.authoring.models import Collaborator, Survey

COLLABORATORS_MAX = 50


def _find_user(name_or_email: str):
    text = name_or_email.strip()
    if not text:
        raise ValidationError(_("Give the username or email address of an account."))
    users = get_user_model().objects.filter(is_active=True)
    user = users.filter(username=text).first()
    if user is None and "@" in text:
        matches = list(users.filter(email__iexact=text)[:2])
        if len(matches) > 1:
            raise ValidationError(
                _("Several accounts use “%(text)s”; give the username instead.")
                % {"text": text}
            )
        user = matches[0] if matches else None
    if user is None:
        raise ValidationError(
            _(
                "No account “%(text)s” here. Co-researchers need an account on "
                "this server first (an administrator makes one)."
            )
            % {"text": text[:80]}
        )
    return user


def _role(role: str) -> str:
    if role not in Collaborator.Role.values:
        raise ValidationError(
            _("“%(role)s” is not a role; choose editor or viewer.")
            % {"role": role[:20]}
        )
    return role


@transaction.atomic
def collaborator_add(*, survey: Survey, user, name_or_email: str, role: str):
    """Share ``survey`` (its owner only) with another account as ``role``."""
    access.require(survey, user, access.OWN)
    role = _role(role)
    other = _find_user(name_or_email)
    if other.pk == survey.owner_id:
        raise ValidationError(_("That is the survey's owner, who has every right."))
    if survey.collaborators.count() >= COLLABORATORS_MAX:
        raise ValidationError(
            _("A survey is shared with at most %(most)d people.")
            % {"most": COLLABORATORS_MAX}
        )
    try:
        with transaction.atomic():
            added = Collaborator.objects.create(survey=survey, user=other, role=role)
    except IntegrityError:
        raise ValidationError(
            _("%(username)s already has access; change their role below.")
            % {"username": other.username}
        ) from None
    audit.record(user, audit.Action.INVITE, survey, f"{other.username} as {role}")
    return added


@transaction.atomic
def collaborator_set_role(*, survey: Survey, user, collaborator_id: int, role: str):
    access.require(survey, user, access.OWN)
    role = _role(role)
    found = (
        Collaborator.objects.select_for_update()
        .select_related("user")
        .filter(survey=survey, pk=collaborator_id)
        .first()
    )
    if found is None:
        raise ValidationError(_("That person no longer has access to this survey."))
    found.role = role
    found.save(update_fields=["role"])
    audit.record(user, audit.Action.ROLE_CHANGE, survey, f"{found.user} is {role}")


@transaction.atomic
def collaborator_remove(*, survey: Survey, user, collaborator_id: int) -> None:
    """The owner removes someone, or someone leaves a survey shared with them."""
    found = Collaborator.objects.filter(survey=survey, pk=collaborator_id).first()
    if found is None:
        raise ValidationError(_("That person no longer has access to this survey."))
    if found.user_id != getattr(user, "pk", None):
        access.require(survey, user, access.OWN)
    audit.record(user, audit.Action.ROLE_CHANGE, survey, f"{found.user} removed")
    found.delete()
