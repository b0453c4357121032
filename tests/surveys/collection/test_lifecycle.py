"""Respondents and a survey's lifecycle: dates, target, grace, invitation only,
the researcher's preview, and withdrawal from the receipt."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urljoin

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from surveys.analysis.models import Tally
from surveys.analysis.tallies import services as analysis
from surveys.analysis.tallies import snapshots
from surveys.authoring import lifecycle
from surveys.authoring.models import Survey
from surveys.collection import services
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.surveys.analysis.conftest import release
from tests.surveys.collection.conftest import JSON, body

pytestmark = pytest.mark.django_db


def consent_url(survey: Survey) -> str:
    return reverse("collection:consent", args=[survey.public_token])


def respond_url(survey: Survey) -> str:
    return reverse("collection:respond", args=[survey.public_token])


def set_fields(survey: Survey, **fields) -> Survey:
    Survey.objects.filter(pk=survey.pk).update(**fields)
    survey.refresh_from_db()
    return survey


def stamp_from(page: str) -> str:
    marker = 'name="opened" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def submit(client, survey: Survey, **overrides):
    return client.post(respond_url(survey), body(survey, **overrides))


# --- dates and target ---
def test_before_its_opening_date_the_consent_page_says_when_it_opens(client, survey):
    opens = timezone.now() + timedelta(days=3)
    set_fields(survey, opens_at=opens, time_zone="Europe/Paris")
    page = client.get(consent_url(survey))
    assert page.status_code == 403
    text = page.content.decode()
    assert "not open yet" in text
    local = opens.astimezone(lifecycle.survey_zone(survey))
    assert local.strftime("%H:%M") in text
    assert "Europe/Paris" in text


def test_once_its_opening_date_passed_the_survey_is_open_without_any_job(
    client, survey
):
    set_fields(survey, opens_at=timezone.now() - timedelta(seconds=1))
    assert client.get(consent_url(survey)).status_code == 200
    assert submit(client, survey).status_code == 303


def test_a_submission_before_the_opening_date_is_refused_and_nothing_stored(
    client, survey
):
    set_fields(survey, opens_at=timezone.now() + timedelta(hours=1))
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == 410
    assert not Submission.objects.filter(survey=survey).exists()


def test_after_its_closing_date_respondents_see_the_closed_page(client, survey):
    set_fields(survey, closes_at=timezone.now() - timedelta(minutes=1))
    page = client.get(respond_url(survey))
    assert page.status_code == 410
    assert "has closed" in page.content.decode()


def test_the_survey_closes_once_it_has_its_target_number_of_responses(client, survey):
    set_fields(survey, close_at_responses=2)
    assert submit(client, survey).status_code == 303
    assert client.get(consent_url(survey)).status_code == 200
    assert submit(client, survey).status_code == 303
    assert client.get(consent_url(survey)).status_code == 410
    refused = client.post(respond_url(survey), body(survey), **JSON)
    assert refused.status_code == 410
    assert Submission.objects.filter(survey=survey).count() == 2


# --- the grace period ---
def test_a_page_loaded_while_open_may_still_submit_shortly_after_closing(
    client, survey
):
    page = client.get(respond_url(survey)).content.decode()
    set_fields(survey, closes_at=timezone.now() - timedelta(seconds=1))
    response = submit(client, survey, opened=stamp_from(page))
    assert response.status_code == 303
    assert Submission.objects.filter(survey=survey).count() == 1


def test_a_late_submission_without_a_stamp_is_refused(client, survey):
    set_fields(survey, closes_at=timezone.now() - timedelta(seconds=1))
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == 410
    assert response.json()["code"] == "closed"
    assert not Submission.objects.filter(survey=survey).exists()


def test_a_stamp_older_than_the_grace_period_is_refused(client, survey):
    page = client.get(respond_url(survey)).content.decode()
    set_fields(survey, closes_at=timezone.now() - timedelta(seconds=1))
    with override_settings(SUBMISSION_GRACE_SECONDS=-1):
        response = submit(client, survey, opened=stamp_from(page))
    assert response.status_code == 410
    assert not Submission.objects.filter(survey=survey).exists()


def test_a_stamp_of_another_survey_gives_no_grace(client, survey, researcher):
    other = Survey.objects.create(owner=researcher, title="Other", status="open")
    set_fields(survey, closes_at=timezone.now() - timedelta(seconds=1))
    response = submit(client, survey, opened=lifecycle.open_stamp(other))
    assert response.status_code == 410


def test_an_archived_survey_refuses_even_a_stamped_submission(client, survey):
    page = client.get(respond_url(survey)).content.decode()
    set_fields(survey, archived=True, status=Survey.Status.CLOSED)
    response = submit(client, survey, opened=stamp_from(page))
    assert response.status_code == 410
    assert not Submission.objects.filter(survey=survey).exists()


# --- invitation only ---
def test_invitation_only_switches_the_public_link_off(client, survey):
    set_fields(survey, invitation_only=True)
    for url in (consent_url(survey), respond_url(survey)):
        page = client.get(url)
        assert page.status_code == 403
        assert "by invitation only" in page.content.decode()


def test_invitation_only_refuses_a_public_submission_and_stores_nothing(client, survey):
    set_fields(survey, invitation_only=True)
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == 403
    assert response.json()["code"] == "invitation_only"
    assert not Submission.objects.filter(survey=survey).exists()


def test_invitation_only_still_accepts_a_one_response_invitation(client, survey):
    set_fields(survey, invitation_only=True)
    (token,) = services.invitations_create(survey=survey, count=1)
    url = reverse("collection:respond_invitation", args=[token])
    assert client.get(url).status_code == 200
    assert client.post(url, body(survey)).status_code == 303
    assert Submission.objects.filter(survey=survey).count() == 1


# --- preview ---
def test_preview_shows_the_respond_page_of_a_draft_with_its_banner(client, researcher):
    from surveys.authoring import services as authoring
    from surveys.authoring.mechanisms import PrivacyConfig

    draft = authoring.survey_create(owner=researcher, title="Draft")
    authoring.question_create(
        survey=draft, text="Ever cheated?", privacy=PrivacyConfig(kind="yes_no")
    )
    client.force_login(researcher)
    page = client.get(reverse("collection:preview", args=[draft.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Preview: nothing you enter is stored" in text
    assert "Ever cheated?" in text
    assert f'action="{reverse("collection:preview", args=[draft.pk])}"' in text


def test_a_preview_submission_is_refused_and_stores_nothing(client, survey, researcher):
    client.force_login(researcher)
    url = reverse("collection:preview", args=[survey.pk])
    as_json = client.post(url, body(survey), **JSON)
    assert as_json.status_code == 409
    assert as_json.json()["code"] == "preview"
    as_page = client.post(url, body(survey))
    assert as_page.status_code == 409
    assert "Preview: nothing was stored" in as_page.content.decode()
    assert not Submission.objects.filter(survey=survey).exists()
    assert not Report.objects.filter(question__survey=survey).exists()


# --- withdrawal ---
def receipt_code(client, survey: Survey) -> str:
    response = submit(client, survey)
    assert response.status_code == 303
    return response["Location"].rstrip("/").rsplit("/", 1)[-1]


def tallies_of(survey: Survey) -> dict:
    return {
        (t.question_id, t.spec_revision): (t.n, t.stat["counts"])
        for t in Tally.objects.filter(question__survey=survey)
    }


def test_the_receipt_links_to_withdrawal_without_repeating_its_code(client, survey):
    code = receipt_code(client, survey)
    receipt = reverse("collection:receipt", args=[code])
    page = client.get(receipt).content.decode()
    # A link relative to the receipt's own address: /receipt/<code>/withdraw/.
    assert 'href="withdraw/"' in page
    assert urljoin(receipt, "withdraw/") == reverse("collection:withdraw", args=[code])
    assert code not in page


def test_withdrawing_asks_first_and_changes_nothing_until_confirmed(client, survey):
    code = receipt_code(client, survey)
    page = client.get(reverse("collection:withdraw", args=[code]))
    assert page.status_code == 200
    assert "cannot be undone" in page.content.decode()
    assert Submission.objects.filter(survey=survey).count() == 1


def test_withdrawal_deletes_the_reports_and_unprotected_answers(client, survey):
    keep = receipt_code(client, survey)
    code = receipt_code(client, survey)
    done = client.post(reverse("collection:withdraw", args=[code]))
    assert done.status_code == 200
    assert "were withdrawn" in done.content.decode()
    assert Submission.objects.filter(survey=survey).count() == 1
    remaining = Submission.objects.get(survey=survey)
    assert set(Report.objects.filter(question__survey=survey)) == set(
        remaining.reports.all()
    )
    assert PlainAnswer.objects.filter(submission__survey=survey).count() == 1
    assert client.get(reverse("collection:receipt", args=[code])).status_code == 404
    assert client.get(reverse("collection:receipt", args=[keep])).status_code == 200


def test_withdrawal_subtracts_the_reports_from_the_tallies(client, survey):
    for _ in range(3):
        receipt_code(client, survey)
    code = receipt_code(client, survey)
    analysis.tallies_refresh(survey_id=survey.pk)
    client.post(reverse("collection:withdraw", args=[code]))
    subtracted = tallies_of(survey)
    analysis.tallies_recount(survey_id=survey.pk)
    assert subtracted == tallies_of(survey)
    assert {n for n, _ in subtracted.values()} == {3}


def test_withdrawal_recomputes_the_results_snapshot_at_its_watermark(client, survey):
    for _ in range(3):
        receipt_code(client, survey)
    code = receipt_code(client, survey)
    analysis.tallies_refresh(survey_id=survey.pk)
    before = snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    client.post(reverse("collection:withdraw", args=[code]))
    outcome = snapshots.snapshot_after_withdrawal(survey_id=survey.pk)
    assert outcome.advanced
    assert outcome.watermark == before.watermark
    snapshot = survey.result_snapshot.__class__.objects.get(survey=survey)
    assert snapshot.responses == 3
    assert {q["n"] for q in snapshot.document["questions"]} == {3}


def test_withdrawal_of_untallied_reports_leaves_the_tallies_alone(client, survey):
    receipt_code(client, survey)
    analysis.tallies_refresh(survey_id=survey.pk)
    before = tallies_of(survey)
    code = receipt_code(client, survey)
    client.post(reverse("collection:withdraw", args=[code]))
    assert tallies_of(survey) == before


def test_the_withdraw_page_takes_a_receipt_code_or_a_receipt_link(client, survey):
    code = receipt_code(client, survey)
    url = reverse("collection:withdraw_lookup")
    for given in (code, f"https://example.org/s/receipt/{code}/"):
        response = client.post(url, {"code": given})
        assert response.status_code == 302
        assert response["Location"] == reverse("collection:withdraw", args=[code])


def test_an_unknown_receipt_code_is_refused_with_a_clear_message(client, survey):
    response = client.post(reverse("collection:withdraw_lookup"), {"code": "nope"})
    assert response.status_code == 400
    assert "No submission has this receipt code" in response.content.decode()


def test_the_verify_page_links_to_withdrawal(client):
    page = client.get(reverse("collection:verify")).content.decode()
    assert reverse("collection:withdraw_lookup") in page


# --- test responses -------------------------------------------------------------------
def mode_url(survey: Survey) -> str:
    return reverse("collection:test_mode", args=[survey.pk])


def test_test_mode_shows_the_respond_page_with_its_banner(client, survey, researcher):
    client.force_login(researcher)
    page = client.get(mode_url(survey))
    assert page.status_code == 200
    assert "Test mode: what you send is stored as a test response" in (
        page.content.decode()
    )


def test_a_test_submission_is_stored_marked_and_its_receipt_works(
    client, survey, researcher
):
    client.force_login(researcher)
    response = client.post(mode_url(survey), body(survey))
    assert (
        response.status_code == 303
    )  # as the real answer page: See Other after a POST
    stored = Submission.objects.get(survey=survey)
    assert stored.is_test
    assert stored.reports.count() == Report.all_objects.filter(is_test=True).count()
    assert client.get(response["Location"]).status_code == 200


def test_test_reports_never_reach_tallies_or_results(client, survey, researcher):
    submit(client, survey)
    client.force_login(researcher)
    client.post(mode_url(survey), body(survey))
    analysis.tallies_refresh(survey_id=survey.pk)
    outcome = snapshots.snapshot_refresh(survey_id=survey.pk, force=True)
    assert {n for n, _ in tallies_of(survey).values()} == {1}
    snapshot = survey.result_snapshot.__class__.objects.get(survey=survey)
    assert snapshot.responses == 1
    assert outcome.advanced
    assert not Report.objects.filter(question__survey=survey, is_test=True).exists()


def test_test_responses_do_not_count_towards_the_target(client, survey, researcher):
    set_fields(survey, close_at_responses=1)
    client.force_login(researcher)
    client.post(mode_url(survey), body(survey))
    assert lifecycle.survey_availability(survey).is_open


def test_test_mode_works_before_the_opening_date(client, survey, researcher):
    set_fields(survey, opens_at=timezone.now() + timedelta(days=2))
    client.force_login(researcher)
    assert client.post(mode_url(survey), body(survey)).status_code == 303
    assert Submission.objects.get(survey=survey).is_test


def test_test_mode_refuses_an_archived_survey(client, survey, researcher):
    set_fields(survey, archived=True, status=Survey.Status.CLOSED)
    client.force_login(researcher)
    assert client.get(mode_url(survey)).status_code == 409
    assert client.post(mode_url(survey), body(survey), **JSON).status_code == 409
    assert not Submission.objects.filter(survey=survey).exists()


def test_delete_test_responses_removes_only_them_and_keeps_results(
    client, survey, researcher
):
    submit(client, survey)
    client.force_login(researcher)
    client.post(mode_url(survey), body(survey))
    client.post(mode_url(survey), body(survey))
    analysis.tallies_refresh(survey_id=survey.pk)
    before = tallies_of(survey)
    response = client.post(
        reverse("collection:test_responses_delete", args=[survey.pk]), follow=True
    )
    assert "Deleted 2 test responses" in response.content.decode()
    assert list(Submission.objects.filter(survey=survey).values_list("is_test")) == [
        (False,)
    ]
    assert not Report.all_objects.filter(is_test=True).exists()
    assert tallies_of(survey) == before
    analysis.tallies_recount(survey_id=survey.pk)
    assert tallies_of(survey) == before


def test_the_survey_page_shows_test_responses_apart(client, survey, researcher):
    submit(client, survey)
    release(survey)
    client.force_login(researcher)
    client.post(mode_url(survey), body(survey))
    page = client.get(reverse("authoring:survey_detail", args=[survey.pk]))
    text = page.content.decode()
    assert "Test responses: <strong>1</strong>" in text
    assert "1 response " in text
    assert "Delete test responses" in text
