"""Optional two-factor sign-in (TOTP): enrol, confirm, then every sign-in needs a code.

Codes are computed here from the secret the set-up page shows, with RFC 6238
written out independently of django-otp.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import struct
import time
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse
from django_otp.plugins.otp_totp.models import TOTPDevice

pytestmark = pytest.mark.django_db

PASSWORD = "the right passphrase 42"
STEP = 30


def totp(secret: str, at: float, digits: int = 6) -> str:
    """RFC 6238 with SHA-1: HOTP (RFC 4226) of the 30-second step count."""
    compact = secret.replace(" ", "")
    key = base64.b32decode(compact + "=" * (-len(compact) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(at // STEP)), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    number = struct.unpack(">I", mac[offset : offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10**digits).zfill(digits)


def test_the_code_generator_matches_rfc_6238():
    # RFC 6238, appendix B: SHA-1, key "12345678901234567890", 8 digits.
    secret = base64.b32encode(b"12345678901234567890").decode()
    assert totp(secret, 59, digits=8) == "94287082"
    assert totp(secret, 1111111109, digits=8) == "07081804"


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user(
        "ada", password=PASSWORD, is_staff=True, is_superuser=True
    )


def sign_in(client: Client, code: str | None = None, page: str = "/accounts/login/"):
    data = {"username": "ada", "password": PASSWORD}
    if code is not None:
        data["otp_code"] = code
    return client.post(page, data)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def start_setup(client: Client) -> str:
    """Start enrolment; the secret shown on the set-up page."""
    response = client.post(reverse("two_factor"))
    assert response.status_code == 302
    assert response["Location"] == reverse("two_factor_setup")
    page = client.get(reverse("two_factor_setup")).content.decode()
    return re.search(r'data-field="secret">([A-Z2-7 ]+)<', page)[1]


def enrol(client: Client, ada) -> str:
    """Turn two-factor sign-in on for ada; returns the secret."""
    client.force_login(ada)
    secret = start_setup(client)
    response = client.post(
        reverse("two_factor_setup"), {"code": totp(secret, time.time())}
    )
    assert response.status_code == 302
    return secret


def next_code(secret: str) -> str:
    """A code not used yet: the next step's (accepted within one step of drift)."""
    return totp(secret, time.time() + STEP)


# --- enrolment ---------------------------------------------------------------------
def test_setup_shows_a_qr_code_inline_and_the_secret_as_text(client, ada):
    client.force_login(ada)
    secret = start_setup(client)
    response = client.get(reverse("two_factor_setup"))
    page = response.content.decode()
    data_uri = re.search(r'<img class="qr-code" src="(data:[^"]+)"', page)[1]
    prefix = "data:image/svg+xml;base64,"
    assert data_uri.startswith(prefix)
    assert base64.b64decode(data_uri[len(prefix) :]).startswith(b"<svg")
    uri = re.search(r'data-field="otpauth">([^<]+)<', page)[1].replace("&amp;", "&")
    parsed = urlparse(uri)
    assert (parsed.scheme, parsed.netloc) == ("otpauth", "totp")
    assert unquote(parsed.path) == "/Deniable:ada"
    query = parse_qs(parsed.query)
    assert query["secret"] == [secret.replace(" ", "")]
    assert query["issuer"] == ["Deniable"]
    assert "http" not in page.split("<main", 1)[1].split("</main>")[0]


def test_setup_page_is_served_under_the_strict_csp(client, ada):
    client.force_login(ada)
    start_setup(client)
    policy = client.get(reverse("two_factor_setup"))["Content-Security-Policy"]
    assert "img-src 'self' data:" in policy
    assert "unsafe-inline" not in policy


def test_reloading_the_setup_page_keeps_the_same_secret(client, ada):
    client.force_login(ada)
    secret = start_setup(client)
    again = client.get(reverse("two_factor_setup")).content.decode()
    assert secret in again
    assert TOTPDevice.objects.count() == 1


def test_a_wrong_code_does_not_turn_it_on(client, ada):
    client.force_login(ada)
    secret = start_setup(client)
    wrong = str((int(totp(secret, time.time())) + 1) % 10**6).zfill(6)
    response = client.post(reverse("two_factor_setup"), {"code": wrong})
    assert response.status_code == 400
    assert "That code is not right" in response.content.decode()
    assert not TOTPDevice.objects.filter(confirmed=True).exists()


def test_confirming_with_a_real_code_turns_it_on(client, ada):
    enrol(client, ada)
    assert TOTPDevice.objects.get().confirmed
    page = client.get(reverse("two_factor")).content.decode()
    assert "On. Signing in asks for your password and a 6-digit code" in page


# --- signing in --------------------------------------------------------------------
def test_sign_in_without_a_device_needs_no_code(client, ada):
    assert sign_in(client).status_code == 302
    assert signed_in(client)


def test_after_enrolment_a_password_alone_no_longer_signs_in(client, ada):
    enrol(client, ada)
    client.logout()
    response = sign_in(client)
    assert response.status_code == 200
    assert "also enter the 6-digit code" in response.content.decode()
    assert not signed_in(client)


def test_after_enrolment_the_password_and_a_real_code_sign_in(client, ada):
    secret = enrol(client, ada)
    client.logout()
    response = sign_in(client, next_code(secret))
    assert response.status_code == 302
    assert signed_in(client)
    assert client.get(reverse("authoring:survey_list")).status_code == 200


def test_a_code_works_only_once(client, ada):
    secret = enrol(client, ada)
    client.logout()
    code = next_code(secret)
    assert sign_in(client, code).status_code == 302
    client.logout()
    response = sign_in(client, code)
    assert response.status_code == 200
    assert not signed_in(client)


def test_a_wrong_code_is_refused_and_counts_as_a_failed_sign_in(client, ada):
    secret = enrol(client, ada)
    client.logout()
    wrong = str((int(next_code(secret)) + 1) % 10**6).zfill(6)
    response = sign_in(client, wrong)
    assert response.status_code == 200
    assert "That code is not right" in response.content.decode()
    assert not signed_in(client)
    assert AccessAttempt.objects.get(username="ada").failures_since_start == 1


def test_five_wrong_codes_lock_sign_in_even_with_the_right_code(client, ada):
    secret = enrol(client, ada)
    client.logout()
    for _ in range(5):
        sign_in(client, "000000" if next_code(secret) != "000000" else "111111")
    response = sign_in(client, next_code(secret))
    assert response.status_code == 429
    assert not signed_in(client)


def test_the_admin_sign_in_asks_for_the_code_too(ada):
    secret = enrol(Client(), ada)
    browser = Client()
    page = browser.get("/admin/login/").content.decode()
    assert 'name="otp_code"' in page
    response = sign_in(browser, page="/admin/login/")
    assert response.status_code == 200
    assert "also enter the 6-digit code" in response.content.decode()
    assert not signed_in(browser)
    response = sign_in(browser, next_code(secret), page="/admin/login/")
    assert response.status_code == 302
    assert browser.get("/admin/").status_code == 200


def test_enrolling_ends_the_accounts_other_sessions(client, ada):
    elsewhere = Client()
    elsewhere.force_login(ada)
    assert elsewhere.get(reverse("authoring:survey_list")).status_code == 200
    enrol(client, ada)
    response = elsewhere.get(reverse("authoring:survey_list"))
    assert response.status_code == 302
    assert not signed_in(elsewhere)
    # The session that turned it on goes on.
    assert client.get(reverse("authoring:survey_list")).status_code == 200


# --- turning it off ----------------------------------------------------------------
def test_turning_it_off_needs_a_real_code(client, ada):
    secret = enrol(client, ada)
    wrong = str((int(next_code(secret)) + 1) % 10**6).zfill(6)
    response = client.post(reverse("two_factor_disable"), {"code": wrong})
    assert response.status_code == 400
    assert TOTPDevice.objects.filter(confirmed=True).exists()
    TOTPDevice.objects.update(throttling_failure_count=0)
    response = client.post(reverse("two_factor_disable"), {"code": next_code(secret)})
    assert response.status_code == 302
    assert not TOTPDevice.objects.exists()
    client.logout()
    assert sign_in(client).status_code == 302


def test_an_admin_resets_a_lost_device_by_deleting_it(ada, django_user_model):
    enrol(Client(), ada)
    device = TOTPDevice.objects.get()
    root = django_user_model.objects.create_superuser("root", password=PASSWORD)
    admin = Client()
    admin.force_login(root)
    url = reverse("admin:otp_totp_totpdevice_delete", args=[device.pk])
    assert admin.post(url, {"post": "yes"}).status_code == 302
    assert not TOTPDevice.objects.exists()
    assert sign_in(Client()).status_code == 302


def test_the_admin_never_shows_a_device_secret(ada, django_user_model):
    enrol(Client(), ada)
    device = TOTPDevice.objects.get()
    root = django_user_model.objects.create_superuser("root", password=PASSWORD)
    admin = Client()
    admin.force_login(root)
    url = reverse("admin:otp_totp_totpdevice_change", args=[device.pk])
    page = admin.get(url).content.decode()
    assert device.key not in page
    assert admin.get(reverse("admin:otp_totp_totpdevice_add")).status_code == 403


# --- the user row names the current device (no query per request) ----------------
def _state(ada) -> str:
    ada.refresh_from_db()
    return ada.two_factor_device


def test_enrolment_writes_the_confirmed_device_onto_the_user_row(client, ada):
    enrol(client, ada)
    assert _state(ada) == TOTPDevice.objects.get(confirmed=True).persistent_id


def test_turning_it_off_clears_the_device_from_the_user_row(client, ada):
    secret = enrol(client, ada)
    client.post(reverse("two_factor_disable"), {"code": next_code(secret)})
    assert _state(ada) == ""


def test_an_admin_deleting_the_device_clears_it_from_the_user_row(ada):
    enrol(Client(), ada)
    TOTPDevice.objects.get().delete()
    assert _state(ada) == ""


def test_a_device_confirmed_outside_the_services_still_ends_older_sessions(ada):
    elsewhere = Client()
    elsewhere.force_login(ada)
    assert elsewhere.get(reverse("authoring:survey_list")).status_code == 200
    device = TOTPDevice.objects.create(
        user=ada, name="made in the shell", confirmed=False
    )
    assert _state(ada) == ""  # not confirmed yet: still off
    device.confirmed = True
    device.save()
    assert _state(ada) == device.persistent_id
    assert elsewhere.get(reverse("authoring:survey_list")).status_code == 302
    assert not signed_in(elsewhere)


def test_a_replaced_device_ends_sessions_opened_with_the_old_one(client, ada):
    secret = enrol(client, ada)
    with_code = Client()
    assert sign_in(with_code, next_code(secret)).status_code == 302
    assert with_code.get(reverse("authoring:survey_list")).status_code == 200
    TOTPDevice.objects.all().delete()
    TOTPDevice.objects.create(user=ada, name="new phone", confirmed=True)
    assert with_code.get(reverse("authoring:survey_list")).status_code == 302


def test_a_signed_in_request_reads_no_device_row(client, ada):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    enrol(client, ada)
    client.get(reverse("authoring:survey_list"))
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("authoring:survey_list")).status_code == 200
    assert not [q for q in queries.captured_queries if "otp_totp" in q["sql"]]
