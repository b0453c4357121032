"""The audit log: what researchers did, read by owners and administrators.

Each action is done through the researcher's real page; the entry is written
by the service behind it, and never holds respondent data (docs/accounts.md).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from surveys.accounts import audit
from surveys.accounts.models import AuditEntry
from surveys.authoring import people, services
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Collaborator
from surveys.collection import demo
from surveys.collection import services as collection_services
from tests.surveys.collection.conftest import body

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", email="ada@example.org")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob")


@pytest.fixture
def ada_client(ada) -> Client:
    client = Client()
    client.force_login(ada)
    return client


@pytest.fixture
def survey(ada):
    survey, _ = demo.demo_survey(owner=ada)
    return survey


def actions(survey=None) -> list[tuple[str, str]]:
    entries = AuditEntry.objects.order_by("pk")
    if survey is not None:
        entries = entries.filter(survey_id=survey.pk)
    return list(entries.values_list("action", "detail"))


def _edit(client, survey):
    return client.post(
        reverse("authoring:survey_edit", args=[survey.pk]),
        {
            "title": "Renamed",
            "epsilon_budget": "10",
            "planned_respondents": "500",
            "link_fields": "",
        },
    )


def _export(client, survey):
    return client.get(reverse("analysis:export_reports_csv", args=[survey.pk]))


def _invite(client, survey):
    url = reverse("authoring:survey_people", args=[survey.pk])
    return client.post(url, {"action": "add", "person": "bob", "role": "viewer"})


def _links(client, survey):
    url = reverse("collection:invitations", args=[survey.pk])
    return client.post(url, {"count": "3"})


def _close(client, survey):
    return client.post(reverse("authoring:survey_close", args=[survey.pk]))


@pytest.mark.parametrize(
    ("act", "expected"),
    [
        (_edit, ("edit", "survey settings")),
        (_export, ("export", "survey-{pk}-reports.csv")),
        (_invite, ("invite", "bob as viewer")),
        (_links, ("invite", "3 invitation links made")),
        (_close, ("close", "")),
    ],
    ids=["edit", "export", "invite", "invitation links", "close"],
)
def test_an_action_on_its_page_writes_one_entry(
    ada_client, ada, bob, survey, act, expected
):
    before = AuditEntry.objects.count()
    response = act(ada_client, survey)
    if hasattr(response, "streaming_content"):
        b"".join(response.streaming_content)
    assert response.status_code in (200, 302)
    assert AuditEntry.objects.count() == before + 1
    entry = AuditEntry.objects.latest("pk")
    action, detail = expected
    assert (entry.action, entry.detail) == (action, detail.format(pk=survey.pk))
    assert (entry.actor, entry.actor_name, entry.owner) == (ada, "ada", ada)
    assert entry.survey_id == survey.pk


def test_publish_role_change_and_delete_are_recorded_and_outlive_the_survey(
    ada_client, ada, bob
):
    draft = services.survey_create(owner=ada, title="Exam honesty")
    services.question_create(
        survey=draft,
        actor=ada,
        text="Have you cheated?",
        privacy=PrivacyConfig(kind="yes_no"),
    )
    ada_client.post(reverse("authoring:survey_publish", args=[draft.pk]))
    people.collaborator_add(survey=draft, user=ada, name_or_email="bob", role="viewer")
    found = Collaborator.objects.get(survey=draft)
    people.collaborator_set_role(
        survey=draft, user=ada, collaborator_id=found.pk, role="editor"
    )
    ada_client.post(
        reverse("authoring:survey_delete", args=[draft.pk]),
        {"confirm_title": "Exam honesty"},
    )
    assert actions() == [
        ("create", ""),
        ("edit", "added “Have you cheated?”"),
        ("publish", "revision 1"),
        ("invite", "bob as viewer"),
        ("role_change", "bob is editor"),
        ("delete", "0 submissions"),
    ]
    assert set(AuditEntry.objects.values_list("survey_title", flat=True)) == {
        "Exam honesty"
    }


def test_a_refused_action_leaves_no_entry(ada_client, ada):
    draft = services.survey_create(owner=ada, title="Empty")
    before = actions()
    response = ada_client.post(reverse("authoring:survey_publish", args=[draft.pk]))
    assert response.status_code in (302, 400)
    assert actions() == before


def test_owners_read_their_surveys_entries_and_nobody_elses(
    ada, bob, survey, django_user_model
):
    people.collaborator_add(survey=survey, user=ada, name_or_email="bob", role="editor")
    services.survey_close(survey=survey, user=bob)  # bob's action on ada's survey
    eve = django_user_model.objects.create_user("eve")
    eves = services.survey_create(owner=eve, title="Eve's own")
    ada_sees = {e.action for e in audit.entries_for(ada)}
    assert {"create", "invite", "close"} <= ada_sees
    assert not audit.entries_for(ada).filter(survey_id=eves.pk).exists()
    # bob reads what he did, not the rest of ada's survey
    assert [e.action for e in audit.entries_for(bob)] == ["close"]
    assert list(audit.entries_for(eve).values_list("survey_id", flat=True)) == [eves.pk]
    root = django_user_model.objects.create_superuser("root", "root@example.org")
    assert audit.entries_for(root).count() == AuditEntry.objects.count()


def test_the_page_and_its_csv_show_the_readers_entries(ada_client, survey):
    page = ada_client.get(reverse("audit_log"))
    assert page.status_code == 200
    assert "created the survey" in page.content.decode()
    response = ada_client.get(reverse("audit_log_csv"), {"survey": survey.pk})
    assert response["Content-Disposition"].endswith(
        f'filename="audit-survey-{survey.pk}.csv"'
    )
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == audit.CSV_HEADER
    assert {row[2] for row in rows[1:]} >= {"create", "publish"}
    assert all(row[3] == str(survey.pk) for row in rows[1:])


def test_a_formula_in_a_title_reaches_the_csv_as_text(ada_client, ada):
    services.survey_create(owner=ada, title="=HYPERLINK(1)")
    response = ada_client.get(reverse("audit_log_csv"))
    text = b"".join(response.streaming_content).decode()
    assert ",'=HYPERLINK(1)," in text


@pytest.mark.parametrize("value", ["abc", "-1", "1" * 30])
def test_a_survey_filter_that_is_no_number_is_refused(ada_client, value):
    for name in ("audit_log", "audit_log_csv"):
        response = ada_client.get(reverse(name), {"survey": value})
        assert response.status_code == 400
        assert "is not a survey number" in response.content.decode()


def test_no_entry_holds_respondent_data(ada_client, ada, survey, client):
    url = reverse("collection:recipients", args=[survey.pk])
    ada_client.post(
        url,
        {
            "addresses": SimpleUploadedFile(
                "people.csv", b"carol.respondent@example.net\n"
            )
        },
    )
    tokens = collection_services.invitations_create(survey=survey, count=2)
    ada_client.post(reverse("collection:invitations", args=[survey.pk]), {"count": 2})
    respond = reverse("collection:respond", args=[survey.public_token])
    assert client.post(respond, body(survey)).status_code == 303
    b"".join(_export(ada_client, survey).streaming_content)
    text = repr(list(AuditEntry.objects.values()))
    assert "carol.respondent" not in text
    assert "example.net" not in text
    assert not any(token in text for token in tokens)
    assert survey.public_token not in text
    assert ("invite", "1 addresses added") in actions(survey)
    # Nothing in an entry points at a submission, a report or an invitation.
    related = {f.related_model for f in AuditEntry._meta.get_fields() if f.is_relation}
    assert {model._meta.label for model in related} == {"accounts.User"}


def test_the_admin_lists_entries_read_only_and_exports_them(survey, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.org")
    client = Client()
    client.force_login(root)
    changelist = reverse("admin:accounts_auditentry_changelist")
    page = client.get(changelist)
    assert page.status_code == 200
    assert b"created the survey" in page.content
    assert client.get(reverse("admin:accounts_auditentry_add")).status_code == 403
    entry = AuditEntry.objects.first()
    response = client.post(
        changelist, {"action": "export_csv", "_selected_action": [entry.pk]}
    )
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == audit.CSV_HEADER and len(rows) == 2


def test_an_unknown_action_is_refused_and_nothing_is_written(ada):
    with pytest.raises(ValueError, match="not an audited action"):
        audit.record(ada, "peek", None, "")
    assert not AuditEntry.objects.exists()
