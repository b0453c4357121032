"""The registry: every mechanism, in the order it is offered, found by name.

Each mechanism's module declares everything the rest of the project needs to
know of it (``ldp.mechanisms.about``, ``ldp.mechanisms.specs``); this module
only lists them.  The survey platform, its exports, API and templates ask the
registry, never a table of names of their own.  Adding a mechanism is its
module and one line in :data:`MECHANISMS` (plus its browser sampler, test
vectors, respondent wording, tests and docs page).

Examples
--------
>>> [family.name for family in for_kind("yes_no")]
['warner', 'forced_response']
>>> family("grr").label
'Generalized randomized response'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.binary import ForcedResponse, Warner
from ldp.mechanisms.grr import GeneralizedRandomizedResponse
from ldp.mechanisms.hadamard import HadamardResponse
from ldp.mechanisms.multiselect import MultiRandomizedResponse, PaddingAndSampling
from ldp.mechanisms.numeric import DiscreteGaussian, Duchi, Geometric, Piecewise
from ldp.mechanisms.olh import OptimizedLocalHashing
from ldp.mechanisms.ordinal import OrdinalExponential
from ldp.mechanisms.unary import OptimizedUnaryEncoding, SymmetricUnaryEncoding
from ldp.spec import families

MECHANISMS: tuple[type[Mechanism], ...] = (
    Warner,
    ForcedResponse,
    OrdinalExponential,
    GeneralizedRandomizedResponse,
    OptimizedUnaryEncoding,
    OptimizedLocalHashing,
    HadamardResponse,
    SymmetricUnaryEncoding,
    Geometric,
    Piecewise,
    Duchi,
    DiscreteGaussian,
    PaddingAndSampling,
    MultiRandomizedResponse,
)
"""Every mechanism, in the order a question's settings offer them (and the
order a recommendation keeps among equal variances)."""

REGISTRY: dict[str, type[Mechanism]] = {cls.name: cls for cls in MECHANISMS}
"""The mechanisms by spec name."""

if set(REGISTRY) != set(families.names()):  # a family defined but not listed
    raise ImportError(
        f"ldp.mechanisms.registry lists {sorted(REGISTRY)} but the defined "
        f"families are {sorted(families.names())}"
    )


def names() -> tuple[str, ...]:
    """Every mechanism's spec name, in offer order."""
    return tuple(REGISTRY)


def find(name: Any) -> type[Mechanism] | None:
    """The mechanism named ``name``, or None."""
    return REGISTRY.get(name) if isinstance(name, str) else None


def family(name: Any) -> type[Mechanism]:
    """The mechanism named ``name``; ValueError naming the allowed ones."""
    found = find(name)
    if found is None:
        raise ValueError(f"mechanism is {name!r}; allowed: {list(REGISTRY)}")
    return found


def of(spec: Mapping[str, Any] | None) -> type[Mechanism] | None:
    """The mechanism a spec names, or None (no spec, or an unknown name)."""
    return find(spec.get("mechanism")) if spec else None


def for_kind(kind: str) -> tuple[type[Mechanism], ...]:
    """The mechanisms an answer (question) kind may use, in offer order."""
    return tuple(cls for cls in MECHANISMS if kind in cls.kinds)


def labels() -> frozenset[str]:
    """Every mechanism's label (message id)."""
    return frozenset(cls.label for cls in MECHANISMS)
