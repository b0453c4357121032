"""Writes for a survey's lifecycle: schedule, notifications, archive, delete."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from ldp.spec import strength
from surveys.accounts import audit
from surveys.authoring import access
from surveys.authoring.ldp_words import localized_number
from surveys.authoring.lifecycle import State, survey_availability
from surveys.authoring.models import Survey
from surveys.authoring.signals import survey_deleting

logger = logging.getLogger(__name__)


def _require_owner(survey: Survey, user) -> None:
    access.require(survey, user, access.OWN)


def weak_overall_words() -> str:
    """Why publishing asks for a confirmation, in the active language: the
    device's own limit on "weak", as the certainty ``R/(1 + R)`` an observer
    who was 50/50 can reach (``ldp.spec.strength``)."""
    limit = strength.warned_ratio()
    return gettext(
        "Respondents' devices will tell them that this survey protects their "
        "answers weakly overall: together, its protected answers let someone who "
        "was 50/50 about them become more than %(percent)s%% sure. Lower some "
        "questions' ε, or confirm that you want to publish it as it is."
    ) % {"percent": localized_number(float(limit / (1 + limit) * 100))}


def weak_overall_error(specs: Iterable[dict[str, Any]]) -> str:
    """The refusal to publish compiled ``specs`` unconfirmed ("" if they read
    better than weak overall on respondents' devices)."""
    if not strength.weak_or_worse(strength.total_ratio(specs)):
        return ""
    return weak_overall_words()


def require_not_archived(survey: Survey) -> None:
    """Refuse any change to an archived survey (it is read-only)."""
    if survey.archived:
        raise ValidationError(
            gettext(
                "This survey is archived, so it is read-only. Duplicate it to run "
                "it again."
            )
        )


# --- schedule ------------------------------------------------------------------------
@transaction.atomic
def survey_schedule_update(
    *,
    survey: Survey,
    user,
    opens_at: datetime | None,
    closes_at: datetime | None,
    time_zone: str,
    close_at_responses: int | None,
    invitation_only: bool,
) -> Survey:
    """Set when a survey takes answers and who may answer (stored in UTC)."""
    access.require(survey, user, access.EDIT)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    require_not_archived(survey)
    if opens_at and closes_at and closes_at <= opens_at:
        raise ValidationError(
            {"closes_at": ["The closing time must be after the opening time."]}
        )
    if survey.opens_at != opens_at:
        survey.notified_open = False
    if survey.closes_at != closes_at or survey.close_at_responses != (
        close_at_responses
    ):
        survey.notified_closed = False
    survey.opens_at = opens_at
    survey.closes_at = closes_at
    survey.time_zone = time_zone
    survey.close_at_responses = close_at_responses
    survey.invitation_only = invitation_only
    survey.full_clean()
    survey.save()
    audit.record(user, audit.Action.EDIT, survey, "schedule")
    return survey


# --- notifications (beat) ------------------------------------------------------------
def _claim(survey: Survey, flag: str) -> bool:
    """Set ``flag`` once; True for the one caller that set it."""
    return bool(
        Survey.objects.filter(pk=survey.pk, **{flag: False}).update(**{flag: True})
    )


def _tell_owner(survey: Survey, *, opened: bool) -> None:
    """Email the owner that ``survey`` opened (or closed), in the survey's
    source language (an account keeps no language of its own)."""
    address = survey.owner.email
    if not address:
        logger.info(
            "survey %s %s; its owner has no email address",
            survey.pk,
            "opened" if opened else "closed",
        )
        return
    with translation.override(survey.source_language):
        if opened:
            subject = gettext("Your survey “%(title)s” is now open for responses")
            first = gettext("Your survey “%(title)s” is now open for responses.")
        else:
            subject = gettext("Your survey “%(title)s” has closed")
            first = gettext("Your survey “%(title)s” has closed.")
        rest = gettext("Open Deniable to see its responses and results.")
    send_mail(
        subject=subject % {"title": survey.title},
        message=first % {"title": survey.title} + "\n\n" + rest,
        from_email=None,
        recipient_list=[address],
    )


def notify_transitions(*, now: datetime | None = None) -> dict[str, int]:
    """Email each owner once when their survey opened at its opening time or
    closed by its closing time or target; return how many of each were sent."""
    now = now or timezone.now()
    sent = {"opened": 0, "closed": 0}
    candidates = (
        Survey.objects.filter(status=Survey.Status.OPEN, archived=False)
        .filter(Q(notified_open=False) | Q(notified_closed=False))
        .select_related("owner")
    )
    for survey in candidates:
        availability = survey_availability(survey, now=now)
        if availability.state == State.CLOSED and availability.automatic:
            _claim(survey, "notified_open")  # it opened before: say only "closed"
            if _claim(survey, "notified_closed"):
                _tell_owner(survey, opened=False)
                sent["closed"] += 1
        elif (
            availability.is_open
            and survey.opens_at is not None
            and _claim(survey, "notified_open")
        ):
            _tell_owner(survey, opened=True)
            sent["opened"] += 1
    return sent


# --- archive and delete ---------------------------------------------------------
@transaction.atomic
def survey_archive(*, survey: Survey, user) -> Survey:
    """Close the survey (if open) and make it read-only; results are kept."""
    _require_owner(survey, user)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status == Survey.Status.DRAFT:
        raise ValidationError(
            "A draft has nothing to archive; delete it instead if you no longer "
            "need it."
        )
    require_not_archived(survey)
    if survey.status == Survey.Status.OPEN:
        survey.status = Survey.Status.CLOSED
        survey.closed_at = timezone.now()
    survey.archived = True
    survey.save(update_fields=["status", "closed_at", "archived", "updated_at"])
    audit.record(user, audit.Action.ARCHIVE, survey)
    return survey


@transaction.atomic
def survey_delete(*, survey: Survey, user) -> int:
    """Delete the survey with everything it holds; return the submissions deleted.

    Reports and unprotected answers go with their submissions; questions,
    spec revisions, invitations, tallies, result snapshots and analysis jobs
    go with the survey.  Nothing of the survey is kept.
    """
    _require_owner(survey, user)
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    submissions = survey.submissions.filter(is_test=False).count()
    # Collection deletes the survey's submissions and reports by survey, so
    # each delete touches the survey's partition only (Django's cascade by
    # submission would read every partition); authoring never imports it.
    audit.record(user, audit.Action.DELETE, survey, f"{submissions} submissions")
    survey_deleting.send(sender=Survey, survey_id=survey.pk)
    survey.delete()
    return submissions
