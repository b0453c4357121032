"""Every registered mechanism declares what the rest of the project needs.

The registry lists every family defined; each declares a label, the answer
kinds that may use it, its headline, plain words whose placeholders are all
given, words for each of its reports, and as many export cells as columns.
"""

from __future__ import annotations

import random
import re

import pytest

import ldp
from ldp.mechanisms import registry
from ldp.mechanisms.about import ANSWER_KINDS, MEAN, SHARE
from ldp.mechanisms.words import Words
from ldp.spec import families
from tests.ldp.mechanisms.registered import FAMILIES, IDS, example, report

PLACEHOLDER = re.compile(r"%\((\w+)\)")


def _placeholders(words: Words) -> set[str]:
    return set(PLACEHOLDER.findall(words.message))


def test_the_registry_lists_every_family_a_spec_may_name_once():
    assert sorted(registry.names()) == sorted(families.names())
    assert len(set(registry.names())) == len(registry.MECHANISMS)
    assert registry.names() == ldp.MECHANISMS


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_every_mechanism_declares_its_label_kinds_and_headline(family):
    assert family.label and family.label[0].isupper()
    assert family.kinds and set(family.kinds) <= set(ANSWER_KINDS)
    assert family.headline in (SHARE, MEAN)
    assert not family.mean_only or family.headline == MEAN
    assert bool(family.mean_only_reason) == family.mean_only


def test_every_answer_kind_is_offered_at_least_one_mechanism():
    for kind in ANSWER_KINDS:
        assert registry.for_kind(kind), kind


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_the_plain_words_give_every_placeholder_a_value(family):
    words = example(family).describe()
    assert _placeholders(words) == set(words.values)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_every_report_has_words_and_one_cell_per_export_column(family):
    mechanism = example(family)
    columns = mechanism.export_columns()
    rng = random.Random(3)
    for i in range(40):
        sent = report(mechanism, i, rng)
        words = mechanism.report_words(sent)
        assert _placeholders(words) == set(words.values)
        assert len(mechanism.export_cells(sent)) == len(columns)
    assert len({column.suffix for column in columns}) == len(columns)


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_every_report_is_worded_plainly_for_its_respondent(family):
    # What the receipt says was sent: what kind of thing, in a person's words,
    # never the mechanism's own terms (cells, bits, codes, padding).
    mechanism = example(family)
    rng = random.Random(5)
    for i in range(40):
        message = mechanism.report_words(report(mechanism, i, rng)).message
        assert message.startswith(("a ", "an ", "one ", "randomized ")), message
        for jargon in ("cell", "bit", "code", "padding", "signal", "hash"):
            assert jargon not in message, message


@pytest.mark.parametrize("family", FAMILIES, ids=IDS)
def test_a_request_compiles_to_a_spec_of_its_own_family(family):
    mechanism = example(family)
    assert isinstance(mechanism, family)
    assert ldp.build(mechanism.spec).spec == mechanism.spec


def test_an_unknown_name_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match=r"allowed: .*'grr'"):
        registry.family("rappor")
    assert registry.find("rappor") is None
    assert registry.of(None) is None
