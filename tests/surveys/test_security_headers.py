"""CSP and Subresource Integrity (docs/testing.md, section 5).

Every HTML response reachable in the URLconf carries a Content-Security-Policy
with no 'unsafe-inline'/'unsafe-eval', ``connect-src 'self'`` and
``frame-ancestors 'none'``; respondent pages load exactly one same-origin script
with an integrity hash; and the randomizer's hash on the verify page, on the
form page and in the design-card export is the SHA-384 of the bytes served.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from surveys.api_tokens.services import api_token_create
from surveys.authoring import services as authoring
from surveys.authoring.models import Survey
from surveys.collection import assets, demo, services
from surveys.collection.models import Submission
from surveys.collection.tokens import new_receipt_code, receipt_code_hash
from surveys.themes.models import Theme
from tests.surveys.collection.conftest import CONFIGS, JSON, PLAIN_MULTI, body
from tests.surveys.test_authorization_matrix import ALL, policy
from tests.surveys.test_csrf import url_for
from tests.surveys.themes.conftest import PNG

pytestmark = pytest.mark.django_db

NAMED = [(name, pattern) for name, pattern in ALL if name.split(":")[-1]]


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def directives(header: str) -> dict[str, list[str]]:
    parsed = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


def assert_strict_csp(response, where: str) -> None:
    header = response.get("Content-Security-Policy")
    assert header, f"{where}: no Content-Security-Policy"
    assert "unsafe-inline" not in header, where
    assert "unsafe-eval" not in header, where
    policy_ = directives(header)
    assert policy_.get("connect-src") == ["'self'"], where
    assert policy_.get("frame-ancestors") == ["'none'"], where
    assert policy_.get("script-src") == ["'self'"], where


class Tags(HTMLParser):
    """Every <script> and <link> start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.links: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts.append(dict(attrs))
        elif tag == "link":
            self.links.append(dict(attrs))


def tags(response) -> Tags:
    parser = Tags()
    parser.feed(response.content.decode())
    return parser


def executable(scripts: list[dict]) -> list[dict]:
    """Scripts a browser runs (a JSON data block is never executed)."""
    return [s for s in scripts if s.get("type") != "application/json"]


def same_origin(url: str | None) -> bool:
    return bool(url) and url.startswith("/") and not url.startswith("//")


def is_html(response) -> bool:
    return response.get("Content-Type", "").startswith("text/html")


@pytest.fixture
def world(django_user_model):
    """An owner whose surveys cover every question kind and mechanism."""
    ada = django_user_model.objects.create_user("ada")
    staff = django_user_model.objects.create_superuser("root", "root@example.org")
    survey, _ = demo.demo_survey(owner=ada)
    # The demo survey's pages are themed: name, logo and accent colour.
    survey.theme = Theme.objects.create(
        name="Institut Exemple", accent="#6b2c91", logo=PNG, logo_type="image/png"
    )
    survey.save(update_fields=["theme"])
    (invitation,) = services.invitations_create(survey=survey, count=1)
    api = api_token_create(user=ada, name="headers")
    answered = Client().post(
        reverse("collection:respond", args=[survey.public_token]), body(survey), **JSON
    )
    assert answered.status_code == 201
    per_mechanism = []
    for name, config in [*CONFIGS.items(), ("plain multi-select", PLAIN_MULTI)]:
        one = authoring.survey_create(owner=ada, title=f"Only {name}")
        authoring.question_create(
            survey=one,
            text=f"About {name}?",
            privacy=config,
            not_private_acknowledged=not config.is_private,
        )
        per_mechanism.append(authoring.survey_publish(survey=one, user=ada))
    return {
        "ada": ada,
        "staff": staff,
        "survey": survey,
        "question": survey.questions.first(),
        "invitation": invitation,
        "api": api,
        "surveys": [survey, *per_mechanism],
    }


def client_for(name: str, world) -> Client:
    client = Client()
    role = policy(name)
    if role in {"owner", "signed_in"}:
        client.force_login(world["ada"])
    elif role == "admin":
        client.force_login(world["staff"])
    return client


@pytest.mark.sweeps  # every URL; the respondent pages stay in the fast lane below
def test_every_html_page_in_the_urlconf_has_a_strict_csp(world):
    checked = []
    for name, pattern in NAMED:
        url = url_for(name, pattern, world)
        client = client_for(name, world)
        extra = {}
        if policy(name) == "api":
            extra["HTTP_AUTHORIZATION"] = f"Bearer {world['api'].secret}"
        response = client.get(url, **extra)
        assert response.status_code < 500, (name, response.status_code)
        if is_html(response):
            assert_strict_csp(response, name)
            checked.append(name)
        else:
            # Files and JSON carry the same policy (a browser ignores it there).
            assert response.get("Content-Security-Policy"), name
    # Owner pages, public pages, respondent pages and the admin were all seen.
    for expected in (
        "authoring:survey_detail",
        "analysis:dashboard",
        "collection:invitations",
        "collection:respond",
        "collection:respond_invitation",
        "collection:receipt",
        "collection:verify",
        "login",
        "admin:index",
    ):
        assert expected in checked, expected


def respondent_pages(world, settings) -> dict[str, object]:
    """Every page a respondent can be shown, for surveys of every kind."""
    client = Client()
    survey = world["survey"]
    pages = {}
    for one in world["surveys"]:
        token = one.public_token
        pages[f"consent {one.title}"] = client.get(
            reverse("collection:consent", args=[token])
        )
        pages[f"form {one.title}"] = client.get(
            reverse("collection:respond", args=[token])
        )
    invitation = world["invitation"]
    pages["invitation consent"] = client.get(
        reverse("collection:consent_invitation", args=[invitation])
    )
    pages["invitation form"] = client.get(
        reverse("collection:respond_invitation", args=[invitation])
    )
    pages["form with an error"] = client.post(
        reverse("collection:respond", args=[survey.public_token]),
        body(survey, survey_revision="x"),
    )
    code = new_receipt_code()
    Submission.objects.filter(pk=Submission.objects.first().pk).update(
        receipt_hash=receipt_code_hash(code)
    )
    pages["receipt"] = client.get(reverse("collection:receipt", args=[code]))
    pages["unknown invitation"] = client.get(
        reverse("collection:consent_invitation", args=["no-such-token"])
    )
    pages["verify"] = client.get(reverse("collection:verify"))
    settings.RATE_LIMITS_ENABLED = True
    settings.RATE_LIMIT_LOOKUPS_PER_ADDRESS = "0/60"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "security-headers",
        }
    }
    pages["too many requests"] = client.get(
        reverse("collection:consent_invitation", args=[invitation])
    )
    closed = world["surveys"][-1]
    closed.status = Survey.Status.CLOSED
    closed.save()
    pages["closed survey"] = client.get(
        reverse("collection:respond", args=[closed.public_token])
    )
    return pages


def test_respondent_pages_have_a_strict_csp_and_only_hashed_same_origin_scripts(
    world, settings
):
    pages = respondent_pages(world, settings)
    statuses = {label: page.status_code for label, page in pages.items()}
    assert statuses["too many requests"] == 429
    assert statuses["unknown invitation"] == 404
    assert statuses["closed survey"] == 410
    assert statuses["form with an error"] == 400
    for label, page in pages.items():
        assert is_html(page), label
        assert_strict_csp(page, label)
        found = tags(page)
        for script in executable(found.scripts):
            assert same_origin(script.get("src")), (label, script)
            assert (script.get("integrity") or "").startswith("sha384-"), label
        for link in found.links:
            # Stylesheets (the theme's too) come from this site only.
            assert same_origin(link.get("href")), (label, link)
            if link.get("rel") == "modulepreload":
                assert same_origin(link.get("href")), (label, link)
                assert (link.get("integrity") or "").startswith("sha384-"), label
        if label.startswith(("form", "invitation form")):
            assert len(executable(found.scripts)) == 1, label
        else:
            assert len(executable(found.scripts)) <= 1, label
    themed = tags(pages[f"consent {world['survey'].title}"])
    assert any("/themes/" in (link.get("href") or "") for link in themed.links)


def test_published_hashes_equal_the_bytes_served(world, settings):
    # Serve static files the way production does (WhiteNoise), from the finders.
    settings.WHITENOISE_USE_FINDERS = True
    client = Client()
    survey = world["survey"]
    randomizer = client.get(reverse("collection:randomizer"))
    assert randomizer.status_code == 200
    randomizer_hash = sri(randomizer.content)
    form = client.get(reverse("collection:respond", args=[survey.public_token]))
    found = tags(form)
    (page_script,) = executable(found.scripts)
    served_script = client.get(page_script["src"])
    assert served_script.status_code == 200
    script_bytes = (
        b"".join(served_script.streaming_content)
        if served_script.streaming
        else served_script.content
    )
    assert page_script["integrity"] == sri(script_bytes)
    wording = client.get(reverse("collection:wording"))
    assert wording.status_code == 200
    wording_hash = sri(wording.content)
    # Every module the page preloads: the integrity it carries is the hash of
    # the bytes served at its address.
    preloads = [link for link in found.links if link.get("rel") == "modulepreload"]
    served_hash = {}
    for link in preloads:
        served = client.get(link["href"])
        assert served.status_code == 200, link["href"]
        digest = sri(
            b"".join(served.streaming_content) if served.streaming else served.content
        )
        assert link["integrity"] == digest, link["href"]
        served_hash[link["href"].rsplit("/", 1)[-1]] = digest
    assert served_hash["randomizer.js"] == randomizer_hash
    wording_hash = sri(wording.content)
    assert served_hash["wording.js"] == wording_hash
    modules = {"outbox.js", "ledger.js", "order.js", "quotas.js", "piping.js"}
    modules |= {"section_checks.js"}
    modules |= {f"respond_{part}.js" for part in assets.RESPOND_PARTS}
    assert set(served_hash) == {"randomizer.js", "wording.js"} | modules

    # The verify page publishes those same hashes, and the page script's.
    verify = client.get(reverse("collection:verify")).content.decode()
    published = re.findall(r'Fingerprint: <code class="hash">([^<]+)</code>', verify)
    names = [script.name for script in assets.device_scripts()]
    assert published == [served_hash.get(name) or sri(script_bytes) for name in names]
    assert names[-1] == "respond.js"
    # Beside them, the release record's entry for this version, file by file.
    recorded = re.findall(
        r'data-recorded-for="[^"]+"><code class="hash">([^<]+)</code>', verify
    )
    assert recorded[: len(published)] == published

    owner = Client()
    owner.force_login(world["ada"])
    card = owner.get(reverse("analysis:export_design", args=[survey.pk]))
    document = json.loads(
        b"".join(card.streaming_content) if card.streaming else card.content
    )
    assert document["randomizer_sha384"] == randomizer_hash
    assert document["wording_sha384"] == wording_hash
    assert document["outbox_sha384"] == served_hash["outbox.js"]
    assert document["page_script_sha384"] == sri(script_bytes)
