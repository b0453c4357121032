"""Single sign-on is off unless configured, and half a configuration stops start-up.

The sign-in through a real provider is tests/system/servers/test_single_sign_on.py.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from django.urls import reverse

from tests.conftest import project_settings


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name", ["oidc_authentication_init", "oidc_authentication_callback"]
)
def test_the_single_sign_on_routes_are_404_while_it_is_off(client, name):
    assert client.get(reverse(name), {"code": "x", "state": "y"}).status_code == 404


@pytest.mark.django_db
def test_the_sign_in_page_offers_no_single_sign_on_while_it_is_off(client):
    assert b"/accounts/oidc/" not in client.get(reverse("login")).content


@pytest.mark.django_db
def test_password_sign_in_still_works_beside_the_inert_backend(django_user_model):
    django_user_model.objects.create_user("ada", password="a long passphrase 42")
    request = RequestFactory().post("/accounts/login/")
    user = authenticate(request, username="ada", password="a long passphrase 42")
    assert user is not None and user.username == "ada"


def test_a_client_id_without_the_providers_endpoints_stops_start_up():
    with pytest.raises(ImproperlyConfigured) as refused:
        project_settings(OIDC_CLIENT_ID="deniable")
    assert "OIDC_TOKEN_ENDPOINT" in str(refused.value)
    assert "OIDC_CLIENT_SECRET" in str(refused.value)
