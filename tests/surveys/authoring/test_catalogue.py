"""The mechanisms as researchers read them: the registry's declarations, worded.

Every registered mechanism is offered to the question kinds it declares, in
the registry's order, under its label, and described in a sentence whose
numbers come from its compiled weights, in the reader's language.
"""

from decimal import Decimal

import pytest
from django.utils import translation

import ldp
from ldp.mechanisms import registry
from surveys.authoring import catalogue, mechanisms
from surveys.authoring.catalogue import MEAN, SHARE
from surveys.authoring.kinds import KINDS, kinds_where
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question

OPTIONS = ("Never", "Monthly", "Weekly", "Daily")
IDS = registry.names()


def compiled(family: type[ldp.Mechanism]) -> ldp.Mechanism:
    """The mechanism compiled for the first kind that may use it."""
    kind = family.kinds[0]
    grid = {"low": Decimal(0), "high": Decimal(10), "step": Decimal(1)}
    config = PrivacyConfig(
        kind=kind,
        options=() if kind in ("yes_no", "numeric") else OPTIONS,
        mechanism=family.name,
        **(grid if kind == "numeric" else {}),
    )
    return mechanisms.build(config)


@pytest.mark.parametrize("kind", kinds_where(free_text=True))
def test_typed_words_are_offered_no_mechanism(kind):
    assert registry.for_kind(kind) == ()
    assert catalogue.mechanisms_for_kind(kind) == ()


def test_every_mechanism_names_only_question_kinds_that_exist():
    assert set(KINDS) == set(Question.Kind.values)
    for family in registry.MECHANISMS:
        assert set(family.kinds) <= set(KINDS), family.name


@pytest.mark.parametrize("kind", kinds_where(free_text=False))
def test_each_kind_is_offered_its_mechanisms_in_registry_order_under_their_labels(
    kind,
):
    choices = mechanisms.mechanism_choices(kind)
    assert choices[0] == ("", mechanisms.RECOMMENDED_LABEL)
    offered = registry.for_kind(kind)
    assert offered, kind
    assert choices[1:] == [(family.name, family.label) for family in offered]
    assert catalogue.mechanisms_for_kind(kind) == tuple(f.name for f in offered)


def test_label_of_an_unknown_mechanism_is_its_name():
    assert catalogue.mechanism_label("not_a_mechanism") == "not_a_mechanism"
    assert catalogue.mechanism_label_shown("not_a_mechanism") == "not_a_mechanism"


@pytest.mark.parametrize("family", registry.MECHANISMS, ids=IDS)
def test_every_registered_mechanism_is_described_in_a_sentence(family):
    words = catalogue.describe_mechanism(compiled(family))
    assert words.startswith(("The device", "Each respondent's device"))
    assert words.endswith(").")


@pytest.mark.parametrize("family", registry.MECHANISMS, ids=IDS)
def test_labels_and_plain_words_are_translated_on_a_page(family):
    mechanism = compiled(family)
    english = catalogue.describe_mechanism(mechanism)
    with translation.override("fr"):
        assert catalogue.describe_mechanism(mechanism) != english
        assert catalogue.mechanism_label_shown(family.name) != family.label
    assert catalogue.mechanism_label(family.name) == family.label


def test_plain_words_give_warner_keep_probability_in_the_readers_format():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    assert "73.1%" in catalogue.describe_mechanism(warner)
    with translation.override("fr"):
        assert "73,1" in catalogue.describe_mechanism(warner)


def test_plain_words_give_local_hashing_bucket_count():
    mechanism = compiled(registry.family("olh"))
    words = catalogue.describe_mechanism(mechanism)
    assert f"into {mechanism.weights['g']} buckets" in words


def test_order_aware_and_numeric_mechanisms_estimate_the_mean():
    means = {
        f.name for f in registry.MECHANISMS if catalogue.estimate_of(f.name) == MEAN
    }
    assert means == {"ordinal", *catalogue.mechanisms_for_kind("numeric")}
    assert catalogue.estimate_of("grr") == SHARE
