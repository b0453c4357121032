"""A survey's lifecycle in the builder: availability, schedule, notifications,
archive and delete."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from surveys.authoring import lifecycle, lifecycle_services, services
from surveys.authoring.lifecycle import Reason, State, survey_availability
from surveys.authoring.lifecycle_forms import ScheduleForm
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question, Survey
from surveys.collection.models import Report, Submission

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def published(survey, ada):
    ada.email = "ada@example.org"
    ada.save()
    return services.survey_publish(survey=survey, user=ada)


def with_fields(survey: Survey, **fields) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(**fields)
    survey.refresh_from_db()
    return survey


# --- availability ---
def test_a_draft_is_not_available(survey):
    assert survey_availability(survey, now=NOW).state == State.DRAFT


def test_a_published_survey_without_dates_is_open(published):
    assert survey_availability(published, now=NOW).is_open


def test_before_opens_at_the_survey_is_not_open_yet(published):
    opens = NOW + timedelta(minutes=1)
    with_fields(published, opens_at=opens)
    availability = survey_availability(published, now=NOW)
    assert availability.state == State.NOT_YET
    assert availability.opens_at == opens


def test_from_opens_at_the_survey_is_open(published):
    with_fields(published, opens_at=NOW)
    assert survey_availability(published, now=NOW).is_open


def test_from_closes_at_the_survey_is_closed_by_date(published):
    with_fields(published, closes_at=NOW)
    availability = survey_availability(published, now=NOW)
    assert (availability.state, availability.reason) == (State.CLOSED, Reason.DATE)
    assert availability.automatic


def test_at_its_target_the_survey_is_closed_by_target(published, respond):
    with_fields(published, close_at_responses=1)
    assert survey_availability(published, now=NOW).is_open
    respond(published)
    availability = survey_availability(published, now=NOW)
    assert availability.reason == Reason.TARGET


def test_closing_by_hand_is_not_automatic(published, ada):
    closed = services.survey_close(survey=published, user=ada)
    availability = survey_availability(closed, now=NOW)
    assert availability.reason == Reason.BY_HAND
    assert not availability.automatic


def test_an_archived_survey_accepts_nothing_even_within_grace(published, ada):
    archived = lifecycle_services.survey_archive(survey=published, user=ada)
    assert survey_availability(archived).reason == Reason.ARCHIVED
    assert not lifecycle.accepts_submission(archived, within_grace=True)


def test_a_survey_not_open_yet_gives_no_grace(published):
    with_fields(published, opens_at=timezone.now() + timedelta(days=1))
    assert not lifecycle.accepts_submission(published, within_grace=True)


# --- the schedule form and service ---
def test_schedule_times_are_read_in_the_chosen_time_zone_and_stored_in_utc(
    published,
):
    form = ScheduleForm(
        {
            "time_zone": "America/New_York",
            "opens_at": "2026-07-01T09:00",
            "closes_at": "2026-07-02T17:30",
        },
        survey=published,
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["opens_at"] == datetime(2026, 7, 1, 13, 0, tzinfo=UTC)
    assert form.cleaned_data["closes_at"] == datetime(2026, 7, 2, 21, 30, tzinfo=UTC)


def test_the_schedule_form_shows_stored_times_in_the_survey_time_zone(published):
    with_fields(
        published,
        time_zone="Asia/Tokyo",
        opens_at=datetime(2026, 7, 1, 0, 0, tzinfo=UTC),
    )
    form = ScheduleForm(survey=published)
    assert 'value="2026-07-01T09:00"' in str(form["opens_at"])


def test_a_closing_time_before_the_opening_time_is_refused(published, ada):
    with pytest.raises(ValidationError) as refused:
        lifecycle_services.survey_schedule_update(
            survey=published,
            user=ada,
            opens_at=NOW,
            closes_at=NOW - timedelta(hours=1),
            time_zone="UTC",
            close_at_responses=None,
            invitation_only=False,
        )
    assert "after the opening time" in str(refused.value)
    published.refresh_from_db()
    assert published.opens_at is None


def test_the_schedule_page_saves_dates_target_and_invitation_only(
    ada_client, published
):
    response = ada_client.post(
        reverse("authoring:survey_schedule", args=[published.pk]),
        {
            "time_zone": "Europe/Berlin",
            "opens_at": "2026-07-01T10:00",
            "closes_at": "",
            "close_at_responses": "500",
            "invitation_only": "on",
        },
    )
    assert response.status_code == 302
    published.refresh_from_db()
    assert published.opens_at == datetime(2026, 7, 1, 8, 0, tzinfo=UTC)
    assert published.closes_at is None
    assert published.close_at_responses == 500
    assert published.invitation_only


def test_a_bad_schedule_says_why_and_changes_nothing(ada_client, published):
    response = ada_client.post(
        reverse("authoring:survey_schedule", args=[published.pk]),
        {"time_zone": "Nowhere/Atlantis", "close_at_responses": "0"},
    )
    assert response.status_code == 400
    text = response.content.decode()
    assert "Nothing was saved" in text
    published.refresh_from_db()
    assert (published.time_zone, published.close_at_responses) == ("UTC", None)


def test_the_detail_page_hides_the_public_link_of_an_invitation_only_survey(
    ada_client, published
):
    public = reverse("collection:consent", args=[published.public_token])
    assert (
        public
        in ada_client.get(
            reverse("authoring:survey_detail", args=[published.pk])
        ).content.decode()
    )
    with_fields(published, invitation_only=True)
    page = ada_client.get(reverse("authoring:survey_detail", args=[published.pk]))
    assert public not in page.content.decode()
    assert "Invitation only" in page.content.decode()


def badges(html: str) -> list[tuple[str, str]]:
    """The status badges on a page, as (data-state, text)."""
    return re.findall(
        r'<span class="status [^"]*" data-state="(\w+)">([^<]*)</span>', html
    )


def test_a_survey_closed_by_its_target_is_badged_closed_everywhere(
    ada_client, published, respond
):
    with_fields(published, close_at_responses=1)
    respond(published)
    pages = [
        reverse("authoring:survey_detail", args=[published.pk]),
        reverse("authoring:survey_list"),
        reverse("analysis:dashboard", args=[published.pk]),
    ]
    for url in pages:
        assert badges(ada_client.get(url).content.decode()) == [("closed", "Closed")]


def test_a_survey_before_its_opening_time_is_badged_not_open_yet(ada_client, published):
    with_fields(published, opens_at=timezone.now() + timedelta(days=1))
    page = ada_client.get(reverse("authoring:survey_detail", args=[published.pk]))
    assert badges(page.content.decode()) == [("not_yet", "Not open yet")]


def test_each_date_on_the_survey_page_names_its_time_zone(ada_client, published):
    with_fields(
        published,
        time_zone="Europe/Paris",
        opens_at=datetime(2026, 6, 1, 10, 0, tzinfo=UTC),
        closes_at=datetime(2026, 7, 1, 10, 0, tzinfo=UTC),
    )
    text = ada_client.get(
        reverse("authoring:survey_detail", args=[published.pk])
    ).content.decode()
    assert "Opens 1 Jun 2026, 12:00 (Europe/Paris)." in text
    assert "Closes 1 Jul 2026, 12:00 (Europe/Paris)." in text


# --- notifications ---
def test_the_owner_is_emailed_once_when_the_survey_opens_at_its_date(published):
    with_fields(published, opens_at=NOW - timedelta(minutes=1))
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 1, "closed": 0}
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 0, "closed": 0}
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["ada@example.org"]
    assert "is now open" in mail.outbox[0].subject


def test_no_email_before_the_opening_date(published):
    with_fields(published, opens_at=NOW + timedelta(minutes=1))
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 0, "closed": 0}
    assert not mail.outbox


def test_the_owner_is_emailed_once_when_the_survey_closes_at_its_target(
    published, respond
):
    with_fields(published, close_at_responses=1)
    respond(published)
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 0, "closed": 1}
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 0, "closed": 0}
    assert "has closed" in mail.outbox[0].subject


def test_a_survey_whose_dates_both_passed_gets_only_the_closing_email(published):
    with_fields(
        published,
        opens_at=NOW - timedelta(hours=2),
        closes_at=NOW - timedelta(hours=1),
    )
    assert lifecycle_services.notify_transitions(now=NOW) == {"opened": 0, "closed": 1}
    assert len(mail.outbox) == 1


def test_moving_the_closing_date_lets_the_next_closing_be_notified(published, ada):
    with_fields(published, closes_at=NOW - timedelta(hours=1))
    lifecycle_services.notify_transitions(now=NOW)
    published.refresh_from_db()
    lifecycle_services.survey_schedule_update(
        survey=published,
        user=ada,
        opens_at=None,
        closes_at=NOW + timedelta(hours=1),
        time_zone="UTC",
        close_at_responses=None,
        invitation_only=False,
    )
    later = NOW + timedelta(hours=2)
    assert lifecycle_services.notify_transitions(now=later) == {
        "opened": 0,
        "closed": 1,
    }


def test_the_beat_task_sends_the_notifications(published):
    from surveys.authoring.tasks import notify_survey_transitions

    with_fields(published, opens_at=timezone.now() - timedelta(minutes=1))
    assert notify_survey_transitions() == {"opened": 1, "closed": 0}
    assert len(mail.outbox) == 1


def test_the_beat_schedule_runs_the_notifications(settings):
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "surveys.authoring.tasks.notify_survey_transitions" in tasks


# --- archive ---
def test_archiving_closes_the_survey_and_keeps_its_responses(published, ada, respond):
    respond(published)
    archived = lifecycle_services.survey_archive(survey=published, user=ada)
    assert (archived.status, archived.archived) == (Survey.Status.CLOSED, True)
    assert archived.closed_at is not None
    assert Submission.objects.filter(survey=archived).count() == 1


def test_a_draft_cannot_be_archived(survey, ada):
    with pytest.raises(ValidationError):
        lifecycle_services.survey_archive(survey=survey, user=ada)


def test_an_archived_survey_is_read_only(published, ada):
    archived = lifecycle_services.survey_archive(survey=published, user=ada)
    with pytest.raises(ValidationError, match="archived"):
        services.survey_reopen(survey=archived, user=ada)
    with pytest.raises(ValidationError, match="archived"):
        services.question_create(
            survey=archived, text="More?", privacy=PrivacyConfig(kind="yes_no")
        )
    question = archived.questions.first()
    with pytest.raises(ValidationError, match="archived"):
        services.question_delete(question=question)
    assert archived.questions.count() == 2


def test_an_archived_surveys_page_offers_no_change_to_its_questions(
    ada_client, published, ada, respond
):
    respond(published)
    lifecycle_services.survey_archive(survey=published, user=ada)
    question = published.questions.first()
    text = ada_client.get(
        reverse("authoring:survey_detail", args=[published.pk])
    ).content.decode()
    for url in (
        reverse("authoring:question_create", args=[published.pk]),
        reverse("authoring:grid_create", args=[published.pk]),
        reverse("authoring:question_edit", args=[published.pk, question.pk]),
        reverse("authoring:question_move", args=[published.pk, question.pk]),
    ):
        assert url not in text
    assert "Duplicate" in text
    # Nor does it say how a change to a question would be handled.
    assert "specs are frozen" not in text


def test_the_list_hides_archived_surveys_unless_asked(ada_client, published, ada):
    lifecycle_services.survey_archive(survey=published, user=ada)
    url = reverse("authoring:survey_list")
    hidden = ada_client.get(url).content.decode()
    assert published.title not in hidden.split("</h1>", 1)[1]
    assert "1 archived survey hidden" in hidden
    shown = ada_client.get(url + "?archived=1").content.decode()
    assert reverse("authoring:survey_detail", args=[published.pk]) in shown


def test_the_archive_button_archives_and_says_so(ada_client, published):
    response = ada_client.post(
        reverse("authoring:survey_archive", args=[published.pk]), follow=True
    )
    assert "Archived: the survey is closed and read-only" in response.content.decode()
    published.refresh_from_db()
    assert published.archived


# --- delete ---
def test_the_delete_page_offers_the_export_first(ada_client, published):
    page = ada_client.get(reverse("authoring:survey_delete", args=[published.pk]))
    text = page.content.decode()
    assert "Export first" in text
    assert reverse("analysis:export_reports_csv", args=[published.pk]) in text
    assert reverse("analysis:export_estimates_csv", args=[published.pk]) in text


def test_the_delete_page_suggests_archiving_only_a_survey_not_archived_yet(
    ada_client, published, ada
):
    url = reverse("authoring:survey_delete", args=[published.pk])
    assert "Or archive the survey instead" in ada_client.get(url).content.decode()
    lifecycle_services.survey_archive(survey=published, user=ada)
    text = ada_client.get(url).content.decode()
    assert "Or archive the survey instead" not in text
    assert "Export first" in text


def test_delete_without_the_typed_title_changes_nothing(ada_client, published):
    response = ada_client.post(
        reverse("authoring:survey_delete", args=[published.pk]),
        {"confirm_title": "wrong"},
    )
    assert response.status_code == 400
    assert "Nothing was deleted" in response.content.decode()
    assert Survey.objects.filter(pk=published.pk).exists()


def test_deleting_a_survey_deletes_its_reports_and_answers(
    ada_client, published, client
):
    from tests.surveys.collection.conftest import body

    respondent = type(client)()
    respond_url = reverse("collection:respond", args=[published.public_token])
    assert respondent.post(respond_url, body(published)).status_code == 303
    assert Report.objects.filter(question__survey=published).exists()
    response = ada_client.post(
        reverse("authoring:survey_delete", args=[published.pk]),
        {"confirm_title": published.title},
    )
    assert response.status_code == 302
    assert not Survey.objects.filter(pk=published.pk).exists()
    assert not Submission.objects.filter(survey_id=published.pk).exists()
    assert not Report.objects.filter(question__survey_id=published.pk).exists()
    assert not Question.objects.filter(survey_id=published.pk).exists()
