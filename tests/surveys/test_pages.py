"""The home page, sign-in and the health probe."""

import pytest
from django.urls import reverse

from surveys.version import deniable_version


@pytest.mark.django_db
def test_home_page_explains_the_product(client):
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert b"randomized on the respondent" in response.content


@pytest.mark.django_db
def test_pages_forbid_inline_script_and_third_party_sources(client):
    policy = client.get(reverse("home"))["Content-Security-Policy"]
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


@pytest.mark.django_db
def test_login_page_labels_every_field(client):
    html = client.get(reverse("login")).content.decode()
    assert '<label for="id_username">' in html
    assert '<label for="id_password">' in html


@pytest.mark.django_db
def test_healthz_reports_database_ok_and_the_version(client):
    response = client.get(reverse("healthz"))
    body = response.json()
    assert body["database"] == "ok"
    assert body["version"] == deniable_version()


@pytest.mark.django_db
def test_researcher_can_sign_in_and_out(client, django_user_model):
    django_user_model.objects.create_user("ada", password="correct horse battery")
    response = client.post(
        reverse("login"), {"username": "ada", "password": "correct horse battery"}
    )
    assert response.status_code == 302
    assert client.get(reverse("home")).context["user"].is_authenticated
    client.post(reverse("logout"))
    assert not client.get(reverse("home")).context["user"].is_authenticated


@pytest.mark.django_db
def test_a_missing_page_is_the_sites_page_with_language_title_and_main(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<html lang="' in html
    assert "<title>" in html
    assert '<main id="main"' in html
    assert "<h1>" in html


@pytest.mark.django_db
def test_axe_core_for_the_test_browser_is_never_served_by_the_site(client):
    from django.contrib.staticfiles import finders

    from tests.conftest import ROOT

    assert (ROOT / "node_modules" / "axe-core" / "axe.min.js").is_file()
    assert finders.find("axe-core/axe.min.js") is None
    assert finders.find("node_modules/axe-core/axe.min.js") is None
    assert client.get("/static/axe-core/axe.min.js").status_code == 404
    assert client.get("/node_modules/axe-core/axe.min.js").status_code == 404
    shipped = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static").rglob("*")]
    assert not [
        path
        for path in shipped
        if path.is_file() and "axe-core" in path.read_text(errors="ignore")
    ]
