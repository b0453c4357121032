"""The mechanism catalogue: one entry per mechanism, for researchers only."""

from decimal import Decimal

import pytest

import ldp
from ldp.mechanisms import REGISTRY
from surveys.authoring import catalogue, mechanisms
from surveys.authoring.catalogue import CATALOGUE, MEAN, SHARE
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Question

OPTIONS = ("Never", "Monthly", "Weekly", "Daily")


def compiled(name: str) -> ldp.Mechanism:
    """The mechanism ``name`` compiled for the first kind that may use it."""
    kind = CATALOGUE[name].kinds[0]
    grid = {"low": Decimal(0), "high": Decimal(10), "step": Decimal(1)}
    config = PrivacyConfig(
        kind=kind,
        options=() if kind in ("yes_no", "numeric") else OPTIONS,
        mechanism=name,
        **(grid if kind == "numeric" else {}),
    )
    return mechanisms.build(config)


def test_every_mechanism_ldp_registers_has_a_catalogue_entry():
    assert set(REGISTRY) <= set(CATALOGUE)


def test_every_catalogue_entry_names_known_question_kinds():
    for info in CATALOGUE.values():
        assert info.kinds
        assert set(info.kinds) <= set(Question.Kind.values), info.name


def test_every_question_kind_is_offered_the_mechanisms_the_catalogue_allows():
    for kind in Question.Kind.values:
        offered = mechanisms.KIND_RULES[kind].mechanisms
        assert offered == catalogue.mechanisms_for_kind(kind)
        assert offered, kind


def test_choices_for_a_kind_are_the_catalogue_labels_in_catalogue_order():
    choices = mechanisms.mechanism_choices("ordinal")
    assert choices[0] == ("", mechanisms.RECOMMENDED_LABEL)
    assert choices[1:] == [
        (name, CATALOGUE[name].label)
        for name in CATALOGUE
        if "ordinal" in CATALOGUE[name].kinds
    ]


def test_label_of_an_unknown_mechanism_is_its_name():
    assert catalogue.mechanism_label("not_a_mechanism") == "not_a_mechanism"


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_registered_mechanism_is_described_in_a_sentence(name):
    words = catalogue.describe_mechanism(compiled(name))
    assert words.startswith(("The device", "Each respondent's device"))
    assert words.endswith(").")


def test_plain_words_give_warner_keep_probability():
    words = catalogue.describe_mechanism(
        ldp.build({"mechanism": "warner", "epsilon": 1.0})
    )
    assert "73.1%" in words


def test_plain_words_give_local_hashing_bucket_count():
    mechanism = compiled("olh")
    words = catalogue.describe_mechanism(mechanism)
    assert f"into {mechanism.weights['g']} buckets" in words


def test_order_aware_and_numeric_mechanisms_estimate_the_mean():
    means = {name for name, info in CATALOGUE.items() if info.estimate == MEAN}
    assert means == {"ordinal", *catalogue.mechanisms_for_kind("numeric")}
    assert catalogue.estimate_of("grr") == SHARE
