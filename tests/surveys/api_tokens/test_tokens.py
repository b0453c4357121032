"""API tokens expire, are revoked only after a confirmation, and a reload after
creating one never makes a second."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from surveys.api_tokens.models import ApiToken
from surveys.api_tokens.services import api_token_create
from tests.conftest import project_settings

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
TOKENS = reverse("analysis:api_tokens")


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password="x" * 12)


@pytest.fixture
def signed_in(client, ada):
    client.force_login(ada)
    return client


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def api_list(client, secret: str):
    return client.get(reverse("analysis:api_surveys"), **bearer(secret))


def revoke_url(token: ApiToken) -> str:
    return reverse("analysis:api_token_revoke", args=[token.pk])


# --- expiry -----------------------------------------------------------------------
def test_a_token_works_for_90_days_by_default(ada):
    created = api_token_create(user=ada, name="default")
    lifetime = created.token.expires_at - created.token.created_at
    assert abs(lifetime - 90 * DAY) < timedelta(seconds=5)


def test_a_token_lifetime_is_chosen_at_creation(ada):
    created = api_token_create(user=ada, name="week", days=7)
    lifetime = created.token.expires_at - created.token.created_at
    assert abs(lifetime - 7 * DAY) < timedelta(seconds=5)


@pytest.mark.parametrize("days", [0, -1, 366, 10**9, True, 1.5, "30"])
def test_a_lifetime_outside_one_to_the_maximum_is_refused(ada, days):
    with pytest.raises(ValidationError, match="allowed: 1 to 365"):
        api_token_create(user=ada, name="bad", days=days)
    assert not ApiToken.objects.exists()


def test_an_expired_token_gets_a_401_that_says_it_expired(client, ada):
    created = api_token_create(user=ada, name="old", days=1)
    assert api_list(client, created.secret).status_code == 200
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = api_list(client, created.secret)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert "expired on" in response.json()["error"]
    assert "create a token on the API tokens page" in response.json()["error"]


def test_a_revoked_token_gets_a_401_that_says_it_was_revoked(client, ada):
    created = api_token_create(user=ada, name="gone")
    ApiToken.objects.update(revoked_at=timezone.now())
    response = api_list(client, created.secret)
    assert response.status_code == 401
    assert "was revoked on" in response.json()["error"]


def test_an_unknown_token_gets_the_general_401(client):
    response = api_list(client, "dnb_" + "A" * 43)
    assert response.status_code == 401
    assert response.json()["error"].startswith("A valid API token is required")


def test_the_command_takes_the_lifetime(ada):
    out, err = io.StringIO(), io.StringIO()
    call_command("create_api_token", "ada", "--days", "30", stdout=out, stderr=err)
    token = ApiToken.objects.get()
    assert abs(token.expires_at - token.created_at - 30 * DAY) < timedelta(seconds=5)
    assert out.getvalue().strip().startswith("dnb_")
    assert f"Valid until {token.expires_at:%Y-%m-%d}" in err.getvalue()


def test_the_command_refuses_more_than_the_maximum(ada):
    with pytest.raises(CommandError, match="allowed: 1 to 365"):
        call_command("create_api_token", "ada", "--days", "366")
    assert not ApiToken.objects.exists()


def test_the_lifetimes_come_from_the_environment():
    s = project_settings(API_TOKEN_DEFAULT_DAYS="7", API_TOKEN_MAX_DAYS="30")
    assert (s["API_TOKEN_DEFAULT_DAYS"], s["API_TOKEN_MAX_DAYS"]) == (7, 30)


def test_a_default_above_the_maximum_is_refused():
    with pytest.raises(ImproperlyConfigured, match="API_TOKEN_DEFAULT_DAYS"):
        project_settings(API_TOKEN_DEFAULT_DAYS="60", API_TOKEN_MAX_DAYS="30")


# --- the page: POST-redirect-GET ---------------------------------------------------
def test_creating_redirects_and_shows_the_token_once(signed_in):
    response = signed_in.post(TOKENS, {"name": "notebook", "days": "30"})
    assert response.status_code == 302
    assert response["Location"] == TOKENS
    token = ApiToken.objects.get()
    page = signed_in.get(TOKENS).content.decode()
    secret = page.split('data-field="secret">')[1].split("<")[0]
    assert secret.startswith(token.prefix)
    assert api_list(signed_in, secret).status_code == 200
    assert secret not in signed_in.get(TOKENS).content.decode()
    assert "api_token_created" not in signed_in.session


def test_reloading_after_creating_makes_no_second_token(signed_in):
    response = signed_in.post(TOKENS, {"name": "notebook", "days": "90"}, follow=True)
    assert response.redirect_chain == [(TOKENS, 302)]
    for _ in range(3):  # the browser's reload repeats the GET it landed on
        assert signed_in.get(TOKENS).status_code == 200
    assert ApiToken.objects.count() == 1


def test_the_form_offers_the_default_lifetime(signed_in):
    page = signed_in.get(TOKENS).content.decode()
    assert 'name="days"' in page
    assert 'value="90"' in page
    assert 'max="365"' in page


@pytest.mark.parametrize(
    "days", ["0", "366", "-5", "1e309", "NaN", "abc", "", "9" * 5000, "3.5"]
)
def test_the_page_refuses_a_bad_lifetime_and_makes_nothing(signed_in, days):
    response = signed_in.post(TOKENS, {"name": "notebook", "days": days})
    assert response.status_code == 400
    assert b"Nothing was saved" in response.content
    assert not ApiToken.objects.exists()


# --- revoking: confirm first -------------------------------------------------------
def test_revoke_asks_for_confirmation_and_changes_nothing_until_posted(signed_in, ada):
    created = api_token_create(user=ada, name="notebook")
    response = signed_in.get(revoke_url(created.token))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Revoke this token?" in page
    assert "notebook" in page
    assert 'method="post"' in page
    assert api_list(signed_in, created.secret).status_code == 200

    response = signed_in.post(revoke_url(created.token))
    assert response.status_code == 302
    assert ApiToken.objects.get().revoked_at is not None
    assert api_list(signed_in, created.secret).status_code == 401


def test_the_token_list_links_to_the_confirmation_instead_of_revoking(signed_in, ada):
    created = api_token_create(user=ada, name="notebook")
    page = signed_in.get(TOKENS).content.decode()
    assert f'href="{revoke_url(created.token)}"' in page
    assert f'action="{revoke_url(created.token)}"' not in page


@pytest.mark.parametrize("state", ["revoked", "expired"])
def test_a_token_that_no_longer_works_cannot_be_revoked_again(signed_in, ada, state):
    created = api_token_create(user=ada, name="notebook")
    field = "revoked_at" if state == "revoked" else "expires_at"
    ApiToken.objects.update(**{field: timezone.now() - DAY})
    assert signed_in.get(revoke_url(created.token)).status_code == 404
    assert signed_in.post(revoke_url(created.token)).status_code == 404
