"""A published survey with one question per mechanism family, and respondents."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import numpy as np
import pytest
from kombu import pools

import ldp
from surveys.analysis.results import selectors
from surveys.analysis.tallies.services import tallies_refresh
from surveys.analysis.tallies.snapshots import snapshot_refresh
from surveys.authoring import services as authoring
from surveys.authoring.mechanisms import YES_NO_OPTIONS, PrivacyConfig
from surveys.authoring.models import Survey
from surveys.celery import app as celery_app
from surveys.collection.models import Report
from surveys.collection.responses import ResponseIn, SentReport
from surveys.collection.services import submission_ingest, submissions_ingest_bulk
from tests.surveys.analysis.dashboard_support import PASSWORD
from tests.surveys.stored_reports import payloads

FOUR = ("Never", "Sometimes", "Often", "Always")
GRID = {"low": Decimal(0), "high": Decimal(10), "step": Decimal(1)}
# (mechanism, kind, extra config): every family ldp ships.
FAMILIES = [
    ("warner", "yes_no", {"options": YES_NO_OPTIONS}),
    ("forced_response", "yes_no", {"options": YES_NO_OPTIONS}),
    ("grr", "single_choice", {"options": FOUR}),
    ("oue", "single_choice", {"options": FOUR}),
    ("sue", "single_choice", {"options": FOUR}),
    ("olh", "single_choice", {"options": FOUR}),
    ("hadamard", "single_choice", {"options": FOUR}),
    ("ordinal", "ordinal", {"options": FOUR}),
    ("geometric", "numeric", GRID),
    ("piecewise", "numeric", GRID),
    ("duchi", "numeric", GRID),
    ("gaussian", "numeric", GRID),
    ("multi_rr", "multi_select", {"options": FOUR}),
    ("padding_sampling", "multi_select", {"options": FOUR, "max_selections": 2}),
]


@pytest.fixture
def researcher(django_user_model):
    """Grace: the owner of the module's kept survey (``kept_family``), else new."""
    kept = django_user_model.objects.filter(username="grace").first()
    return kept or django_user_model.objects.create_user(
        "grace", password="correct horse 42"
    )


# ε per question: one question per family (14) stays within the survey ceiling
# respondents' devices enforce (ε ≤ 10 in total; ldp/spec/ceilings.py).
FAMILY_EPSILON = 0.7


def make_survey(owner, families=FAMILIES, *, plain: bool = True) -> Survey:
    """Create and publish a survey with one ε = 0.7 question per family."""
    survey = authoring.survey_create(
        owner=owner, title="Every family", epsilon_budget=float(len(families) + 1)
    )
    for name, kind, extra in families:
        authoring.question_create(
            survey=survey,
            text=f"Question under {name}",
            privacy=PrivacyConfig(
                kind=kind, epsilon=FAMILY_EPSILON, mechanism=name, **extra
            ),
        )
    if plain:
        authoring.question_create(
            survey=survey,
            text="Not protected",
            privacy=PrivacyConfig(kind="yes_no", is_private=False),
            not_private_acknowledged=True,
        )
    return authoring.survey_publish(survey=survey, user=owner)


def window(submissions: int, families=FAMILIES) -> int:
    """The batch size whose keyset windows hold ``submissions`` submissions of
    a survey of ``families`` (a batch counts reports over all the questions;
    ``tallies.windows``): several windows without one per submission."""
    return submissions * len(families)


@pytest.fixture
def family_survey(researcher) -> Survey:
    return make_survey(researcher)


@pytest.fixture(scope="module")
def kept_family(django_db_setup, django_db_blocker) -> Iterator[int]:
    """The pk of grace's published, unanswered survey of every family, made
    once for the module (``tests.conftest.module_rows``)."""
    from django.contrib.auth import get_user_model

    from tests.conftest import module_rows

    def make() -> int:
        owner = get_user_model().objects.create_user(
            "grace", password="correct horse 42"
        )
        return make_survey(owner).pk

    yield from module_rows(django_db_blocker, make)


@pytest.fixture
def shared_family_survey(kept_family, researcher) -> Survey:
    """``family_survey`` made once per module: a module whose tests add their
    reports inside their own (rolled-back) transaction and hold no test of
    ``transaction=True`` names it ``family_survey``."""
    return _fresh(kept_family)


def responses(survey: Survey, count: int, seed: int = 1) -> list[ResponseIn]:
    """``count`` simulated responses, randomized by the Python reference."""
    rng = np.random.default_rng(seed)
    columns: dict[int, list] = {}
    revisions: dict[int, int] = {}
    plain: list[int] = []
    for question in survey.questions.all():
        if not question.is_private:
            plain.append(question.pk)
            continue
        mechanism = ldp.build(question.spec)
        if question.kind == "multi_select":
            truth = (rng.random((count, mechanism.k)) < 0.3).astype(np.int64)
            if question.max_selections:
                truth[:, question.max_selections :] = 0
        else:
            truth = rng.integers(0, mechanism.k, size=count)
        columns[question.pk] = mechanism.randomize(truth, rng).tolist()
        revisions[question.pk] = question.spec_revision
    return [
        ResponseIn(
            idempotency_key=uuid.uuid4(),
            survey_revision=survey.revision,
            reports={
                pk: SentReport(revisions[pk], values[i])
                for pk, values in columns.items()
            },
            plain_answers={pk: 1 for pk in plain},
        )
        for i in range(count)
    ]


@contextmanager
def untallied() -> Iterator[None]:
    """Store reports without the refresh their commit would enqueue (or run)."""
    from surveys.analysis.receivers import refresh_when_reports_commit
    from surveys.collection.signals import reports_committed

    uid = "analysis-refresh-tallies"
    reports_committed.disconnect(dispatch_uid=uid)
    try:
        yield
    finally:
        reports_committed.connect(refresh_when_reports_commit, dispatch_uid=uid)


def submit_bulk(survey: Survey, count: int, seed: int = 1) -> int:
    return submissions_ingest_bulk(
        survey=survey, responses=responses(survey, count, seed)
    )


def release(survey: Survey) -> None:
    """Tally the stored reports and apply the release rule, as the tasks a
    real submission announces would (tests run no commit hooks)."""
    tallies_refresh(survey_id=survey.pk)
    snapshot_refresh(survey_id=survey.pk)


def submit_one(survey: Survey, seed: int = 1):
    (response,) = responses(survey, 1, seed)
    return submission_ingest(survey=survey, response=response)


def direct_stats(survey: Survey, *, upto: int | None = None) -> dict:
    """ldp's aggregate of the stored reports, computed here without tallies."""
    stats: dict[tuple[int, int], dict] = {}
    for question in survey.questions.filter(is_private=True):
        reports = Report.objects.filter(question=question).order_by("id")
        if upto is not None:
            reports = reports.filter(id__lte=upto)
        by_revision: dict[int, list] = {}
        for revision, payload in payloads(reports, "spec_revision"):
            by_revision.setdefault(revision, []).append(payload)
        for revision, sent in by_revision.items():
            spec = question.spec_revisions.get(revision=revision).spec
            stat = ldp.build(spec).aggregate(sent)
            stats[(question.pk, revision)] = stat.to_dict()
    return stats


def tally_stats(survey: Survey) -> dict:
    return {
        key: stat.to_dict()
        for key, stat in selectors.survey_tallies(survey_id=survey.pk).items()
    }


def _drop_connections() -> None:
    pools.reset()  # closes and forgets every pooled broker connection
    celery_app._pool = None
    amqp = celery_app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None


@contextmanager
def broker(url: str, key_prefix: str = "") -> Iterator[None]:
    """Send tasks to the broker at ``url`` instead of running them eagerly.

    With ``key_prefix`` every Redis key of the broker (the ``celery`` queue
    too) starts with it, so a test counts its own tasks on a shared Redis.
    """
    conf = celery_app.conf
    saved = conf.broker_url, conf.task_always_eager, conf.broker_transport_options
    conf.broker_url, conf.task_always_eager = url, False
    if key_prefix:
        conf.broker_transport_options = {
            **(saved[2] or {}),
            "global_keyprefix": key_prefix,
        }
    _drop_connections()
    try:
        yield
    finally:
        conf.broker_url, conf.task_always_eager = saved[0], saved[1]
        conf.broker_transport_options = saved[2]
        _drop_connections()


# --- researchers signed in through the test client (dashboard, exports, API) -------
@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """MD5 hashing: these tests create many users and never test hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _user(name: str):
    """The user ``name`` (password ``PASSWORD``): the module's kept one, else new."""
    from django.contrib.auth import get_user_model

    model = get_user_model()
    kept = model.objects.filter(username=name).first()
    return kept or model.objects.create_user(name, password=PASSWORD)


@pytest.fixture
def ada(db):
    return _user("ada")


@pytest.fixture
def bob(db):
    return _user("bob")


# --- answered surveys made once per module (Django's setUpTestData) ----------------
# Building and answering a survey costs about two CPU-seconds; most tests of a
# module only read it, or change it inside their own transaction, which is
# rolled back.  A module sets ANSWERED_RESPONDENTS or SEEDED_RESPONDENTS to
# change how many respondents its survey has.
ANSWERED_RESPONDENTS = 300
SEEDED_RESPONDENTS = 800


def _kept(django_db_blocker, fill) -> Iterator[int]:
    """The pk of a survey owned by ada that ``fill(owner)`` made, kept for the
    module (``tests.conftest.module_rows``)."""
    from tests.conftest import module_rows

    yield from module_rows(django_db_blocker, lambda: fill(_user("ada")).pk)


def _fresh(pk: int) -> Survey:
    """The kept survey read anew, with an empty cache (keys name the survey)."""
    from django.core.cache import cache

    cache.clear()
    return Survey.objects.get(pk=pk)


@pytest.fixture(scope="module")
def kept_answered(request, django_db_setup, django_db_blocker) -> Iterator[int]:
    from surveys.analysis import reading
    from tests.surveys.analysis import dashboard_support

    count = getattr(request.module, "ANSWERED_RESPONDENTS", ANSWERED_RESPONDENTS)

    def fill(owner) -> Survey:
        survey = dashboard_support.make_survey(owner)
        dashboard_support.simulate(survey, count)
        reading.latest_results(survey)  # the first snapshot, as a commit queues it
        return survey

    yield from _kept(django_db_blocker, fill)


@pytest.fixture
def answered(kept_answered, ada) -> Survey:
    """Ada's published survey of every kind (``dashboard_support.make_survey``),
    answered by the module's ANSWERED_RESPONDENTS simulated respondents, with
    its first results snapshot."""
    return _fresh(kept_answered)


@pytest.fixture(scope="module")
def kept_seeded(request, django_db_setup, django_db_blocker) -> Iterator[int]:
    from tests.surveys.analysis import model_support

    count = getattr(request.module, "SEEDED_RESPONDENTS", SEEDED_RESPONDENTS)

    def fill(owner) -> Survey:
        survey = model_support.make_model_survey(owner)
        model_support.seed_respondents(survey, count)
        return survey

    yield from _kept(django_db_blocker, fill)


@pytest.fixture
def seeded(kept_seeded, ada) -> Survey:
    """Ada's regression and weighting survey (``model_support``), answered by
    the module's SEEDED_RESPONDENTS respondents, tallied and snapshotted."""
    return _fresh(kept_seeded)


@pytest.fixture
def ada_client(client, ada):
    client.force_login(ada)
    return client
