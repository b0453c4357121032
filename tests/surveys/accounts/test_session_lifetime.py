"""Sessions end after 30 idle minutes (sliding) and 12 hours after sign-in."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from surveys.accounts.sessions import LAST_ACTIVITY, SIGNED_IN_AT
from surveys.authoring import services as authoring
from tests.conftest import project_settings

pytestmark = pytest.mark.django_db

MINUTE = 60
HOUR = 3600


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user(
        "ada", password="the right passphrase 42", is_staff=True, is_superuser=True
    )


@pytest.fixture
def signed_in(client, ada):
    client.force_login(ada)
    return client


def rewind(client, seconds: int, *keys: str) -> None:
    """Pretend the session's clocks started ``seconds`` earlier."""
    session = client.session
    for key in keys or (LAST_ACTIVITY, SIGNED_IN_AT):
        session[key] -= seconds
    session.save()


def is_sign_in_page(response, path: str = "/accounts/login/") -> bool:
    return response.status_code == 302 and urlparse(response["Location"]).path == path


def survey_list(client):
    return client.get(reverse("authoring:survey_list"))


def test_a_session_used_within_the_idle_timeout_stays_signed_in(signed_in):
    rewind(signed_in, 29 * MINUTE)
    assert survey_list(signed_in).status_code == 200


def test_a_session_idle_longer_than_the_timeout_is_signed_out(signed_in):
    rewind(signed_in, 30 * MINUTE + 1)
    response = survey_list(signed_in)
    assert is_sign_in_page(response)
    assert "_auth_user_id" not in signed_in.session
    page = signed_in.get(response["Location"]).content.decode()
    assert "signed out after 30 minutes without activity" in page


def test_activity_moves_the_idle_deadline(signed_in):
    rewind(signed_in, 20 * MINUTE)
    assert survey_list(signed_in).status_code == 200
    rewind(signed_in, 20 * MINUTE, LAST_ACTIVITY, SIGNED_IN_AT)
    assert survey_list(signed_in).status_code == 200


def test_a_session_ends_after_the_absolute_lifetime_despite_activity(signed_in):
    rewind(signed_in, 12 * HOUR + 1, SIGNED_IN_AT)
    response = survey_list(signed_in)
    assert is_sign_in_page(response)
    page = signed_in.get(response["Location"]).content.decode()
    assert "signed out 12 hours after signing in" in page


def test_the_dashboards_automatic_refresh_is_not_activity(signed_in, ada):
    survey = authoring.survey_create(owner=ada, title="Polled")
    live = reverse("analysis:dashboard_live", kwargs={"pk": survey.pk})
    rewind(signed_in, 20 * MINUTE)
    assert signed_in.get(live).status_code == 200
    rewind(signed_in, 11 * MINUTE)
    assert is_sign_in_page(survey_list(signed_in))


def test_the_admin_signs_out_idle_sessions_too(signed_in):
    assert signed_in.get("/admin/").status_code == 200
    rewind(signed_in, 31 * MINUTE)
    response = signed_in.get("/admin/")
    assert is_sign_in_page(response, "/admin/login/")


def test_the_stored_session_and_cookie_expire_with_the_idle_timeout(signed_in):
    rewind(signed_in, 2 * MINUTE)
    response = survey_list(signed_in)
    assert response.cookies["sessionid"]["max-age"] == 30 * MINUTE
    assert signed_in.session.get_expiry_age() == 30 * MINUTE


def test_a_real_sign_in_starts_both_clocks(client, ada):
    response = client.post(
        reverse("login"), {"username": "ada", "password": "the right passphrase 42"}
    )
    assert response.status_code == 302
    session = client.session
    assert session[SIGNED_IN_AT] == session[LAST_ACTIVITY]
    assert session.get_expiry_age() == 30 * MINUTE


def test_the_lifetimes_come_from_the_environment():
    s = project_settings(SESSION_IDLE_MINUTES="5", SESSION_MAX_HOURS="2")
    lifetimes = ("SESSION_IDLE_TIMEOUT", "SESSION_MAX_AGE", "SESSION_COOKIE_AGE")
    assert [s[name] for name in lifetimes] == [300, 7200, 7200]


@pytest.mark.parametrize("variable", ["SESSION_IDLE_MINUTES", "SESSION_MAX_HOURS"])
def test_a_lifetime_below_one_unit_is_refused(variable):
    with pytest.raises(ImproperlyConfigured, match=variable):
        project_settings(**{variable: "0"})
