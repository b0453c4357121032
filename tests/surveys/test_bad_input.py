"""Bad input never gives a 5xx (docs/testing.md, section 4): a sweep of every URL.

Every URL pattern of the project (the admin's aside from its sign-in page) is
listed here, and a new one without an entry fails the suite.  Hypothesis then
sends each one hostile input, derandomized and bounded in count:

- every URL: GET with random query strings (the parameters it reads and others);
- forms (respondent and researcher): POST bodies in which at least one field
  holds a value that must be refused (huge, NaN or infinite numbers, strings
  that are not numbers, too long, a repeated key, …) while the others are
  random, missing or extra → a 4xx or the form page again, and nothing stored;
- actions without fields (publish, revoke, …): random bodies → never a 5xx;
- the bearer API: random paging parameters → 200 or a 4xx.

Each example runs inside a savepoint that is rolled back, so examples do not
see each other's effects.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from surveys.accounts import two_factor
from surveys.analysis.exports import kinds as export_kinds
from surveys.api_tokens.services import api_token_create
from surveys.authoring import services as authoring
from surveys.authoring import translation_services
from surveys.authoring.forms import GridForm, QuestionForm
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.planning_forms import PlanningForm
from surveys.authoring.survey_forms import SurveyForm
from surveys.collection import services as collection
from surveys.collection.forms import ResponseForm
from surveys.collection.tokens import new_receipt_code
from tests.surveys import bad_input
from tests.surveys.bad_input import CORE_NASTY, NASTY_NUMBERS, any_text, body, with_bad
from tests.surveys.collection.conftest import body as response_body
from tests.surveys.test_authorization_matrix import ALL, policy

pytestmark = pytest.mark.django_db

PASSWORD = "the owner's passphrase 42"
OPTIONS = ("Red", "Green", "Blue")
SCALE = ("Never", "Sometimes", "Often")
GRID = {"low": Decimal("0.5"), "high": Decimal("5"), "step": Decimal("0.5")}
KINDS = {
    "yes_no": {},
    "single_choice": {"options": OPTIONS},
    "ordinal": {"options": SCALE},
    "numeric": GRID,
    "multi_select": {"options": OPTIONS, "max_selections": 2},
}

# The protected number takes discrete Laplace noise: its bins need reports that
# are numbers (the default for this grid, Duchi's, identifies the mean alone).
PROTECTED = {"numeric": {"mechanism": "geometric"}}

# Refused by any numeric field: not a finite number, or far out of any range.
NOT_A_NUMBER = [
    "1e309",
    "-1e309",
    "1e99999999999999999999",
    "NaN",
    "-nan",
    "Infinity",
    "-inf",
    "9" * 5000,
    "0x10",
    "²",
    "1e",
    "abc",
    "\x00",
]
BAD_FLOAT = st.sampled_from([*NOT_A_NUMBER, "9" * 20, "-" + "9" * 20])
BAD_INT = st.sampled_from(
    [*NOT_A_NUMBER, "9" * 20, "-" + "9" * 20, str(2**63), "1.5", "1e-400"]
)
# Refused by the builder's decimals (at most 14 digits, 4 of them decimals).
BAD_DECIMAL = st.sampled_from(
    [*NOT_A_NUMBER, "9" * 20, "1e-400", "0.00001", "1.00000000000000000000000000001"]
)
CODES = {"en", "es", "fr", "ar"}  # settings.LANGUAGES
BAD_TEXT = st.sampled_from(["", "   ", "x\x00y"])
NOT_A_CODE = st.one_of(st.sampled_from(NASTY_NUMBERS), any_text).filter(
    lambda text: not (text.strip().isdigit() and len(text.strip()) == 6)
)


@dataclass
class Form:
    """A POST endpoint with fields; ``bad`` maps fields to values it must refuse."""

    role: str
    fields: tuple[str, ...]
    bad: dict[str, st.SearchStrategy]
    # Valid bodies: one field of one of them is spoiled in most examples.
    bases: list[dict] = field(default_factory=list)
    # Statuses a refusal may have ("the form page again" is 200).
    refusals: frozenset[int] = frozenset({200, 400, 409, 410})


@dataclass
class World:
    owner: Any
    survey: Any
    question: Any
    invitation: str
    token: Any
    clients: dict[str, Client] = field(default_factory=dict)


def test_the_sweep_posts_to_every_state_changing_url():
    from tests.surveys.test_csrf import STATE_CHANGING

    assert set(STATE_CHANGING) <= POSTED, set(STATE_CHANGING) - POSTED


def _survey_fields() -> tuple[str, ...]:
    return tuple(SurveyForm.base_fields)


def _question_fields() -> tuple[str, ...]:
    return tuple(QuestionForm.base_fields)


def forms_for(world: World) -> dict[str, Form]:
    survey_bad = {
        "title": st.one_of(BAD_TEXT, st.just("x" * 201)),
        "epsilon_budget": st.one_of(BAD_FLOAT, st.sampled_from(["0", "-1", "101"])),
        "planned_respondents": st.one_of(
            BAD_INT, st.sampled_from(["0", "-1", "10000001"])
        ),
    }
    question_bad = {
        "kind": any_text.filter(
            lambda v: v not in dict(QuestionForm.base_fields["kind"].choices)
        ),
        "text": st.one_of(BAD_TEXT, st.just("x" * 501)),
        "numeric_low": BAD_DECIMAL,
        "numeric_high": BAD_DECIMAL,
        "numeric_step": BAD_DECIMAL,
        "requested_epsilon": st.one_of(BAD_FLOAT, st.sampled_from(["0", "-1", "11"])),
        "max_selections": st.one_of(BAD_INT, st.sampled_from(["0", "-1"])),
        "protection": any_text.filter(lambda v: v not in {"protected", "plain"}),
        **{
            name: st.one_of(BAD_DECIMAL, st.sampled_from(["0", "-5", "100", "12.55"]))
            for name in (
                "fr_truthful",
                "fr_forced_yes",
                "fr_forced_no",
                "uq_truthful",
                "uq_prevalence",
            )
        },
    }
    response_fields = tuple(ResponseForm(survey=world.survey).fields)
    response_bad: dict[str, st.SearchStrategy] = {
        "idempotency_key": st.one_of(BAD_TEXT, st.sampled_from(NASTY_NUMBERS)),
        "survey_revision": st.one_of(BAD_INT, st.sampled_from(["0", "-1"])),
    }
    for question in world.survey.questions.all():
        name = f"q{question.pk}"
        if question.is_private:
            response_bad[f"{name}_report"] = st.one_of(
                st.sampled_from(["1e309", "[1e309]", "-1", "99", "[99]", "NaN", "{}"]),
                BAD_TEXT,
            )
            response_bad[f"{name}_spec_revision"] = st.one_of(
                BAD_INT, st.sampled_from(["0", "-1"])
            )
        elif question.kind == "numeric":
            response_bad[name] = st.one_of(
                st.sampled_from(NASTY_NUMBERS).filter(lambda v: v.strip() != ""),
                st.sampled_from(["0", "5.5", "0.75", "1.00001", "-0.5"]),
            )
        else:
            response_bad[name] = st.one_of(
                BAD_INT, st.sampled_from(["3", "-1", "2.0", "yes"])
            ).filter(lambda v: v.strip() != "")
    survey_base = {
        "title": "A survey",
        "description": "",
        "consent_text": "",
        "epsilon_budget": "10",
        "planned_respondents": "100",
    }
    question_bases = [
        {
            "kind": "numeric",
            "text": "How many?",
            "numeric_low": "0",
            "numeric_high": "10",
            "numeric_step": "0.5",
            "protection": "protected",
            "requested_epsilon": "1",
        },
        {
            "kind": "multi_select",
            "text": "Which?",
            "options": "A\nB\nC",
            "max_selections": "2",
            "protection": "plain",
            "not_private_acknowledged": "on",
        },
        {
            "kind": "yes_no",
            "text": "Ever?",
            "protection": "protected",
            # No requested_epsilon: a design's ε comes from its split.
            "design": "custom",
            "fr_truthful": "40",
            "fr_forced_yes": "30",
            "fr_forced_no": "30",
        },
        {
            "kind": "yes_no",
            "text": "Ever?",
            "protection": "protected",
            "design": "unrelated_question",
            "uq_truthful": "20",
            "uq_prevalence": "50",
        },
    ]
    sign_in = {"username": "ada", "password": PASSWORD}
    new_password = "a brand new passphrase 7"
    return {
        "login": Form(
            "anonymous",
            ("username", "password", "otp_code", "next"),
            {
                "password": any_text.filter(lambda v: v != PASSWORD),
            },
            [sign_in],
        ),
        "admin:login": Form(
            "anonymous",
            ("username", "password", "otp_code", "next"),
            {
                "password": any_text.filter(lambda v: v != PASSWORD),
            },
            [sign_in],
        ),
        "password_change": Form(
            "owner",
            ("old_password", "new_password1", "new_password2"),
            {"old_password": any_text.filter(lambda v: v != PASSWORD)},
            [
                {
                    "old_password": PASSWORD,
                    "new_password1": new_password,
                    "new_password2": new_password,
                }
            ],
        ),
        "authoring:survey_create": Form(
            "owner", _survey_fields(), survey_bad, [survey_base]
        ),
        "authoring:survey_edit": Form(
            "owner", _survey_fields(), survey_bad, [survey_base]
        ),
        "authoring:question_create": Form(
            "owner", _question_fields(), question_bad, question_bases
        ),
        "authoring:question_edit": Form(
            "owner", _question_fields(), question_bad, question_bases
        ),
        "authoring:grid_create": Form(
            "owner",
            tuple(GridForm.base_fields),
            {
                "stem": st.one_of(BAD_TEXT, st.just("x" * 201)),
                "items": st.sampled_from(["only one", "\n".join("x" * 21), "a\na"]),
                "options": st.sampled_from(["", "just one"]),
                "requested_epsilon": st.one_of(
                    BAD_FLOAT, st.sampled_from(["0", "-1", "11"])
                ),
            },
            [
                {
                    "stem": "How often have you done each?",
                    "items": "Cheated\nLied",
                    "options": "Never\nSometimes\nOften",
                    "requested_epsilon": "1",
                }
            ],
        ),
        # A refused move shows a message on the survey page (a redirect).
        "authoring:question_move": Form(
            "owner",
            ("direction",),
            {"direction": any_text.filter(lambda v: v not in {"up", "down"})},
            refusals=frozenset({302}),
        ),
        "collection:invitations": Form(
            "owner",
            ("count",),
            {"count": st.one_of(BAD_INT, st.sampled_from(["0", "10001"]))},
            [{"count": "5"}],
        ),
        "analysis:api_tokens": Form(
            "owner",
            ("name", "days"),
            {
                "name": st.one_of(BAD_TEXT, st.just("x" * 101)),
                "days": st.one_of(BAD_INT, st.sampled_from(["0", "366"])),
            },
            [{"name": "a script", "days": "30"}],
        ),
        "analysis:export_job_request": Form(
            "owner",
            ("export",),
            {"export": any_text.filter(lambda v: export_kinds.get(v.strip()) is None)},
            [{"export": "reports_csv"}],
        ),
        # Cut points of the protected number question (0.5 to 5 in steps of 0.5).
        "analysis:question_bins": Form(
            "owner",
            ("cuts",),
            {
                "cuts": st.one_of(
                    BAD_TEXT,
                    BAD_FLOAT,
                    st.sampled_from(["3, 2", "0", "6", "0.7, 0.8", "1 2 1", "a, b"]),
                )
            },
            [{"cuts": "1, 2.5"}],
        ),
        # The survey's consistent-estimate method: one of two names.
        "analysis:consistent_method": Form(
            "owner",
            ("method",),
            {"method": any_text.filter(lambda v: v not in ("norm-sub", "mle"))},
            [{"method": "mle"}],
        ),
        "two_factor_setup": Form("owner", ("code",), {"code": NOT_A_CODE}),
        "collection:respond": Form(
            "anonymous", response_fields, response_bad, [response_body(world.survey)]
        ),
        "collection:respond_invitation": Form(
            "anonymous", response_fields, response_bad, [response_body(world.survey)]
        ),
        # The independent device's reports: the same form, answered in JSON.
        "collection:device_report": Form(
            "anonymous", response_fields, response_bad, [response_body(world.survey)]
        ),
        "collection:device_report_invitation": Form(
            "anonymous", response_fields, response_bad, [response_body(world.survey)]
        ),
        "collection:test_mode": Form(
            "owner", response_fields, response_bad, [response_body(world.survey)]
        ),
        "authoring:survey_schedule": Form(
            "owner",
            (
                "time_zone",
                "opens_at",
                "closes_at",
                "close_at_responses",
                "invitation_only",
            ),
            {
                "time_zone": any_text.filter(lambda v: "/" not in v and v != "UTC"),
                "opens_at": st.one_of(BAD_TEXT, st.just("2026-13-40T25:61")),
                "close_at_responses": st.one_of(BAD_INT, st.sampled_from(["0"])),
            },
            [{"time_zone": "UTC", "close_at_responses": "5"}],
        ),
        # Deleting needs the survey's title typed exactly.
        "authoring:survey_delete": Form(
            "owner",
            ("confirm_title",),
            {"confirm_title": any_text.filter(lambda v: v.strip() != "")},
        ),
        "collection:withdraw_lookup": Form("anonymous", ("code",), {"code": any_text}),
        # A survey's languages: only codes of settings.LANGUAGES.
        "authoring:survey_languages": Form(
            "owner",
            ("source_language", "languages", "record_language"),
            # (The source language of this published survey is a disabled field.)
            {"languages": any_text.filter(lambda v: v not in CODES)},
            [{"source_language": "en", "languages": "es"}],
        ),
        # A translation: texts only, never a null character or an endless line.
        "authoring:survey_translation": Form(
            "owner",
            ("survey_title",),
            {"survey_title": st.sampled_from(["x\x00y", "x" * 501])},
            [{"survey_title": "Barrido"}],
        ),
    }


# POST endpoints that read no field: any body, never a 5xx.
ACTIONS = {
    "logout": "owner",
    "authoring:survey_publish": "owner",
    "authoring:survey_close": "owner",
    "authoring:survey_reopen": "owner",
    "authoring:survey_duplicate": "owner",
    "authoring:survey_import": "owner",  # a form, but with no file it is refused
    "authoring:questionnaire_import": "owner",  # a file upload: no file, refused
    "authoring:survey_people": "owner",  # a form: no account named, refused
    "authoring:question_delete": "owner",
    "two_factor": "owner",
    "two_factor_disable": "owner",
    "analysis:api_token_revoke": "owner",
    "authoring:survey_archive": "owner",
    "collection:preview": "owner",
    "collection:test_responses_delete": "owner",
    "collection:withdraw": "anonymous",
    "collection:recipients": "owner",  # a file upload: no file, refused
    "collection:recipients_send": "owner",
    "collection:unsubscribe": "anonymous",  # the sweep's token is not a signed one
    "set_language": "anonymous",  # the language picker: a browser cookie at most
    "password_reset": "anonymous",  # no address of an account: nothing is sent
    "password_reset_confirm": "anonymous",  # the sweep's link is not a signed one
    "signup": "anonymous",  # closed unless SIGNUP says otherwise: refused
    "signup_verify": "anonymous",  # the sweep's link is not a signed one
}
# Query parameters each GET reads (random others are added).
QUERY_FIELDS = {
    "analysis:crosstab": ("a", "b", "q", "by"),
    "authoring:question_preview": (
        *QuestionForm.base_fields,
        *(f"plan-{name}" for name in PlanningForm.base_fields),
        "question",
    ),
    "analysis:pilot": ("n",),
    "analysis:regression": ("outcome", "covariate"),
    "analysis:regression_csv": ("outcome", "covariate"),
    "analysis:weights": ("weigh",),
    "analysis:weights_csv": ("weigh",),
    "analysis:privacy": ("k",),
    "analysis:api_reports": ("after", "limit"),
    "login": ("next",),
    "collection:device_content": ("language",),
    "collection:device_content_invitation": ("language",),
}


def query_bases(world: World) -> dict[str, list[dict]]:
    """Valid query strings of the GETs that read parameters."""
    by_kind = {(q.kind, q.is_private): str(q.pk) for q in world.survey.questions.all()}
    return {
        "analysis:pilot": [
            {"n": "50", f"share-{by_kind['yes_no', True]}": "30, 70"},
            {"n": "20"},
        ],
        "analysis:privacy": [{"k": "7"}],
        **{
            name: [
                {
                    "outcome": by_kind["yes_no", True],
                    "covariate": by_kind["single_choice", False],
                },
                {
                    "outcome": by_kind["numeric", True],
                    "covariate": by_kind["numeric", False],
                },
            ]
            for name in ("analysis:regression", "analysis:regression_csv")
        },
        **{
            name: [
                {
                    "weigh": "1",
                    f"margin-{by_kind['single_choice', False]}": ", ".join(
                        ["0"] * (len(OPTIONS) - 1) + ["100"]
                    ),
                },
                {"weigh": "1", f"margin-{by_kind['yes_no', False]}": "40, 60"},
            ]
            for name in ("analysis:weights", "analysis:weights_csv")
        },
        "analysis:crosstab": [
            {"a": by_kind["yes_no", True], "b": by_kind["single_choice", True]},
            {"q": by_kind["numeric", True], "by": by_kind["yes_no", True]},
        ],
        "authoring:question_preview": [
            {
                "kind": "numeric",
                "numeric_low": "0",
                "numeric_high": "10",
                "numeric_step": "1",
                "protection": "protected",
                "requested_epsilon": "1",
                "question": str(world.question.pk),
            },
            {
                "kind": "multi_select",
                "options": "A\nB\nC",
                "max_selections": "2",
                "protection": "protected",
                "requested_epsilon": "2",
                "mechanism": "padding_sampling",
                "question": str(world.question.pk),
            },
            {
                "kind": "yes_no",
                "protection": "protected",
                "design": "unrelated_question",
                "uq_truthful": "60",
                "uq_prevalence": "25",
                "question": str(world.question.pk),
            },
        ],
        "analysis:api_reports": [{"after": "0", "limit": "5"}],
        "login": [{"next": "/surveys/"}],
    }


BEARER_API = {"analysis:api_surveys", "analysis:api_survey", "analysis:api_reports"}

NAMED = [(name, pattern) for name, pattern in ALL if name.split(":")[-1]]
SWEPT = [(n, p) for n, p in NAMED if not n.startswith("admin:") or n == "admin:login"]


def examples(count: int) -> hypothesis_settings:
    return hypothesis_settings(
        max_examples=count,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


@pytest.fixture
def world(django_user_model) -> World:
    # Staff too, so that the admin's sign-in has a valid body to spoil.
    owner = django_user_model.objects.create_user(
        "ada", password=PASSWORD, is_staff=True
    )
    survey = authoring.survey_create(owner=owner, title="Sweep", epsilon_budget=20)
    for kind, extra in KINDS.items():
        authoring.question_create(
            survey=survey,
            text=f"Protected {kind}?",
            privacy=PrivacyConfig(kind, **extra, **PROTECTED.get(kind, {})),
        )
        authoring.question_create(
            survey=survey,
            text=f"Plain {kind}?",
            privacy=PrivacyConfig(kind, is_private=False, **extra),
            not_private_acknowledged=True,
        )
    survey = authoring.survey_publish(survey=survey, user=owner)
    # Offered in Spanish too (not yet translated): its translation page exists.
    survey = translation_services.survey_languages_update(
        survey=survey,
        user=owner,
        source_language="en",
        languages=["es"],
        record_language=False,
    )
    (invitation,) = collection.invitations_create(survey=survey, count=1)
    token = api_token_create(user=owner, name="sweep")
    two_factor.enrolment_start(user=owner)  # a set-up waiting for its code
    owner_client = Client()
    owner_client.force_login(owner)
    return World(
        owner=owner,
        survey=survey,
        question=survey.questions.first(),
        invitation=invitation,
        token=token,
        clients={"owner": owner_client, "anonymous": Client()},
    )


def url_for(name: str, pattern, world: World) -> str:
    values = {
        "pk": world.survey.pk,
        "survey_id": world.survey.pk,
        "question_pk": world.question.pk,
        "token_pk": world.token.token.pk,
        "public_token": world.survey.public_token,
        "token": world.invitation,
        "receipt": new_receipt_code(),  # names no submission
        "language": "es",
        "uidb64": "MQ",  # an account id in a one-time link; the link is not signed
        "version": "1",  # a theme's version in its stylesheet and logo addresses
        "hex_digits": "0b5cad",  # a survey's accent colour in its stylesheet's
    }
    if name == "analysis:question_bins":  # only a number question has bins
        values["question_pk"] = world.survey.questions.get(
            kind="numeric", is_private=True
        ).pk
    names = list(pattern.pattern.converters)
    if "job_pk" in names:  # a background analysis job of the survey's
        from surveys.analysis.models import AnalysisJob

        values["job_pk"] = AnalysisJob.objects.get_or_create(
            survey=world.survey, kind="crosstab", params={"a": 1, "b": 2}, watermark=0
        )[0].pk
    missing = [arg for arg in names if arg not in values]
    assert not missing, f"{name}: give the sweep a value for {missing}"
    return reverse(name, kwargs={arg: values[arg] for arg in names})


def fingerprint() -> dict[str, str]:
    """A digest of every stored row, but sign-in bookkeeping (sessions, failed
    attempts, two-factor throttling) that a refused request may write."""
    skipped = {"sessions.Session", "otp_totp.TOTPDevice"}
    digest = {}
    for model in apps.get_models():
        label = model._meta.label
        if label in skipped or label.startswith("axes."):
            continue
        rows = list(model._default_manager.order_by("pk").values_list())
        digest[label] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return digest


@contextmanager
def rolled_back(client: Client) -> Iterator[None]:
    """Run one example in a savepoint that is undone, cookies restored."""
    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
    session_key = cookie.value if cookie else None
    with transaction.atomic():
        yield
        transaction.set_rollback(True)
    if session_key:
        client.cookies[settings.SESSION_COOKIE_NAME] = session_key


def role_of(name: str) -> str:
    if name in BEARER_API:
        return "bearer"
    return "anonymous" if policy(name) == "public" else "owner"


def request(
    world: World,
    role: str,
    method: str,
    url: str,
    data: dict,
    commit: bool = False,
    **extra,
):
    """One request as ``role``, undone afterwards unless ``commit``."""
    if role == "bearer":
        client = world.clients["anonymous"]
        extra["HTTP_AUTHORIZATION"] = f"Bearer {world.token.secret}"
    else:
        client = world.clients[role]
    if commit:
        return getattr(client, method)(url, data, **extra)
    with rolled_back(client):
        return getattr(client, method)(url, data, **extra)


FORM_NAMES = {
    "login",
    "analysis:question_bins",
    "analysis:consistent_method",
    "admin:login",
    "password_change",
    "authoring:survey_create",
    "authoring:survey_edit",
    "authoring:question_create",
    "authoring:question_edit",
    "authoring:grid_create",
    "authoring:question_move",
    "collection:invitations",
    "analysis:api_tokens",
    "analysis:export_job_request",
    "two_factor_setup",
    "collection:respond",
    "collection:respond_invitation",
    "collection:device_report",
    "collection:device_report_invitation",
    "collection:test_mode",
    "authoring:survey_schedule",
    "authoring:survey_delete",
    "collection:withdraw_lookup",
    "authoring:survey_languages",
    "authoring:survey_translation",
}
POSTED = FORM_NAMES | set(ACTIONS)


@pytest.mark.sweeps
@pytest.mark.parametrize(("name", "pattern"), SWEPT, ids=[n for n, _ in SWEPT])
def test_random_query_strings_never_give_a_server_error(world, name, pattern):
    url = url_for(name, pattern, world)
    role = role_of(name)

    fields = QUERY_FIELDS.get(name, ())

    @examples(25 if fields else 8)
    @given(params=bad_input.query(fields, query_bases(world).get(name)))
    def sweep(params):
        response = request(world, role, "get", url, params)
        assert response.status_code < 500, (name, params, response.status_code)

    sweep()


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(FORM_NAMES))
def test_forms_refuse_bad_fields_and_store_nothing(world, name):
    form = forms_for(world)[name]
    url = url_for(name, dict(ALL)[name], world)
    before = fingerprint()

    @examples(40)
    @given(data=with_bad(form.fields, form.bad, form.bases))
    def sweep(data):
        response = request(world, form.role, "post", url, data)
        status = response.status_code
        assert status < 500, (name, data, status)
        assert status in form.refusals or 400 <= status < 500, (name, data, status)
        assert "/login/" not in response.get("Location", ""), (name, "signed out")
        assert fingerprint() == before, (name, data)

    sweep()
    assert fingerprint() == before


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(ACTIONS))
def test_actions_with_random_bodies_never_give_a_server_error(world, name):
    url = url_for(name, dict(ALL)[name], world)

    @examples(10)
    @given(data=body(()))
    def sweep(data):
        response = request(world, ACTIONS[name], "post", url, data)
        assert response.status_code < 500, (name, data, response.status_code)

    sweep()


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(BEARER_API))
def test_api_paging_parameters_give_200_or_400(world, name):
    url = url_for(name, dict(ALL)[name], world)

    @examples(30)
    @given(params=bad_input.query(("after", "limit"), [{"after": "0", "limit": "5"}]))
    def sweep(params):
        response = request(world, "bearer", "get", url, params)
        assert response.status_code in {200, 400}, (name, params, response.status_code)
        if response.status_code == 400:
            message = response.json()["error"]
            assert "must be" in message or "Unknown query parameters" in message

    sweep()


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(FORM_NAMES))
def test_each_valid_base_body_is_accepted(world, name):
    """The bases are valid, so a refusal in the sweep is the spoiled field's."""
    form = forms_for(world)[name]
    url = url_for(name, dict(ALL)[name], world)
    for base in form.bases:
        before = fingerprint()
        response = request(world, form.role, "post", url, base, commit=True)
        # 201: the independent device's report endpoints answer in JSON.
        assert response.status_code in {200, 201, 302, 303}, (
            name,
            response.status_code,
        )
        assert fingerprint() != before, (name, "the valid body stored nothing")


@pytest.mark.sweeps
@pytest.mark.parametrize(
    "name",
    [
        "analysis:crosstab",
        "authoring:question_preview",
        "analysis:pilot",
        "analysis:regression",
        "analysis:weights",
        "analysis:privacy",
    ],
)
def test_each_valid_base_query_is_answered(world, name):
    url = url_for(name, dict(ALL)[name], world)
    for base in query_bases(world)[name]:
        response = request(world, role_of(name), "get", url, base)
        assert response.status_code == 200, (name, base)
        if name == "authoring:question_preview":
            assert response.json().get("ok", True) is not False, response.json()


def _nasty_variants(bases: list[dict], fields) -> Iterator[dict]:
    for base in bases:
        for name in fields:
            for value in CORE_NASTY:
                yield {**base, name: value}
            yield {key: value for key, value in base.items() if key != name}


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(FORM_NAMES))
def test_every_form_field_survives_every_nasty_number(world, name):
    """Each field of a valid body in turn: each nasty number, or missing."""
    form = forms_for(world)[name]
    url = url_for(name, dict(ALL)[name], world)
    for data in _nasty_variants(form.bases or [{}], form.fields):
        response = request(world, form.role, "post", url, data)
        assert response.status_code < 500, (name, data, response.status_code)


@pytest.mark.sweeps
@pytest.mark.parametrize("name", sorted(QUERY_FIELDS))
def test_every_query_parameter_survives_every_nasty_number(world, name):
    url = url_for(name, dict(ALL)[name], world)
    bases = query_bases(world).get(name) or [{}]
    for params in _nasty_variants(bases, QUERY_FIELDS[name]):
        response = request(world, role_of(name), "get", url, params)
        assert response.status_code < 500, (name, params, response.status_code)
