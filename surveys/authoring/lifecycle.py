"""Whether a survey takes answers now: decided at request time, never by a clock.

A published survey (status "open") is *open for respondents* only between its
``opens_at`` and ``closes_at`` (either may be empty) and while it has fewer
submissions than ``close_at_responses``.  Nothing has to run at the opening or
closing moment: every respondent page and every submission asks
:func:`survey_availability`, so the embedded default (no beat) behaves exactly
like a deployment with one.  Beat only sends the owner an email when a survey
opened or closed (``surveys.authoring.tasks.notify_survey_transitions``).

Grace period: the respond page carries an *open stamp* (:func:`open_stamp`, a
signed survey id with the time it was signed; nothing of it is stored).  A
submission that arrives after the survey closed is still accepted when its
stamp is valid and younger than ``SUBMISSION_GRACE_SECONDS``: its page was
loaded while the survey was open, and a respondent who was answering must not
lose what they sent.  An archived survey accepts nothing.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from django.conf import settings
from django.core import signing
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from surveys.authoring.models import Survey

STAMP_SALT = "deniable.authoring.open-stamp"


class State(StrEnum):
    DRAFT = "draft"
    NOT_YET = "not_yet"
    OPEN = "open"
    CLOSED = "closed"


class Reason(StrEnum):
    """Why a survey is closed (empty when it is not)."""

    NONE = ""
    BY_HAND = "by_hand"
    DATE = "date"
    TARGET = "target"
    ARCHIVED = "archived"


@dataclass(frozen=True)
class Availability:
    """A survey's state for respondents at one moment."""

    state: State
    reason: Reason = Reason.NONE
    opens_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.state == State.OPEN

    @property
    def automatic(self) -> bool:
        """Closed by its own settings (a date or the target), not by a person."""
        return self.reason in (Reason.DATE, Reason.TARGET)

    @property
    def badge(self) -> str:
        """The state in one or two words, for the badge beside a survey's title:
        a survey closed by its date or target reads "Closed", not "Open"."""
        return {
            State.DRAFT: pgettext("survey state", "Draft"),
            State.NOT_YET: pgettext("survey state", "Not open yet"),
            State.OPEN: pgettext("survey state", "Open"),
            State.CLOSED: pgettext("survey state", "Closed"),
        }[self.state]

    def describe(self) -> str:
        """The state in words, for the builder."""
        return {
            State.DRAFT: pgettext("survey state", "Draft"),
            State.NOT_YET: _("Published, not open yet"),
            State.OPEN: pgettext("survey state", "Open"),
            State.CLOSED: {
                Reason.BY_HAND: pgettext("survey state", "Closed"),
                Reason.DATE: _("Closed (its closing date passed)"),
                Reason.TARGET: _("Closed (it reached its target number of responses)"),
                Reason.ARCHIVED: pgettext("survey state", "Archived"),
            }.get(self.reason, pgettext("survey state", "Closed")),
        }[self.state]


def survey_availability(
    survey: Survey, *, now: datetime | None = None, responses: int | None = None
) -> Availability:
    """Whether ``survey`` takes answers at ``now`` (default: this instant).

    ``responses`` is the number of stored submissions; counted when needed.
    """
    now = now or timezone.now()
    if survey.archived:
        return Availability(State.CLOSED, Reason.ARCHIVED)
    if survey.status == Survey.Status.DRAFT:
        return Availability(State.DRAFT)
    if survey.status == Survey.Status.CLOSED:
        return Availability(State.CLOSED, Reason.BY_HAND)
    if survey.opens_at is not None and now < survey.opens_at:
        return Availability(State.NOT_YET, opens_at=survey.opens_at)
    if survey.closes_at is not None and now >= survey.closes_at:
        return Availability(State.CLOSED, Reason.DATE)
    if survey.close_at_responses is not None:
        count = (
            survey.submissions.filter(is_test=False).count()
            if responses is None
            else responses
        )
        if count >= survey.close_at_responses:
            return Availability(State.CLOSED, Reason.TARGET)
    return Availability(State.OPEN)


def survey_zone(survey: Survey) -> zoneinfo.ZoneInfo:
    """The researcher's time zone for this survey (UTC if unknown)."""
    try:
        return zoneinfo.ZoneInfo(survey.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("UTC")


# --- the grace period ---------------------------------------------------------------
def open_stamp(survey: Survey) -> str:
    """A signed token saying "this page was served while the survey was open"."""
    return signing.TimestampSigner(salt=STAMP_SALT).sign(str(survey.pk))


def stamp_within_grace(survey: Survey, stamp: str) -> bool:
    """Whether ``stamp`` was signed for ``survey`` within the grace period."""
    if not stamp:
        return False
    try:
        value = signing.TimestampSigner(salt=STAMP_SALT).unsign(
            stamp, max_age=settings.SUBMISSION_GRACE_SECONDS
        )
    except signing.BadSignature:  # also SignatureExpired
        return False
    return value == str(survey.pk)


def accepts_submission(survey: Survey, *, within_grace: bool) -> bool:
    """Whether a submission arriving now is stored.

    Open: yes.  Closed, except archived: yes if its page was loaded while open
    within the grace period.  Draft or not open yet: no.
    """
    availability = survey_availability(survey)
    if availability.is_open:
        return True
    return (
        within_grace
        and availability.state == State.CLOSED
        and availability.reason != Reason.ARCHIVED
    )
