"""The mechanisms as researchers read them: the registry's words, translated.

Every mechanism declares in its own ``ldp`` module its label, the question
kinds that may use it, whether its headline estimate is a share or a mean,
and its plain words (``ldp.mechanisms.about``); ``ldp.mechanisms.registry``
lists them.  This module only puts those declarations in front of people:
labels in English where exports and the API carry them, in the active
language on a page, and plain words worded by ``surveys.authoring.ldp_words``.
It holds no table of its own.  What respondents are told is worded on the
respondent side (``surveys.collection.respondent_words``).
"""

from __future__ import annotations

from django.utils.translation import gettext

import ldp
from ldp.mechanisms import registry
from ldp.mechanisms.about import MEAN, SHARE
from surveys.authoring.ldp_words import shown

__all__ = [
    "MEAN",
    "SHARE",
    "describe_mechanism",
    "estimate_of",
    "identifies_only_the_mean",
    "mean_only_reason",
    "mechanism_label",
    "mechanism_label_shown",
    "mechanisms_for_kind",
    "stored_label_shown",
]


def mechanism_label(name: str) -> str:
    """The mechanism's label in English (its spec name when the registry lacks
    it): what exports and the API carry."""
    family = registry.find(name)
    return family.label if family else name


def mechanism_label_shown(name: str) -> str:
    """The mechanism's label in the active language, for a page (the spec name
    when the registry lacks it)."""
    family = registry.find(name)
    return gettext(family.label) if family else name


def stored_label_shown(label: str) -> str:
    """A mechanism label stored in English (by a background job) in the active
    language; any other text as it is."""
    return gettext(label) if label in registry.labels() else label


def mechanisms_for_kind(kind: str) -> tuple[str, ...]:
    """Names of the mechanisms a question of ``kind`` may use, in offer order."""
    return tuple(family.name for family in registry.for_kind(kind))


def estimate_of(name: str) -> str:
    """What the mechanism's headline estimate is: SHARE or MEAN."""
    family = registry.find(name)
    return family.headline if family else SHARE


def identifies_only_the_mean(name: str) -> bool:
    """Whether the mechanism's reports identify the mean answer and nothing else."""
    family = registry.find(name)
    return family is not None and family.mean_only


def mean_only_reason(name: str) -> tuple[str, str]:
    """Why a mean-only mechanism's results have no distribution, and what to
    choose instead (docs/maths.md, section 11.1), in the active language."""
    family = registry.family(name)
    return gettext(family.mean_only_reason), gettext(family.bins_alternative)


def describe_mechanism(mechanism: ldp.Mechanism) -> str:
    """The compiled mechanism in plain words, for researchers, in the active
    language."""
    return shown(mechanism.describe())
