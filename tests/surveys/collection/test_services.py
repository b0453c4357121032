"""Invitations and ingestion: whole submissions or nothing."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from surveys.authoring.models import Survey
from surveys.collection import selectors, services
from surveys.collection.models import Invitation, PlainAnswer, Report, Submission
from surveys.collection.responses import ResponseIn, SentReport, SubmissionRejected
from surveys.collection.tokens import invitation_token_hash
from tests.surveys.collection.conftest import questions, valid_reports

pytestmark = pytest.mark.django_db


def response(survey: Survey, **changes) -> ResponseIn:
    reports = {
        pk: SentReport(spec_revision=1, payload=payload)
        for pk, payload in valid_reports(survey).items()
    }
    plain = {questions(survey)["plain"].pk: 2}
    fields = {
        "idempotency_key": uuid.uuid4(),
        "survey_revision": survey.revision,
        "reports": reports,
        "plain_answers": plain,
    }
    fields.update(changes)
    return ResponseIn(**fields)


def nothing_stored() -> bool:
    return not (
        Submission.objects.exists()
        or Report.objects.exists()
        or PlainAnswer.objects.exists()
    )


def test_invitations_are_stored_only_as_keyed_hashes(survey):
    tokens = services.invitations_create(survey=survey, count=5)
    assert len(set(tokens)) == 5
    stored = set(Invitation.objects.values_list("token_hash", flat=True))
    assert stored == {invitation_token_hash(t) for t in tokens}
    assert not any(t in h for t in tokens for h in stored)
    # The CSV alone finds nothing: neither plain SHA-256 nor the HMAC under
    # another key matches a stored hash.
    assert stored.isdisjoint(hashlib.sha256(t.encode()).hexdigest() for t in tokens)
    assert stored.isdisjoint(
        invitation_token_hash(t, secret="not-the-server-key") for t in tokens
    )
    assert set(Invitation.objects.values_list("hash_scheme", flat=True)) == {
        "hmac-sha256"
    }


def test_an_invitation_hashed_before_keyed_hashes_works_and_is_rekeyed_on_use(
    survey,
):
    token = "made-by-release-0.1.0-" + "x" * 10
    Invitation.objects.create(
        survey=survey,
        token_hash=hashlib.sha256(token.encode()).hexdigest(),
        hash_scheme="sha256",
    )
    assert selectors.invitation_by_token(token) == Invitation.objects.get()
    services.submission_ingest(
        survey=survey, response=response(survey), invitation_token=token
    )
    invitation = Invitation.objects.get()
    assert invitation.used is True
    assert (invitation.hash_scheme, invitation.token_hash) == (
        "hmac-sha256",
        invitation_token_hash(token),
    )
    assert selectors.invitation_by_token(token) == invitation


def test_an_invitation_made_before_a_key_rotation_works_while_the_old_key_is_listed(
    survey, settings
):
    (token,) = services.invitations_create(survey=survey, count=1)
    old_key = settings.SECRET_KEY
    settings.SECRET_KEY = "a-new-key-" + "k" * 50
    assert selectors.invitation_by_token(token) is None
    settings.SECRET_KEY_FALLBACKS = [old_key]
    assert selectors.invitation_by_token(token) == Invitation.objects.get()
    services.submission_ingest(
        survey=survey, response=response(survey), invitation_token=token
    )
    assert Invitation.objects.get().token_hash == invitation_token_hash(token)


def test_invitation_links_come_out_in_an_order_unrelated_to_the_rows(survey):
    tokens = services.invitations_create(survey=survey, count=200)
    by_row = list(
        Invitation.objects.order_by("id").values_list("token_hash", flat=True)
    )
    assert [invitation_token_hash(t) for t in tokens] != by_row
    assert sorted(invitation_token_hash(t) for t in tokens) == sorted(by_row)


@pytest.mark.parametrize("count", [0, -1, 10_001])
def test_invitations_create_rejects_a_count_out_of_range(survey, count):
    with pytest.raises(ValueError, match="allowed: 1 to 10000"):
        services.invitations_create(survey=survey, count=count)
    assert not Invitation.objects.exists()


def test_ingest_stores_the_whole_submission(survey):
    outcome = services.submission_ingest(survey=survey, response=response(survey))
    assert outcome.created
    assert Report.objects.filter(submission=outcome.submission).count() == 6
    assert PlainAnswer.objects.get().value == 2


def test_ingest_marks_the_invitation_used_and_keeps_no_link_to_it(survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    outcome = services.submission_ingest(
        survey=survey, response=response(survey), invitation_token=token
    )
    invitation = Invitation.objects.get()
    assert invitation.used is True
    assert not any(
        field.related_model is Invitation
        for field in outcome.submission._meta.get_fields()
    )


def test_a_used_invitation_is_refused_with_a_clear_message(survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    services.submission_ingest(
        survey=survey, response=response(survey), invitation_token=token
    )
    with pytest.raises(SubmissionRejected, match="already been used") as caught:
        services.submission_ingest(
            survey=survey, response=response(survey), invitation_token=token
        )
    assert caught.value.status == 409
    assert Submission.objects.count() == 1


def test_an_unknown_invitation_is_refused(survey):
    with pytest.raises(SubmissionRejected, match="not valid") as caught:
        services.submission_ingest(
            survey=survey, response=response(survey), invitation_token="nope"
        )
    assert caught.value.status == 404
    assert nothing_stored()


def test_repeated_key_returns_the_existing_submission(survey):
    first = response(survey)
    stored = services.submission_ingest(survey=survey, response=first).submission
    again = services.submission_ingest(survey=survey, response=first)
    assert not again.created
    assert again.submission == stored
    assert Submission.objects.count() == 1
    assert Report.objects.count() == 6


def test_repeated_key_with_other_reports_is_refused(survey):
    first = response(survey)
    services.submission_ingest(survey=survey, response=first)
    flipped = {
        pk: SentReport(1, 1 - sent.payload if sent.payload in (0, 1) else 0)
        for pk, sent in first.reports.items()
    }
    with pytest.raises(SubmissionRejected, match="already used for different"):
        services.submission_ingest(
            survey=survey,
            response=response(
                survey, idempotency_key=first.idempotency_key, reports=flipped
            ),
        )
    assert Submission.objects.count() == 1


def test_retry_of_an_invitation_submission_gets_its_receipt(survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    first = response(survey)
    stored = services.submission_ingest(
        survey=survey, response=first, invitation_token=token
    ).submission
    again = services.submission_ingest(
        survey=survey, response=first, invitation_token=token
    )
    assert again.submission == stored and not again.created


@pytest.mark.parametrize("payload", [2, -1, True, 1.0, "1", None, [1], {"v": 1}])
def test_rejects_report_outside_the_mechanism_domain(survey, payload):
    warner = questions(survey)["warner"]
    bad = response(survey)
    reports = dict(bad.reports)
    reports[warner.pk] = SentReport(1, payload)
    with pytest.raises(SubmissionRejected, match="not one the randomizer can send"):
        services.submission_ingest(
            survey=survey, response=response(survey, reports=reports)
        )
    assert nothing_stored()


def test_rejects_a_submission_missing_a_report(survey):
    reports = dict(response(survey).reports)
    reports.pop(questions(survey)["grr"].pk)
    with pytest.raises(SubmissionRejected, match="no report arrived"):
        services.submission_ingest(
            survey=survey, response=response(survey, reports=reports)
        )
    assert nothing_stored()


def test_rejects_a_plain_answer_for_a_private_question(survey):
    private = questions(survey)["warner"]
    plain = {questions(survey)["plain"].pk: 1, private.pk: 1}
    with pytest.raises(SubmissionRejected, match="not unprotected"):
        services.submission_ingest(
            survey=survey, response=response(survey, plain_answers=plain)
        )
    assert nothing_stored()


@pytest.mark.parametrize("value", [4, -1, True, "1", None])
def test_rejects_a_plain_answer_that_is_not_an_option(survey, value):
    plain = {questions(survey)["plain"].pk: value}
    with pytest.raises(SubmissionRejected, match="not allowed"):
        services.submission_ingest(
            survey=survey, response=response(survey, plain_answers=plain)
        )
    assert nothing_stored()


def test_rejects_a_report_made_under_another_spec_revision(survey):
    reports = {
        pk: SentReport(spec_revision=2, payload=sent.payload)
        for pk, sent in response(survey).reports.items()
    }
    with pytest.raises(SubmissionRejected, match="changed") as caught:
        services.submission_ingest(
            survey=survey, response=response(survey, reports=reports)
        )
    assert caught.value.status == 409
    assert nothing_stored()


def test_rejects_a_stale_survey_revision(survey):
    with pytest.raises(SubmissionRejected, match="changed") as caught:
        services.submission_ingest(
            survey=survey, response=response(survey, survey_revision=2)
        )
    assert caught.value.status == 409
    assert nothing_stored()


def test_rejects_submissions_to_a_closed_survey(survey):
    survey.status = Survey.Status.CLOSED
    survey.save()
    with pytest.raises(SubmissionRejected, match="not accepting") as caught:
        services.submission_ingest(survey=survey, response=response(survey))
    assert caught.value.status == 410
    assert nothing_stored()


def test_bulk_ingest_rejects_the_whole_batch_for_one_bad_report(survey):
    good = response(survey)
    reports = dict(good.reports)
    reports[questions(survey)["grr"].pk] = SentReport(1, 4)
    with pytest.raises(SubmissionRejected):
        services.submissions_ingest_bulk(
            survey=survey, responses=[good, response(survey, reports=reports)]
        )
    assert nothing_stored()


def test_bulk_ingest_stores_every_response(survey):
    stored = services.submissions_ingest_bulk(
        survey=survey, responses=[response(survey) for _ in range(3)]
    )
    assert stored == 3
    assert Report.objects.count() == 18


@pytest.mark.parametrize("unit", ["day", "hour"])
def test_received_at_is_stored_already_truncated_to_the_setting(survey, settings, unit):
    settings.RECEIVED_AT_GRANULARITY = unit
    outcome = services.submission_ingest(survey=survey, response=response(survey))
    stored = Submission.objects.get(pk=outcome.submission.pk).received_at
    assert (stored.minute, stored.second, stored.microsecond) == (0, 0, 0)
    if unit == "day":
        assert stored.hour == 0
