"""The schedule form: dates read and shown in the survey's time zone."""

from __future__ import annotations

import zoneinfo
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from surveys.authoring.models import Survey

DATETIME_FORMAT = "%Y-%m-%dT%H:%M"


# The IANA zones of this system's tz database, read once at import.
ZONE_CHOICES = [(name, name) for name in sorted(zoneinfo.available_timezones())]


class ScheduleForm(forms.Form):
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        help_text=_("The opening and closing times below are in this time zone."),
    )
    opens_at = forms.DateTimeField(
        label=_("Opens at"),
        required=False,
        input_formats=[DATETIME_FORMAT],
        widget=forms.DateTimeInput(
            attrs={"type": "datetime-local"}, format=DATETIME_FORMAT
        ),
        help_text=_(
            "Empty: open as soon as it is published. Before this time respondents "
            "see when it opens."
        ),
    )
    closes_at = forms.DateTimeField(
        label=_("Closes at"),
        required=False,
        input_formats=[DATETIME_FORMAT],
        widget=forms.DateTimeInput(
            attrs={"type": "datetime-local"}, format=DATETIME_FORMAT
        ),
        help_text=_("Empty: open until you close it."),
    )
    close_at_responses = forms.IntegerField(
        label=_("Close automatically after this many responses"),
        required=False,
        min_value=1,
        max_value=10_000_000,
        help_text=_("Empty: no limit."),
    )
    invitation_only = forms.BooleanField(
        label=_("Invitation only (switch the public link off)"),
        required=False,
        help_text=_(
            "Only one-response invitation links work; the public link shows a "
            "page saying the survey is by invitation."
        ),
    )

    def __init__(self, *args: Any, survey: Survey, **kwargs: Any):
        zone = zoneinfo.ZoneInfo(survey.time_zone)
        kwargs.setdefault(
            "initial",
            {
                "time_zone": survey.time_zone,
                "opens_at": _local(survey.opens_at, zone),
                "closes_at": _local(survey.closes_at, zone),
                "close_at_responses": survey.close_at_responses,
                "invitation_only": survey.invitation_only,
            },
        )
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = ZONE_CHOICES

    def clean(self) -> dict[str, Any]:
        """Read both times as wall-clock times of the chosen zone, then UTC."""
        cleaned = super().clean()
        name = cleaned.get("time_zone")
        if not name:
            return cleaned
        zone = zoneinfo.ZoneInfo(name)
        for field in ("opens_at", "closes_at"):
            value = cleaned.get(field)
            if value is not None:
                wall = timezone.localtime(value).replace(tzinfo=None)
                cleaned[field] = wall.replace(tzinfo=zone).astimezone(UTC)
        return cleaned


def _local(moment: datetime | None, zone: zoneinfo.ZoneInfo) -> datetime | None:
    """``moment`` as a naive wall-clock time in ``zone`` (what the input shows)."""
    return None if moment is None else moment.astimezone(zone).replace(tzinfo=None)


class PublishForm(forms.Form):
    """Publishing: the confirmation asked when respondents' devices would
    label the survey's protection weak or worse overall."""

    confirm_weak = forms.BooleanField(
        label=_(
            "I have read this and want to publish: respondents will be told that "
            "their answers are protected weakly overall."
        ),
        required=False,
    )
