"""Invitation state researchers cannot poll: a link shows as used only once
the release holding its response is out; reminders read the server's own
state at once."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from surveys.analysis.tallies import services as tallies
from surveys.analysis.tallies import snapshots
from surveys.collection import selectors, services
from surveys.collection.models import Recipient
from surveys.collection.responses import ResponseIn, SentReport
from surveys.invitations import recipient_list
from tests.surveys.collection.conftest import questions, valid_reports
from tests.surveys.invitations.test_mailings import PEOPLE, _send

pytestmark = pytest.mark.django_db


def _answer(survey, token: str | None = None) -> None:
    """One response stored and tallied, and the release rule applied."""
    response = ResponseIn(
        idempotency_key=uuid.uuid4(),
        survey_revision=survey.revision,
        reports={
            pk: SentReport(spec_revision=1, payload=payload)
            for pk, payload in valid_reports(survey).items()
        },
        plain_answers={questions(survey)["plain"].pk: 1},
    )
    services.submission_ingest(survey=survey, response=response, invitation_token=token)
    tallies.tallies_refresh(survey_id=survey.pk)
    snapshots.snapshot_refresh(survey_id=survey.pk)


def _shown(client, survey) -> tuple[int, int, str]:
    """(answered recipients, used links, the recipients page) as shown."""
    page = client.get(reverse("collection:recipients", args=[survey.pk]))
    return (
        recipient_list.recipient_counts(survey=survey).answered,
        selectors.invitation_counts(survey=survey)["used"],
        page.content.decode(),
    )


def test_a_used_link_shows_only_once_released_and_reminders_skip_it_at_once(
    smtp, settings, client, researcher, survey
):
    settings.SNAPSHOT_MIN_NEW_SUBMISSIONS = 2
    recipient_list.recipients_add(survey=survey, emails=PEOPLE)
    _send(survey)
    client.force_login(researcher)
    ana = survey.recipients.get(email="ana@example.org")
    _answer(survey, recipient_list.token_for(ana))

    answered, used, page = _shown(client, survey)
    assert (answered, used) == (0, 0)  # held back: fewer than k new responses
    assert "Answered (link used)</th><td>0</td>" in page
    Recipient.objects.update(last_sent_on=timezone.localdate() - timedelta(days=7))
    assert _send(survey, "reminder") == {"sent": 2, "refused": 0}
    assert len(smtp.to("ana@example.org")) == 1  # the server knows she answered

    _answer(survey)  # a second response: a batch of k = 2 is released
    answered, used, page = _shown(client, survey)
    assert (answered, used) == (1, 1)
    assert "Answered (link used)</th><td>1</td>" in page
