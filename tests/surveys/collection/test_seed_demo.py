"""seed_demo: a demo researcher, survey and simulated respondents, once."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

import ldp
from surveys.accounts.models import User
from surveys.authoring.kinds import kinds_where
from surveys.authoring.models import Survey
from surveys.collection.demo import DEMO_PASSWORD, DEMO_USERNAME
from surveys.collection.models import PlainAnswer, Report, Submission
from tests.surveys.stored_reports import payload, payloads

pytestmark = pytest.mark.django_db


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_prints_the_login_and_the_survey_link():
    output = seed("--respondents", "20")
    assert f"username {DEMO_USERNAME}, password {DEMO_PASSWORD}" in output
    survey = Survey.objects.get()
    assert f"/s/{survey.public_token}/" in output
    user = User.objects.get(username=DEMO_USERNAME)
    assert user.check_password(DEMO_PASSWORD)


def test_seed_demo_builds_one_question_of_each_supported_kind():
    seed("--respondents", "0")
    survey = Survey.objects.get()
    assert survey.status == Survey.Status.OPEN
    mechanisms = [
        q.spec["mechanism"] if q.spec else None for q in survey.questions.all()
    ]
    assert mechanisms == [
        "forced_response",
        "warner",
        "grr",
        "ordinal",
        "geometric",
        "padding_sampling",
        None,
    ]
    kinds = [q.kind for q in survey.questions.all()]
    # Every kind a device can randomize (open text is never protected).
    assert set(kinds) == set(kinds_where(free_text=False))
    assert kinds.count("yes_no") == 2
    plain = survey.questions.get(is_private=False)
    assert plain.not_private_acknowledged
    ordinal = survey.questions.get(kind="ordinal")
    assert len(ordinal.options) == 5 and ordinal.spec["k"] == 5
    numeric = survey.questions.get(kind="numeric")
    assert (numeric.spec["low"], numeric.spec["high"], numeric.spec["step"]) == (
        "0",
        "40",
        "1",
    )
    multi = survey.questions.get(kind="multi_select")
    assert len(multi.options) >= 6
    assert multi.max_selections == 2 and multi.spec["ell"] == 2
    forced = survey.questions.get(spec__mechanism="forced_response")
    assert forced.spec["design"] == {
        "truthful": "1/2",
        "forced_yes": "1/4",
        "forced_no": "1/4",
    }


def test_seed_demo_stores_valid_simulated_reports():
    seed("--respondents", "50")
    assert Submission.objects.count() == 50
    assert Report.objects.count() == 300 and PlainAnswer.objects.count() == 50
    for report in Report.objects.select_related("question"):
        ldp.build(report.question.spec).validate_report(payload(report))


def test_seed_demo_is_idempotent():
    seed("--respondents", "30")
    output = seed("--respondents", "30")
    assert "already present" in output
    assert User.objects.filter(username=DEMO_USERNAME).count() == 1
    assert Survey.objects.count() == 1
    assert Submission.objects.count() == 30


def test_seed_demo_is_reproducible():
    seed("--respondents", "40")
    first = payloads(Report.objects.order_by("id"))
    Report.objects.all().delete()
    PlainAnswer.objects.all().delete()
    Submission.objects.all().delete()
    seed("--respondents", "40")
    second = payloads(Report.objects.order_by("id"))
    assert first == second


@override_settings(PRODUCTION=True)
def test_seed_demo_refuses_to_run_in_production():
    with pytest.raises(CommandError, match="refuses to run"):
        seed()
    assert not User.objects.exists()
