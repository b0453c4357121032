"""Co-researchers: the owner shares a survey as editor or viewer."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from surveys.authoring import access, people, services
from surveys.authoring.models import Collaborator

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(make_survey, add_question, ada, bob):
    survey = make_survey()
    add_question(survey)
    return survey


def test_the_owner_shares_by_username_or_email(shared, ada, bob):
    bob.email = "bob@example.org"
    bob.save()
    added = people.collaborator_add(
        survey=shared, user=ada, name_or_email="BOB@example.org", role="viewer"
    )
    assert (added.user, added.role) == (bob, "viewer")
    assert access.role_of(shared, bob) == "viewer"


def test_an_unknown_account_is_refused_and_nothing_changes(shared, ada):
    with pytest.raises(ValidationError, match="No account"):
        people.collaborator_add(
            survey=shared, user=ada, name_or_email="nobody", role="viewer"
        )
    assert not Collaborator.objects.exists()


def test_sharing_twice_is_refused(shared, ada, bob):
    people.collaborator_add(survey=shared, user=ada, name_or_email="bob", role="viewer")
    with pytest.raises(ValidationError, match="already has access"):
        people.collaborator_add(
            survey=shared, user=ada, name_or_email="bob", role="editor"
        )


def test_an_editor_cannot_share_the_survey(shared, ada, bob, django_user_model):
    django_user_model.objects.create_user("cy", password="x" * 12)
    Collaborator.objects.create(survey=shared, user=bob, role="editor")
    with pytest.raises(PermissionDenied):
        people.collaborator_add(
            survey=shared, user=bob, name_or_email="cy", role="viewer"
        )


def test_an_editor_publishes_and_a_viewer_cannot(shared, bob, django_user_model):
    cy = django_user_model.objects.create_user("cy", password="x" * 12)
    Collaborator.objects.create(survey=shared, user=bob, role="editor")
    Collaborator.objects.create(survey=shared, user=cy, role="viewer")
    with pytest.raises(PermissionDenied):
        services.survey_publish(survey=shared, user=cy)
    assert services.survey_publish(survey=shared, user=bob).status == "open"


def test_a_collaborator_may_leave_but_not_remove_others(shared, bob, django_user_model):
    cy = django_user_model.objects.create_user("cy", password="x" * 12)
    mine = Collaborator.objects.create(survey=shared, user=bob, role="viewer")
    theirs = Collaborator.objects.create(survey=shared, user=cy, role="viewer")
    with pytest.raises(PermissionDenied):
        people.collaborator_remove(survey=shared, user=bob, collaborator_id=theirs.pk)
    people.collaborator_remove(survey=shared, user=bob, collaborator_id=mine.pk)
    assert access.role_of(shared, bob) is None


def test_the_people_page_adds_changes_and_removes(ada_client, shared, bob):
    url = reverse("authoring:survey_people", args=[shared.pk])
    ada_client.post(url, {"action": "add", "person": "bob", "role": "viewer"})
    found = Collaborator.objects.get(survey=shared, user=bob)
    ada_client.post(url, {"action": "role", "collaborator": found.pk, "role": "editor"})
    assert Collaborator.objects.get(pk=found.pk).role == "editor"
    ada_client.post(url, {"action": "remove", "collaborator": found.pk})
    assert not Collaborator.objects.exists()


def test_a_bad_role_on_the_page_changes_nothing(ada_client, shared, bob):
    url = reverse("authoring:survey_people", args=[shared.pk])
    found = Collaborator.objects.create(survey=shared, user=bob, role="viewer")
    response = ada_client.post(
        url, {"action": "role", "collaborator": found.pk, "role": "admin"}
    )
    assert response.status_code == 400
    assert "not a role" in response.content.decode()
    assert Collaborator.objects.get(pk=found.pk).role == "viewer"


def test_a_viewer_sees_no_edit_buttons(client, shared, bob):
    Collaborator.objects.create(survey=shared, user=bob, role="viewer")
    client.force_login(bob)
    html = client.get(reverse("authoring:survey_detail", args=[shared.pk])).content
    html = html.decode()
    assert "You are a <strong>viewer</strong>" in html
    assert reverse("authoring:question_create", args=[shared.pk]) not in html
    assert reverse("authoring:survey_delete", args=[shared.pk]) not in html
