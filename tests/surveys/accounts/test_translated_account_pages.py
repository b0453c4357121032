"""The account pages in Spanish and French (docs/translations.md).

The browser's Accept-Language (or the language picker's cookie) picks the
language; labels, buttons, errors, plurals and titles follow it, while field
names and the values a script or an app reads stay the same in every language.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "the right passphrase 42"
WRONG = "a wrong passphrase 42"
TEMPLATES = Path(settings.BASE_DIR) / "templates"


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", password=PASSWORD)


def in_language(language: str) -> Client:
    return Client(HTTP_ACCEPT_LANGUAGE=language)


def page_text(response) -> str:
    return response.content.decode()


SIGN_IN = {
    "es": ("Iniciar sesión", "Código de su aplicación de autenticación"),
    "fr": ("Se connecter", "Code de votre application d’authentification"),
}


@pytest.mark.parametrize("language", ["es", "fr"])
def test_the_sign_in_page_is_in_the_browsers_language(language):
    html = page_text(in_language(language).get("/accounts/login/"))
    title, code_label = SIGN_IN[language]
    assert f'<html lang="{language}"' in html
    assert f"<title>{title} · Deniable</title>" in html
    assert code_label in html
    assert "Code from your authenticator app" not in html
    # What a password manager or a script reads does not change.
    for name in ('name="username"', 'name="password"', 'name="otp_code"'):
        assert name in html
    assert 'autocomplete="one-time-code"' in html


def test_the_language_cookie_wins_over_the_browsers_language():
    client = in_language("es")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    html = page_text(client.get("/accounts/login/"))
    assert '<html lang="fr"' in html and "Se connecter" in html


def test_the_lockout_page_counts_its_minutes_in_french(ada):
    client = in_language("fr")
    for _ in range(6):
        response = client.post(
            "/accounts/login/", {"username": "ada", "password": WRONG}
        )
    assert response.status_code == 429
    html = page_text(response)
    minutes = -(-int(response["Retry-After"]) // 60)
    assert minutes > 1
    assert "Connexion suspendue" in html
    assert f"la connexion est suspendue pendant {minutes} minutes." in html
    assert "«\u00a0ada\u00a0»" in html
    assert f"Attendez {minutes} minutes et réessayez" in html


def test_the_lockout_page_says_one_minute_in_the_singular(ada, settings):
    settings.AXES_COOLOFF_TIME = 1 / 60  # hours: one minute
    client = in_language("es")
    for _ in range(6):
        response = client.post(
            "/accounts/login/", {"username": "ada", "password": WRONG}
        )
    html = page_text(response)
    assert response.status_code == 429
    assert "queda en pausa durante 1 minuto. No se inició la sesión." in html
    assert "Espere 1 minuto y vuelva a intentarlo" in html


def test_the_two_factor_pages_are_in_spanish(ada):
    client = in_language("es")
    client.force_login(ada)
    status = page_text(client.get("/accounts/two-factor/"))
    assert "<h1>Inicio de sesión en dos pasos</h1>" in status
    assert "Desactivado. Para iniciar sesión solo se pide su contraseña." in status
    setup = client.post("/accounts/two-factor/", follow=True)
    html = page_text(setup)
    assert "Configurar el inicio de sesión en dos pasos" in html
    assert 'alt="Código QR que contiene el secreto de abajo"' in html
    # The secret and the set-up address are the same text in every language.
    secret = re.search(r'data-field="secret">([A-Z2-7 ]+)<', html)
    assert secret is not None
    assert 'data-field="otpauth">otpauth://totp/' in html


def test_a_wrong_two_factor_code_is_refused_in_french(ada):
    client = in_language("fr")
    client.force_login(ada)
    client.post("/accounts/two-factor/")
    # Five digits: never a right code.
    refused = client.post("/accounts/two-factor/setup/", {"code": "12345"})
    assert refused.status_code == 400
    assert "Ce code n’est pas le bon." in page_text(refused)
    empty = client.post("/accounts/two-factor/setup/", {"code": " "})
    assert "Saisissez le code à 6 chiffres qu’affiche votre application." in (
        page_text(empty)
    )


# --- every account and collection template of this area is marked -------------------
AREA = [
    *sorted((TEMPLATES / "registration").glob("*.html")),
    TEMPLATES / "admin" / "login_with_code.html",
    *sorted((TEMPLATES / "collection").glob("*.html")),
]
TAG = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}", re.S)
HTML_TAG = re.compile(r"<[^>]*>", re.S)
COMMENT = re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S)


def visible_text(template: str) -> str:
    """The words a template shows that are outside any template tag."""
    text = COMMENT.sub(" ", template)
    text = TAG.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    return " ".join(text.split())


def has_words(template: str) -> bool:
    return bool(
        re.search(r"[A-Za-z]{3,}", visible_text(template).replace("Deniable", ""))
    )


@pytest.mark.parametrize("path", AREA, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_template_with_visible_words_loads_i18n(path):
    source = path.read_text()
    if has_words(source):
        assert re.search(r"{%\s*load\s[^%]*\bi18n\b", source), (
            f"{path.name} shows text but does not load i18n"
        )


def test_the_visible_words_check_finds_unmarked_text():
    assert has_words("{% block content %}<h1>Sign in</h1>{% endblock %}")
    assert not has_words('<h1>{% translate "Sign in" %}</h1> · Deniable')
