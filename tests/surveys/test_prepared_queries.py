"""Prepared queries: compiled once, rerun with new values, same rows as the ORM."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from surveys.authoring.models import Survey
from surveys.authoring.services import survey_create
from surveys.prepared_queries import NotPreparable, PreparedQuery

pytestmark = pytest.mark.django_db


@pytest.fixture
def owners(django_user_model):
    ada = django_user_model.objects.create_user("ada")
    bob = django_user_model.objects.create_user("bob")
    survey_create(owner=ada, title="Ada's first")
    survey_create(owner=ada, title="Ada's second")
    survey_create(owner=bob, title="Bob's")
    return ada, bob


def _titled(*, owner_id: int, title: str):
    return Survey.objects.filter(owner_id=owner_id, title=title).order_by("pk")


def test_each_call_returns_the_rows_the_queryset_would_for_its_values(owners):
    ada, bob = owners
    prepared = PreparedQuery(_titled, owner_id=int, title=str)
    for owner, title in [(ada, "Ada's second"), (bob, "Bob's"), (bob, "Ada's first")]:
        found = list(prepared.raw(owner_id=owner.pk, title=title))
        expected = list(_titled(owner_id=owner.pk, title=title))
        assert [s.pk for s in found] == [s.pk for s in expected]
        assert [s.title for s in found] == [s.title for s in expected]


def test_the_queryset_is_built_and_compiled_once_however_often_it_runs(owners):
    ada, _ = owners
    built = []

    def build(*, owner_id: int):
        built.append(owner_id)
        return Survey.objects.filter(owner_id=owner_id)

    prepared = PreparedQuery(build, owner_id=int)
    for _ in range(3):
        assert len(list(prepared.raw(owner_id=ada.pk))) == 2
    assert len(built) == 1 and built[0] != ada.pk  # built with a placeholder


def test_a_run_is_one_query_with_the_values_as_parameters(owners):
    ada, _ = owners
    prepared = PreparedQuery(_titled, owner_id=int, title=str)
    list(prepared.raw(owner_id=ada.pk, title="warm-up"))
    with CaptureQueriesContext(connection) as queries:
        found = list(prepared.raw(owner_id=ada.pk, title="Ada's first"))
    assert len(queries.captured_queries) == 1
    assert [s.title for s in found] == ["Ada's first"]


def test_annotations_are_attributes_of_the_rows(owners):
    from django.db.models import Value

    ada, _ = owners
    prepared = PreparedQuery(
        lambda *, owner_id: Survey.objects.filter(owner_id=owner_id).annotate(
            marker=Value(7)
        ),
        owner_id=int,
    )
    assert {s.marker for s in prepared.raw(owner_id=ada.pk)} == {7}


def test_an_argument_the_sql_inlines_is_refused_when_first_compiled(owners):
    # A slice's bounds are written into the SQL text, not passed as parameters.
    prepared = PreparedQuery(
        lambda *, limit: Survey.objects.order_by("pk")[: abs(limit) % 5 + 1],
        limit=int,
    )
    with pytest.raises(NotPreparable, match="limit"):
        prepared.raw(limit=2)


@pytest.mark.parametrize(
    "values, message",
    [
        ({"owner_id": 1}, "expected the arguments"),
        ({"owner_id": 1, "title": "x", "extra": 2}, "expected the arguments"),
        ({"owner_id": "1", "title": "x"}, "owner_id must be int"),
    ],
)
def test_missing_extra_or_mistyped_values_are_refused(owners, values, message):
    prepared = PreparedQuery(_titled, owner_id=int, title=str)
    with pytest.raises(TypeError, match=message):
        prepared.raw(**values)


def _with_owner(*, owner_id: int):
    return Survey.objects.select_related("owner").filter(owner_id=owner_id)


def test_instances_equal_the_querysets_rows_with_their_related_objects(owners):
    ada, bob = owners
    prepared = PreparedQuery(_with_owner, owner_id=int)
    for owner in (ada, bob):
        found = prepared.instances(owner_id=owner.pk)
        expected = list(_with_owner(owner_id=owner.pk))
        assert [s.pk for s in found] == [s.pk for s in expected]
        # Every field converted from its database value, as the ORM does.
        fields = [f.attname for f in Survey._meta.concrete_fields]
        assert [[getattr(s, f) for f in fields] for s in found] == [
            [getattr(s, f) for f in fields] for s in expected
        ]
        assert [s.owner.username for s in found] == [owner.username] * len(found)


def test_instances_run_one_query_and_share_a_related_row_named_twice(owners):
    ada, _ = owners
    prepared = PreparedQuery(_with_owner, owner_id=int)
    prepared.instances(owner_id=ada.pk)  # compiled here
    with CaptureQueriesContext(connection) as queries:
        first, second = prepared.instances(owner_id=ada.pk)
        owners_seen = (first.owner, second.owner)  # already loaded
    assert len(queries.captured_queries) == 1
    assert owners_seen[0] is owners_seen[1]


def test_instances_carry_annotations_as_attributes(owners):
    from django.db.models import Value

    ada, _ = owners
    prepared = PreparedQuery(
        lambda *, owner_id: _with_owner(owner_id=owner_id).annotate(marker=Value(7)),
        owner_id=int,
    )
    assert {s.marker for s in prepared.instances(owner_id=ada.pk)} == {7}
