"""The mechanism families a spec may name, found by that name.

A spec names its mechanism (``"mechanism": "grr"``); validating it, laying
out its support counts and reading its likelihood ratio from its weights are
each family's own rules.  Every family class registers those rules here as it
is defined (``SpecRules.__init_subclass__`` in ``ldp.mechanisms.specs``), so
the checks of this package (``validate_spec``, ``counts_layout``,
``likelihood_ratio``) reach a family by name without importing the families,
which import them.  ``ldp.mechanisms.registry`` lists the families in the
order they are offered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class FamilyRules:
    """What the spec-level checks need of one family.

    Attributes
    ----------
    fields : frozenset of str
        The fields its spec may carry.
    validate : callable
        ``validate(spec) -> dict``: its parameters, checked and normalized.
    counts_layout : callable
        ``counts_layout(params, weights) -> (length, histogram)``.
    weights_ratio : callable
        ``weights_ratio(spec) -> Fraction``: the worst-case likelihood ratio
        of a compiled spec, read from its weights alone.
    """

    fields: frozenset[str]
    validate: Callable[[Mapping[str, Any]], dict[str, Any]]
    counts_layout: Callable[[dict[str, Any], Any], tuple[int, bool]]
    weights_ratio: Callable[[Mapping[str, Any]], Fraction]


_FAMILIES: dict[str, FamilyRules] = {}


def register(name: str, rules: FamilyRules) -> None:
    """File a family's rules under its spec name (once per name)."""
    if name in _FAMILIES:
        raise ValueError(f"two mechanism families are named {name!r}")
    _FAMILIES[name] = rules


def names() -> tuple[str, ...]:
    """Every registered spec name, in the order the families were defined."""
    return tuple(_FAMILIES)


def rules(name: Any) -> FamilyRules:
    """The rules of the family a spec names; ValueError naming the allowed ones."""
    found = _FAMILIES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(
            f"spec field 'mechanism' is {name!r}; allowed: {sorted(_FAMILIES)}"
        )
    return found
