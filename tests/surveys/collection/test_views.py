"""Respondent pages, the verify page and the owner's invitations page."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import uuid

import pytest
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

from surveys.authoring import compiled
from surveys.authoring import services as authoring
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import assets, selectors, services
from surveys.collection.models import Invitation, Report, Submission
from tests.surveys.collection.conftest import JSON, body, questions, valid_reports

CSRF_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')

pytestmark = pytest.mark.django_db


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def respond_url(survey: Survey) -> str:
    return reverse("collection:respond", args=[survey.public_token])


# --- consent ------------------------------------------------------------------------
# What the consent page says about protection is written by the device from the
# specs (tests/system/test_device_promise.py reads it in Chromium); the server
# sends the specs and the hashed scripts, and no privacy figure of its own.
def device_config(page: str) -> dict:
    found = re.search(
        r'<script id="device-config" type="application/json">(.*?)</script>',
        page,
        re.S,
    )
    assert found, "no device-config data block"
    return json.loads(found.group(1))


def test_consent_page_carries_no_server_written_privacy_figure(client, survey):
    text = client.get(
        reverse("collection:consent", args=[survey.public_token])
    ).content.decode()
    page_text = text.split('<script id="device-config"')[0]
    assert "ε" not in page_text
    assert "Protected" not in page_text
    assert "%" not in page_text.split("<main", 1)[1]


def test_consent_page_gives_the_device_every_protected_spec(client, survey):
    text = client.get(
        reverse("collection:consent", args=[survey.public_token])
    ).content.decode()
    config = device_config(text)
    private = {q.pk: q for q in survey.questions.filter(is_private=True)}
    assert {q["id"]: q["spec"] for q in config["questions"]} == {
        pk: q.spec for pk, q in private.items()
    }
    assert config["plain"] == [questions(survey)["plain"].pk]
    assert config["page"] == "consent"
    assert config["survey"] == survey.public_token
    for question in survey.questions.all():
        assert f'data-protection-for="{question.pk}"' in text
    assert reverse("collection:verify") in text
    assert respond_url(survey) in text
    assert reverse("collection:declined") in text


def test_consent_page_loads_the_device_modules_with_their_hashes(client, survey):
    text = client.get(
        reverse("collection:consent", args=[survey.public_token])
    ).content.decode()
    for name, script in (
        ("collection:randomizer", assets.randomizer_script()),
        ("collection:wording", assets.wording_script()),
    ):
        assert (
            f'<link rel="modulepreload" href="{reverse(name)}" '
            f'integrity="{script.integrity}"'
        ) in text
    assert f'integrity="{assets.respond_script().integrity}"' in text


def test_consent_and_answer_pages_link_every_part_of_the_page_script_with_its_hash(
    client, survey
):
    parts = zip(assets.RESPOND_PARTS, assets.respond_part_scripts(), strict=True)
    links = [
        f'<link rel="modulepreload" href="{static(f"js/{script.name}")}" '
        f'integrity="{script.integrity}" data-respond-part="{part}">'
        for part, script in parts
    ]
    for url in (
        reverse("collection:consent", args=[survey.public_token]),
        respond_url(survey),
    ):
        text = client.get(url).content.decode()
        assert [link for link in links if link in text] == links, url


def test_no_thanks_page_says_nothing_was_recorded(client):
    page = client.get(reverse("collection:declined"))
    assert page.status_code == 200
    assert "Nothing was recorded" in page.content.decode()


def test_draft_survey_is_not_found(client, researcher):
    draft = Survey.objects.create(owner=researcher, title="Draft")
    assert (
        client.get(reverse("collection:consent", args=[draft.public_token])).status_code
        == 404
    )
    assert client.get(respond_url(draft)).status_code == 404


def test_closed_survey_says_so(client, survey):
    survey.status = Survey.Status.CLOSED
    survey.save()
    page = client.get(respond_url(survey))
    assert page.status_code == 410
    assert "no longer accepts answers" in page.content.decode()


# --- scripts and the verify page ------------------------------------------------------
def test_randomizer_is_served_byte_for_byte_with_its_hash_on_the_page(client, survey):
    served = client.get(reverse("collection:randomizer"))
    assert served["Content-Type"].startswith("text/javascript")
    page = client.get(respond_url(survey)).content.decode()
    assert (
        f'<link rel="modulepreload" href="{reverse("collection:randomizer")}" '
        f'integrity="{sri(served.content)}"'
    ) in page
    assert served.content == assets.RANDOMIZER_PATH.read_bytes()


def test_page_script_carries_the_hash_of_the_static_file(client, survey):
    page = client.get(respond_url(survey)).content.decode()
    scripts = re.findall(r"<script[^>]*>", page)
    module = [s for s in scripts if 'type="module"' in s]
    assert len(module) == 1
    assert f'integrity="{sri(assets.respond_script().source)}"' in module[0]
    # The only other <script> is the JSON data block (never executed).
    assert [s for s in scripts if s not in module] == [
        '<script id="device-config" type="application/json">'
    ]


def test_verify_page_shows_the_sources_and_their_sha384(client):
    page = client.get(reverse("collection:verify")).content.decode()
    randomizer = assets.RANDOMIZER_PATH.read_bytes()
    assert sri(randomizer) in page
    assert sri(assets.respond_script().source) in page
    assert sri(assets.WORDING_PATH.read_bytes()) in page
    assert "crypto.getRandomValues" in page
    assert "export function randomize(spec, answer)" in page
    assert (
        "export function describeQuestion(spec, verdict, design = &quot;&quot;)" in page
    )
    # The limit, stated where the fingerprints are shown.
    assert "What this page cannot prove" in page
    assert "out of band" in page


def test_submit_button_is_disabled_until_the_script_runs(client, survey):
    page = client.get(respond_url(survey)).content.decode()
    assert '<button type="submit" disabled>' in page
    assert "<noscript>" in page and "needs JavaScript" in page


# --- submitting ---------------------------------------------------------------------
def test_submission_returns_a_receipt_url(client, survey):
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == 201
    assert response.json()["receipt_url"].startswith("/s/receipt/")
    assert Submission.objects.count() == 1


def test_form_post_without_javascript_redirects_to_the_receipt(client, survey):
    response = client.post(respond_url(survey), body(survey))
    assert response.status_code == 303
    assert response["Location"].startswith("/s/receipt/")


def test_submission_without_reports_is_refused_whole(client, survey):
    data = {k: v for k, v in body(survey).items() if not k.endswith("_report")}
    response = client.post(respond_url(survey), data)
    assert response.status_code == 400
    assert "needs JavaScript" in response.content.decode()
    assert not Submission.objects.exists() and not Report.objects.exists()


def test_retry_with_the_same_body_returns_the_receipt_under_a_new_code(client, survey):
    data = body(survey)
    first = client.post(respond_url(survey), data, **JSON)
    first_receipt = client.get(first.json()["receipt_url"])
    second = client.post(respond_url(survey), data, **JSON)
    assert (first.status_code, second.status_code) == (201, 200)
    assert Submission.objects.count() == 1
    assert first.json()["receipt_url"] != second.json()["receipt_url"]
    second_receipt = client.get(second.json()["receipt_url"])
    assert second_receipt.status_code == 200
    # The same page but for the language picker's CSRF token (masked anew).
    assert CSRF_TOKEN.sub("", first_receipt.content.decode()) == CSRF_TOKEN.sub(
        "", second_receipt.content.decode()
    )
    # Only the newest code works: the stored hash was replaced.
    assert client.get(first.json()["receipt_url"]).status_code == 404


def test_receipt_shows_what_the_device_sent_and_nothing_else(client, survey):
    q = questions(survey)
    reports = valid_reports(survey) | {
        q["forced_response"].pk: 1,
        q["warner"].pk: 0,
        q["grr"].pk: 3,
    }
    response = client.post(
        respond_url(survey), body(survey, reports=reports, plain=2), **JSON
    )
    text = client.get(response.json()["receipt_url"]).content.decode()
    assert (
        "Your device sent: <strong>a randomized yes/no answer, “Yes”</strong>. "
        "This may differ from what you chose."
    ) in text
    assert (
        "Your device sent: <strong>a randomized yes/no answer, “No”</strong>." in text
    )
    assert "<strong>a randomized choice, “100,000 or more”</strong>." in text
    assert "You answered: <strong>45 to 64</strong> (not protected" in text
    assert "Why this protects you" in text


def test_forged_receipt_is_not_found(client):
    assert (
        client.get(reverse("collection:receipt", args=["1:forged:sig"])).status_code
        == 404
    )


def test_stale_page_gets_a_conflict_and_nothing_is_stored(client, survey):
    response = client.post(
        respond_url(survey), body(survey, survey_revision="9"), **JSON
    )
    assert response.status_code == 409
    assert "Reload the page" in response.json()["error"]
    assert not Submission.objects.exists()


def test_a_post_after_a_re_publish_since_its_page_is_refused_as_stale(
    client, survey, researcher
):
    assert client.get(respond_url(survey)).status_code == 200
    data = body(survey)  # the revision the page was loaded at
    authoring.survey_publish(survey=survey, user=researcher)
    response = client.post(respond_url(survey), data, **JSON)
    assert (response.status_code, response.json()["code"]) == (409, "stale")
    assert not Submission.objects.exists()


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"status": Survey.Status.CLOSED}, 410, "closed"),  # closed by hand
        ({"invitation_only": True}, 403, "invitation_only"),  # public link off
        ({"status": Survey.Status.DRAFT}, 404, None),  # made a draft again
    ],
    ids=["closed", "invitation-only", "draft"],
)
def test_a_post_after_the_survey_changed_since_its_page_is_answered_as_it_is_now(
    client, survey, change, status, code
):
    assert client.get(respond_url(survey)).status_code == 200
    Survey.objects.filter(pk=survey.pk).update(**change)
    response = client.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == status
    if code is not None:
        assert response.json()["code"] == code
    assert not Submission.objects.exists()


def test_a_post_after_a_text_only_edit_since_its_page_is_stored(client, survey):
    assert client.get(respond_url(survey)).status_code == 200
    Survey.objects.filter(pk=survey.pk).update(title="A retitled survey")
    question = survey.questions.first()
    Question.objects.filter(pk=question.pk).update(text="A reworded question?")
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert Submission.objects.count() == 1


def test_a_refusal_words_the_question_as_it_reads_now(client, survey):
    private = survey.questions.filter(is_private=True).first()
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    Question.objects.filter(pk=private.pk).update(text="A reworded question?")
    refused = client.post(
        respond_url(survey), body(survey, **{f"q{private.pk}_report": "{"}), **JSON
    )
    assert refused.status_code == 400
    assert "A reworded question?" in refused.json()["error"]


@pytest.mark.parametrize("edit", ["question text", "re-publish"])
def test_the_answer_page_shows_an_edit_at_once(client, survey, researcher, edit):
    assert client.get(respond_url(survey)).status_code == 200
    if edit == "re-publish":
        survey = authoring.survey_publish(survey=survey, user=researcher)
        expected = f'name="survey_revision" value="{survey.revision}"'
    else:
        question = survey.questions.first()
        Question.objects.filter(pk=question.pk).update(text="A reworded question?")
        expected = "A reworded question?"
    assert expected in client.get(respond_url(survey)).content.decode()


def test_a_warm_answer_page_and_post_compile_no_mechanism(client, survey):
    client.get(respond_url(survey))
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    misses = compiled.cache_info().misses
    client.get(respond_url(survey))
    assert client.post(respond_url(survey), body(survey), **JSON).status_code == 201
    assert compiled.cache_info().misses == misses


# --- invitations --------------------------------------------------------------------
def invitations_url(survey: Survey) -> str:
    return reverse("collection:invitations", args=[survey.pk])


def test_owner_downloads_invitation_links_as_csv(client, survey, researcher):
    client.force_login(researcher)
    response = client.post(invitations_url(survey), {"count": "3"})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert "no-store" in response["Cache-Control"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["invitation_url"]
    assert len(rows) == 4
    for (url,) in rows[1:]:
        assert url.startswith("http://testserver/s/i/")
        token = url.rstrip("/").rsplit("/", 1)[1]
        assert selectors.invitation_by_token(token) is not None


def test_invitation_form_rejects_a_bad_count(client, survey, researcher):
    client.force_login(researcher)
    response = client.post(invitations_url(survey), {"count": "0"})
    assert response.status_code == 200
    assert "greater than or equal to 1" in response.content.decode()
    assert not Invitation.objects.exists()


def test_another_researcher_gets_not_found(client, survey, django_user_model):
    other = django_user_model.objects.create_user("eve", password="pw-eve-12345")
    client.force_login(other)
    assert client.get(invitations_url(survey)).status_code == 404
    assert client.post(invitations_url(survey), {"count": "1"}).status_code == 404
    assert not Invitation.objects.exists()


def test_anonymous_visitor_is_sent_to_sign_in(client, survey):
    response = client.get(invitations_url(survey))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_invitation_link_answers_once(client, survey):
    (token,) = services.invitations_create(survey=survey, count=1)
    consent = client.get(reverse("collection:consent_invitation", args=[token]))
    assert consent.status_code == 200
    url = reverse("collection:respond_invitation", args=[token])
    assert client.post(url, body(survey), **JSON).status_code == 201
    again = client.post(url, body(survey), **JSON)
    assert again.status_code == 409
    assert "already been used" in again.json()["error"]
    used = client.get(reverse("collection:consent_invitation", args=[token]))
    assert used.status_code == 410
    assert "already been used" in used.content.decode()
    assert Submission.objects.count() == 1


def test_unknown_invitation_link_says_it_is_not_valid(client, survey):
    token = "x" * 32
    page = client.get(reverse("collection:consent_invitation", args=[token]))
    assert page.status_code == 404
    assert "not valid" in page.content.decode()
    posted = client.post(
        reverse("collection:respond_invitation", args=[token]), body(survey), **JSON
    )
    assert posted.status_code == 404
    assert not Submission.objects.exists()


def test_every_respondent_page_has_a_strict_policy(client, survey):
    urls = [
        reverse("collection:consent", args=[survey.public_token]),
        respond_url(survey),
        reverse("collection:verify"),
    ]
    for url in urls:
        policy = client.get(url)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy


def test_idempotency_key_must_be_a_uuid(client, survey):
    response = client.post(
        respond_url(survey), body(survey, idempotency_key="not-a-uuid"), **JSON
    )
    assert response.status_code == 400
    assert "not a UUID" in response.json()["error"]


def test_a_private_kind_the_browser_cannot_randomize_gets_a_clear_page(client, survey):
    data = body(survey)
    survey.questions.create(
        position=9, kind="numeric", text="How much do you earn?", is_private=True
    )
    page = client.get(respond_url(survey))
    assert page.status_code == 503
    assert "cannot be answered yet" in page.content.decode()
    posted = client.post(respond_url(survey), data, **JSON)
    assert posted.status_code == 503
    assert not Submission.objects.exists()


def test_submission_without_csrf_token_is_refused(survey):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(respond_url(survey), body(survey), **JSON)
    assert response.status_code == 403
    assert not Submission.objects.exists()


def test_receipt_describes_a_report_under_the_spec_revision_it_was_made_with(
    client, survey
):
    warner = questions(survey)["warner"]
    reports = valid_reports(survey) | {warner.pk: 0}
    response = client.post(respond_url(survey), body(survey, reports=reports), **JSON)
    # Later the question is published under another mechanism (revision 2), in
    # which a report of 0 would mean a "low" signal.
    later = {"mechanism": "duchi", "epsilon": 1.0, "low": 0, "high": 1}
    SpecRevision.objects.create(question=warner, revision=2, spec=later)
    Question.objects.filter(pk=warner.pk).update(spec=later, spec_revision=2)
    text = client.get(response.json()["receipt_url"]).content.decode()
    assert (
        "Your device sent: <strong>a randomized yes/no answer, “No”</strong>." in text
    )
    assert "“low”" not in text


def test_receipt_links_are_random_codes_not_the_submission_number(client, survey):
    first = client.post(respond_url(survey), body(survey), **JSON).json()
    second = client.post(respond_url(survey), body(survey), **JSON).json()
    codes = [
        answer["receipt_url"].rstrip("/").rsplit("/", 1)[1]
        for answer in (first, second)
    ]
    for code in codes:
        assert len(code) >= 22 and ":" not in code  # 128 random bits, unsigned
    assert codes[0] != codes[1]
    assert not Submission.objects.filter(receipt_hash__in=codes).exists()


def test_consent_page_says_what_the_server_keeps(client, survey):
    text = client.get(reverse("collection:consent", args=[survey.public_token])).content
    page = text.decode()
    assert "What the server keeps: your randomized answers" in page
    assert "and the day they arrived" in page
    assert "no network address, no exact time, no lasting cookie" in page
    (token,) = services.invitations_create(survey=survey, count=1)
    invited = client.get(reverse("collection:consent_invitation", args=[token]))
    assert (
        "no link between your invitation and your answers" in invited.content.decode()
    )
    assert "That your invitation link has been used, and nothing else" in (
        invited.content.decode()
    )


def test_respondents_get_a_csrf_cookie_that_ends_with_the_browser_session(
    client, survey
):
    response = client.get(respond_url(survey))
    cookie = response.cookies["csrftoken"]
    assert cookie.value
    assert (cookie["max-age"], cookie["expires"]) == ("", "")
    assert "sessionid" not in response.cookies


def test_an_idempotency_key_that_carries_a_time_is_refused(client, survey):
    timed_key = uuid.uuid1()  # a time and a node address inside
    response = client.post(respond_url(survey), body(survey, key=timed_key), **JSON)
    assert response.status_code == 400
    assert "version 4" in response.json()["error"]
    assert not Submission.objects.exists()


def test_consent_page_says_so_when_the_log_keeps_addresses(client, survey, settings):
    settings.ACCESS_LOG_CLIENTS = "all"
    page = client.get(reverse("collection:consent", args=[survey.public_token]))
    text = page.content.decode()
    assert "The server's log does note your network address" in text
    assert "without your network address" not in text
