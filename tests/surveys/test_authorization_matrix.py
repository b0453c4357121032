"""Every URL pattern of the project has an access policy, and it holds.

The URLconf is walked, so a new URL without a policy here fails this suite.
Policies:

- public: anyone (home, sign-in, respondents' pages reached by an unguessable
  link or token, the verify page, the device modules, the "No thanks" page);
- signed_in: any researcher, showing only their own data (lists, creation);
- owner: a survey's owner only; anonymous → sign-in page, another researcher → 404;
- api: Bearer-token API; no token → 401, another researcher's token → 404;
- admin: Django's admin, staff only.

The columns (docs/testing.md, section 5): the owner, another researcher,
anonymous, and a respondent of another survey (a browser that has just
answered survey B through its invitation, with B's session and cookies,
trying survey A's URLs).
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from surveys.authoring import services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey
from surveys.collection import services as collection_services
from surveys.collection.models import Invitation, Submission
from tests.surveys.collection.conftest import JSON, body

PUBLIC = {
    "home",
    "healthz",
    "favicon",
    "ping",
    "login",
    "logout",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",  # its signed token names one account
    "password_reset_complete",
    "signup",  # 404 unless SIGNUP allows it
    "oidc_authentication_init",  # 404 unless single sign-on is configured
    "oidc_authentication_callback",
    "signup_verify",  # its signed token names one account
    "set_language",  # the language picker (a browser cookie, nothing stored)
    "collection:verify",
    "collection:randomizer",
    "collection:wording",
    "collection:declined",
    "collection:receipt",
    "collection:consent",
    "collection:respond",
    "collection:consent_invitation",
    "collection:respond_invitation",
    "collection:device_content",
    "collection:device_content_invitation",
    "collection:device_report",
    "collection:device_report_invitation",
    "collection:withdraw",
    "collection:withdraw_lookup",
    "collection:unsubscribe",  # its signed token names one recipient
    "analysis:api_openapi",
    "themes:stylesheet",  # a theme's colour and logo, shown on respondent pages
    "themes:logo",
    "themes:accent_stylesheet",  # a survey's own accent colour, named in its URL
}
SIGNED_IN = {
    "audit_log",  # each reader sees the entries of their own surveys
    "audit_log_csv",
    "password_change",
    "password_change_done",
    "authoring:survey_list",
    "authoring:survey_create",
    "authoring:survey_import",
    "authoring:questionnaire_import",
    "analysis:api_tokens",
    "two_factor",
    "two_factor_setup",
    "two_factor_disable",
}
API = {"analysis:api_surveys", "analysis:api_survey", "analysis:api_reports"}
# Owner-scoped: every URL that names a survey (pk / survey_id) or a token.
OWNER_PREFIXES = ("authoring:", "collection:", "analysis:")


def walk(patterns, namespace: str | None = None):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern):
            name = pattern.name or ""
            yield (f"{namespace}:{name}" if namespace else name), pattern


ALL = list(walk(get_resolver().url_patterns))


def policy(name: str) -> str:
    if name.startswith("admin:"):
        return "admin"
    if name in PUBLIC:
        return "public"
    if name in SIGNED_IN:
        return "signed_in"
    if name in API:
        return "api"
    if name.startswith(OWNER_PREFIXES):
        return "owner"
    return "none"


OWNER_PATTERNS = [(name, p) for name, p in ALL if policy(name) == "owner"]
# Downloads that carry a survey's reports or answers: owner only, each named
# here so that one moved out of the owner's prefix fails loudly.
OWNER_EXPORTS = {
    "analysis:export_estimates_csv",
    "analysis:export_estimates_json",
    "analysis:export_reports_csv",
    "analysis:export_reports_json",
    "analysis:export_design",
    "analysis:export_methods_txt",
    "analysis:export_wide_csv",
    "analysis:export_wide_csv_bom",
    "analysis:export_sav",
    "analysis:export_dta",
    "analysis:export_codebook_csv",
    "analysis:export_codebook_json",
    "analysis:export_r",
    "analysis:export_job_request",
    "analysis:export_job_download",
}


def test_every_export_is_owner_scoped():
    names = {name for name, _ in ALL}
    assert names >= OWNER_EXPORTS
    assert {name for name in OWNER_EXPORTS if policy(name) != "owner"} == set()
    exports = {name for name in names if name and name.startswith("analysis:export_")}
    assert exports == OWNER_EXPORTS


def test_every_url_pattern_has_an_access_policy():
    unclassified = [name or str(p.pattern) for name, p in ALL if policy(name) == "none"]
    assert not unclassified, f"add these URLs to a policy: {unclassified}"


def test_every_url_pattern_outside_the_admin_has_a_name():
    nameless = [str(p.pattern) for name, p in ALL if not name.split(":")[-1]]
    # The admin's catch-all and object redirects are Django's own, unnamed.
    assert all(path.startswith(("<path", "(?P<url>")) for path in nameless), nameless


@pytest.fixture
def owners(django_user_model):
    ada = django_user_model.objects.create_user("ada", password="x" * 12)
    bob = django_user_model.objects.create_user("bob", password="x" * 12)
    survey = services.survey_create(owner=ada, title="Ada's survey")
    question = services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    # Offered in Spanish too (translated), so that its translation page exists.
    survey.languages = ["es"]
    survey.translations = {"es": {"title": "La encuesta de Ada"}}
    survey.save(update_fields=["languages", "translations"])
    question.translations = {"es": {"text": "¿Ha copiado en un examen?"}}
    question.save(update_fields=["translations"])
    return ada, bob, survey, question


def url_for(name: str, pattern: URLPattern, survey, question, token_pk=None) -> str:
    values = {
        "pk": survey.pk,
        "survey_id": survey.pk,
        "question_pk": question.pk,
        "token_pk": token_pk,
        "language": "es",
    }
    names = list(pattern.pattern.converters)
    if "job_pk" in names:
        values["job_pk"] = (
            _export_job_pk(survey)
            if name == "analysis:export_job_download"
            else _job_pk(survey)
        )
    missing = [arg for arg in names if values.get(arg) is None]
    assert not missing, f"{name}: give the matrix a value for {missing}"
    return reverse(name, kwargs={arg: values[arg] for arg in names})


def _job_pk(survey) -> int:
    """A background analysis job of the survey's, for URLs that name one."""
    from surveys.analysis.models import AnalysisJob

    job, _ = AnalysisJob.objects.get_or_create(
        survey=survey, kind="crosstab", params={"a": 1, "b": 2}, watermark=0
    )
    return job.pk


def _export_job_pk(survey) -> int:
    """A finished export job of the survey's with its file (for its download)."""
    from surveys.analysis.jobs import running as jobs
    from surveys.analysis.models import AnalysisJob

    job, _ = jobs.export_request(survey=survey, name="reports_csv")
    if job.status != AnalysisJob.Status.DONE:
        jobs.job_run(job_id=job.pk)
    return job.pk


def _token_pk(owner):
    """An API token of the owner's, for URLs that name one (if tokens exist)."""
    try:
        from surveys.api_tokens.models import ApiToken
    except ImportError:
        return None
    field_names = {f.name for f in ApiToken._meta.get_fields()}
    kwargs = {"user": owner} if "user" in field_names else {"owner": owner}
    if "token_hash" in field_names:
        kwargs["token_hash"] = "0" * 64
    if "name" in field_names:
        kwargs["name"] = "matrix"
    return ApiToken.objects.create(**kwargs).pk


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    ("name", "pattern"), OWNER_PATTERNS, ids=[n for n, _ in OWNER_PATTERNS]
)
def test_owner_scoped_url_admits_only_the_owner(client, owners, name, pattern, method):
    ada, bob, survey, question = owners
    url = url_for(name, pattern, survey, question, token_pk=_token_pk(ada))

    anonymous = getattr(client, method)(url)
    assert anonymous.status_code == 302, (name, method, anonymous.status_code)
    assert urlparse(anonymous["Location"]).path == resolve_url(settings.LOGIN_URL)

    client.force_login(bob)
    stranger = getattr(client, method)(url)
    client.force_login(ada)
    owner = getattr(client, method)(url)
    if stranger.status_code == 405:
        # The method is refused before any survey is looked up: the same for all.
        assert owner.status_code == 405, (name, method, owner.status_code)
        return
    assert stranger.status_code == 404, (name, method, stranger.status_code)
    # 2xx, a redirect after a successful action, 400 for an empty form post,
    # or 405 for the wrong method: never "not found" or "forbidden".
    assert owner.status_code not in {401, 403, 404}, (name, method, owner.status_code)


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(SIGNED_IN - {"password_change_done"}))
def test_signed_in_url_sends_anonymous_visitors_to_sign_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert urlparse(response["Location"]).path == resolve_url(settings.LOGIN_URL)


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(API))
def test_api_url_refuses_requests_without_a_token(client, owners, name):
    _, _, survey, question = owners
    pattern = dict(ALL)[name]
    response = client.get(url_for(name, pattern, survey, question))
    assert response.status_code == 401


@pytest.mark.django_db
def test_admin_refuses_a_researcher_who_is_not_staff(client, owners):
    ada, *_ = owners
    client.force_login(ada)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


@pytest.fixture
def respondent_of_b(client, owners):
    """A browser that has just answered Bob's survey B through its invitation."""
    _, bob, _, _ = owners
    survey_b = services.survey_create(owner=bob, title="Bob's survey")
    services.question_create(
        survey=survey_b,
        text="Have you ever lied on a CV?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    survey_b = services.survey_publish(survey=survey_b, user=bob)
    (token,) = collection_services.invitations_create(survey=survey_b, count=1)
    consent = client.get(reverse("collection:consent_invitation", args=[token]))
    assert consent.status_code == 200
    answer_url = reverse("collection:respond_invitation", args=[token])
    assert client.get(answer_url).status_code == 200
    answered = client.post(answer_url, body(survey_b))
    assert answered.status_code == 303
    assert client.get(answered["Location"]).status_code == 200
    assert client.cookies  # the session's cookies go with every request below
    return client, token, survey_b


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    ("name", "pattern"), OWNER_PATTERNS, ids=[n for n, _ in OWNER_PATTERNS]
)
def test_respondent_of_another_survey_is_sent_to_sign_in_by_owner_urls(
    respondent_of_b, owners, name, pattern, method
):
    client, _, _ = respondent_of_b
    ada, _, survey, question = owners
    before = Survey.objects.get(pk=survey.pk)
    url = url_for(name, pattern, survey, question, token_pk=_token_pk(ada))
    response = getattr(client, method)(url)
    assert response.status_code == 302, (name, method, response.status_code)
    assert urlparse(response["Location"]).path == resolve_url(settings.LOGIN_URL)
    after = Survey.objects.get(pk=survey.pk)
    assert (after.title, after.status, after.revision) == (
        before.title,
        before.status,
        before.revision,
    )


@pytest.mark.django_db
def test_respondent_of_another_survey_cannot_open_or_answer_survey_a_invitations(
    respondent_of_b, owners
):
    client, token_b, _ = respondent_of_b
    ada, _, survey_a, _ = owners
    survey_a = services.survey_publish(survey=survey_a, user=ada)
    collection_services.invitations_create(survey=survey_a, count=2)
    guess = "x" * len(token_b)
    for name in ("collection:consent_invitation", "collection:respond_invitation"):
        # A guessed token: "not valid", with nothing of survey A on the page.
        page = client.get(reverse(name, args=[guess]))
        assert page.status_code == 404
        assert survey_a.title not in page.content.decode()
        # Their own (used) token names survey B only, never survey A.
        used = client.get(reverse(name, args=[token_b]))
        assert used.status_code == 410
        assert survey_a.title not in used.content.decode()
    forged = client.post(
        reverse("collection:respond_invitation", args=[guess]), body(survey_a), **JSON
    )
    assert forged.status_code == 404
    reused = client.post(
        reverse("collection:respond_invitation", args=[token_b]),
        body(survey_a),
        **JSON,
    )
    assert 400 <= reused.status_code < 500
    assert not Submission.objects.filter(survey=survey_a).exists()
    assert not Invitation.objects.filter(survey=survey_a, used=True).exists()


# --- co-researchers (surveys.authoring.access) ------------------------------------
# What a viewer may open: reading the survey, its results and exports.  Asking
# for an export file, a cross-tab, a simulated pilot, a regression or weighted
# estimates queues a job, a read all the same.
VIEWER_URLS = {
    "authoring:survey_detail",
    "authoring:survey_import_report",
    "authoring:survey_definition",
    "analysis:dashboard",
    "analysis:dashboard_live",
    "analysis:crosstab",
    "analysis:job_status",
    "analysis:privacy",
    "analysis:pilot",
    "analysis:regression",
    "analysis:regression_csv",
    "analysis:weights",
    "analysis:weights_csv",
    "analysis:weights_r",
    *OWNER_EXPORTS,
}
# The owner's alone: archive, delete, who has access (and their own API tokens).
OWNER_ONLY_URLS = {
    "authoring:survey_archive",
    "authoring:survey_delete",
    "authoring:survey_people",
    "analysis:api_token_revoke",
}


def test_the_role_lists_name_real_owner_scoped_urls():
    names = {name for name, _ in OWNER_PATTERNS}
    assert names >= VIEWER_URLS and names >= OWNER_ONLY_URLS
    assert not VIEWER_URLS & OWNER_ONLY_URLS


@pytest.mark.sweeps
@pytest.mark.django_db
@pytest.mark.parametrize("role", ["editor", "viewer"])
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    ("name", "pattern"), OWNER_PATTERNS, ids=[n for n, _ in OWNER_PATTERNS]
)
def test_a_co_researcher_opens_exactly_what_their_role_allows(
    client, owners, name, pattern, method, role
):
    from surveys.authoring.models import Collaborator

    ada, bob, survey, question = owners
    Collaborator.objects.create(survey=survey, user=bob, role=role)
    url = url_for(name, pattern, survey, question, token_pk=_token_pk(ada))
    allowed = name in VIEWER_URLS if role == "viewer" else name not in OWNER_ONLY_URLS
    client.force_login(bob)
    response = getattr(client, method)(url)
    if response.status_code == 405:
        return  # the method is refused before any survey is looked up
    if allowed:
        assert response.status_code not in {401, 403, 404}, (
            name,
            method,
            role,
            response.status_code,
        )
    else:
        # 404, as for a stranger: no hint of what the role lacks.
        assert response.status_code == 404, (name, method, role, response.status_code)


@pytest.mark.django_db
def test_a_shared_survey_is_listed_with_who_shared_it(client, owners):
    from surveys.authoring.models import Collaborator

    _, bob, survey, _ = owners
    Collaborator.objects.create(survey=survey, user=bob, role="viewer")
    client.force_login(bob)
    html = client.get(reverse("authoring:survey_list")).content.decode()
    detail = reverse("authoring:survey_detail", args=[survey.pk])
    assert detail in html and "shared with you by ada" in html


@pytest.mark.django_db
def test_the_api_serves_a_shared_survey_to_a_viewers_token(client, owners):
    from surveys.api_tokens.services import api_token_create
    from surveys.authoring.models import Collaborator

    _, bob, survey, _ = owners
    secret = api_token_create(user=bob, name="bob").secret
    url = reverse("analysis:api_survey", kwargs={"pk": survey.pk})
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    assert client.get(url, **auth).status_code == 404
    Collaborator.objects.create(survey=survey, user=bob, role="viewer")
    assert client.get(url, **auth).status_code != 404
