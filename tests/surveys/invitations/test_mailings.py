"""Email invitations and reminders against a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from surveys.authoring.models import Survey
from surveys.collection.models import Invitation, Recipient
from surveys.invitations import mailings, recipient_list, tasks

pytestmark = pytest.mark.django_db

BASE = "https://survey.example.org/"
PEOPLE = ["ana@example.org", "ben@example.org", "cai@example.org"]
LINK = re.compile(r"https://survey\.example\.org(/s/i/[\w-]+/)")


@pytest.fixture
def listed(survey):
    recipient_list.recipients_add(survey=survey, emails=PEOPLE)
    return survey


def _send(survey, kind="invitation"):
    subject, body = (
        (mailings.DEFAULT_INVITATION_SUBJECT, mailings.DEFAULT_INVITATION_BODY)
        if kind == "invitation"
        else (mailings.DEFAULT_REMINDER_SUBJECT, mailings.DEFAULT_REMINDER_BODY)
    )
    return tasks.send_mailing.delay(survey.pk, kind, BASE, subject, body).result


def _link(message) -> str:
    text = message.get_body(preferencelist=("plain",)).get_content()
    return LINK.search(text).group(1)


# --- the CSV file --------------------------------------------------------------------
def test_a_csv_with_an_email_column_a_bom_and_repeats_is_read():
    raw = (
        "\ufeffname,Email\nAna,ana@example.org\nBen,ben@example.org\n"
        "Ana,ANA@example.org\n"
    )
    found = recipient_list.parse_recipients_csv(raw.encode())
    assert found.emails == ["ana@example.org", "ben@example.org"]
    assert found.duplicates_in_file == 1


def test_a_one_column_file_without_a_header_is_read():
    found = recipient_list.parse_recipients_csv(b"ana@example.org\nben@example.org\n")
    assert found.emails == ["ana@example.org", "ben@example.org"]


def test_bad_lines_are_named_by_number_and_nothing_is_read():
    with pytest.raises(ValidationError) as raised:
        recipient_list.parse_recipients_csv(b"email\nana@example.org\nnot an address\n")
    assert "Line 3: “not an address” is not an email address." in raised.value.messages


def test_several_columns_without_an_email_header_are_refused():
    with pytest.raises(ValidationError, match="none is headed"):
        recipient_list.parse_recipients_csv(b"a,b\nana@example.org,x\n")


def test_the_page_imports_a_file_and_skips_addresses_already_listed(
    client, researcher, listed
):
    client.force_login(researcher)
    url = reverse("collection:recipients", args=[listed.pk])
    upload = SimpleUploadedFile("r.csv", b"ana@example.org\ndia@example.org\n")
    response = client.post(url, {"addresses": upload}, follow=True)
    assert "1 recipient added; 1 already on the list or repeated." in (
        response.content.decode()
    )
    assert listed.recipients.count() == 4


def test_a_bad_upload_changes_nothing_and_says_why(client, researcher, listed):
    client.force_login(researcher)
    url = reverse("collection:recipients", args=[listed.pk])
    upload = SimpleUploadedFile("r.csv", b"dia@example.org\nnope\n")
    response = client.post(url, {"addresses": upload})
    assert response.status_code == 400
    assert "Line 2" in response.content.decode()
    assert listed.recipients.count() == 3


def test_another_researcher_cannot_see_the_recipients(
    client, django_user_model, listed
):
    client.force_login(django_user_model.objects.create_user("eve", password="x" * 12))
    url = reverse("collection:recipients", args=[listed.pk])
    assert client.get(url).status_code == 404


# --- sending ------------------------------------------------------------------
def test_each_recipient_gets_one_email_with_their_own_working_link(
    client, smtp, listed
):
    assert _send(listed) == {"sent": 3, "refused": 0}
    links = {address: _link(smtp.to(address)[0]) for address in PEOPLE}
    assert len(set(links.values())) == 3
    assert client.get(links["ana@example.org"]).status_code == 200
    assert set(listed.recipients.values_list("state", flat=True)) == {"sent"}


def test_emails_carry_a_one_click_unsubscribe_header_and_an_html_part(smtp, listed):
    _send(listed)
    message = smtp.to("ben@example.org")[0]
    assert (
        message["List-Unsubscribe"].strip().startswith("<https://survey.example.org/s/")
    )
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.get_body(preferencelist=("html",)) is not None


def test_only_a_hash_of_each_link_is_stored(smtp, listed):
    _send(listed)
    token = _link(smtp.to("ana@example.org")[0]).split("/")[-2]
    stored = list(Invitation.objects.values_list("token_hash", flat=True))
    assert token not in stored
    assert not Recipient.objects.filter(salt=token).exists()


def test_a_permanent_refusal_is_recorded_and_the_others_are_sent(smtp, listed):
    smtp.refuse.add("ben@example.org")
    assert _send(listed) == {"sent": 2, "refused": 1}
    ben = listed.recipients.get(email="ben@example.org")
    assert ben.state == "refused"
    assert ben.refusal.startswith("550")


def test_a_temporary_failure_is_retried_and_delivered_once(smtp, listed):
    smtp.temporary["cai@example.org"] = 1
    assert _send(listed) == {"sent": 3, "refused": 0}
    assert len(smtp.to("cai@example.org")) == 1
    assert len(smtp.messages) == 3


def test_sending_again_sends_nothing_twice(smtp, listed):
    _send(listed)
    assert _send(listed) == {"sent": 0, "refused": 0}
    assert len(smtp.messages) == 3


def test_a_reminder_repeats_the_link_to_those_who_did_not_answer(smtp, listed):
    _send(listed)
    first = {a: _link(smtp.to(a)[0]) for a in PEOPLE}
    ana = listed.recipients.get(email="ana@example.org")
    Invitation.objects.filter(pk=ana.invitation_id).update(used=True)
    Recipient.objects.update(last_sent_on=timezone.localdate() - timedelta(days=7))
    assert _send(listed, "reminder") == {"sent": 2, "refused": 0}
    assert len(smtp.to("ana@example.org")) == 1
    assert _link(smtp.to("ben@example.org")[1]) == first["ben@example.org"]


def test_no_reminder_before_the_minimum_gap(smtp, listed):
    _send(listed)
    assert _send(listed, "reminder") == {"sent": 0, "refused": 0}


def test_a_one_click_unsubscribe_stops_reminders(client, smtp, listed):
    _send(listed)
    url = smtp.to("cai@example.org")[0]["List-Unsubscribe"].strip().strip("<>")
    path = url.removeprefix("https://survey.example.org")
    assert client.post(path).status_code == 200  # no CSRF token: RFC 8058
    Recipient.objects.update(last_sent_on=timezone.localdate() - timedelta(days=7))
    _send(listed, "reminder")
    assert len(smtp.to("cai@example.org")) == 1
    assert listed.recipients.get(email="cai@example.org").state == "unsubscribed"


def test_a_forged_unsubscribe_link_is_refused(client, listed):
    response = client.post(reverse("collection:unsubscribe", args=["forged"]))
    assert response.status_code == 404
    assert not listed.recipients.filter(state="unsubscribed").exists()


def test_a_mailing_needs_the_link_placeholder():
    with pytest.raises(ValidationError):
        mailings.validate_template("Hi", "No link here")


def _send_from_page(client, survey, subject="Hi", body="Go {link}"):
    """The researcher's "Send invitations" form, posted; the page it leads to."""
    return client.post(
        reverse("collection:recipients_send", args=[survey.pk]),
        {
            "invitation-kind": "invitation",
            "invitation-subject": subject,
            "invitation-body": body,
        },
        follow=True,
    )


def test_the_send_page_refuses_a_closed_survey_and_sends_nothing(
    client, researcher, smtp, listed
):
    Survey.objects.filter(pk=listed.pk).update(status=Survey.Status.CLOSED)
    client.force_login(researcher)
    response = _send_from_page(client, listed)
    assert "Nothing was sent." in response.content.decode()
    assert smtp.messages == []


def test_the_send_page_sends_with_the_researchers_text(
    client, researcher, smtp, listed
):
    client.force_login(researcher)
    response = _send_from_page(
        client, listed, subject="Please answer {title}", body="Your link: {link}"
    )
    assert "3 emails sent; 0 refused" in response.content.decode()
    assert smtp.messages[0]["Subject"] == f"Please answer {listed.title}"


# --- retention and dates ------------------------------------------------------
def test_addresses_are_emptied_after_the_retention_period(settings, listed):
    settings.RECIPIENT_RETENTION_DAYS = 30
    closed = timezone.now() - timedelta(days=31)
    Survey.objects.filter(pk=listed.pk).update(status="closed", closed_at=closed)
    assert recipient_list.purge_addresses() == 3
    assert set(listed.recipients.values_list("email", flat=True)) == {""}
    assert recipient_list.recipient_counts(survey=listed).total == 3


def test_addresses_stay_within_the_retention_period(settings, listed):
    settings.RECIPIENT_RETENTION_DAYS = 30
    closed = timezone.now() - timedelta(days=29)
    Survey.objects.filter(pk=listed.pk).update(status="closed", closed_at=closed)
    assert recipient_list.purge_addresses() == 0


def test_a_recipient_keeps_days_never_times():
    kinds = {
        f.name: f.get_internal_type()
        for f in Recipient._meta.get_fields()
        if hasattr(f, "get_internal_type")
    }
    assert "DateTimeField" not in kinds.values()


def test_an_unreachable_mail_server_sends_nothing_and_says_so(
    client, settings, researcher, listed
):
    from tests.surveys.invitations.smtp_server import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()
    settings.EMAIL_RETRY_MAX, settings.EMAIL_RETRY_SECONDS = 1, 0
    client.force_login(researcher)
    response = _send_from_page(client, listed)
    assert "The mail server could not take the emails" in response.content.decode()
    assert set(listed.recipients.values_list("state", flat=True)) == {"pending"}
    assert set(listed.recipients.values_list("invitations_sent", flat=True)) == {0}
