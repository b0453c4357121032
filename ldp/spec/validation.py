"""Validation of requested and compiled mechanism specs (format version 1).

``validate_spec`` checks what every spec shares (an object, its version, a
known mechanism, no field that mechanism does not allow) and hands the rest to
the mechanism's own rules (``validate_fields`` in its module, reached by name
through ``ldp.spec.families``); the field checks they share are here.  Each
error names the field, echoes the bad value and says what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

from ldp.spec import families

SPEC_VERSION = 1
EPSILON_MAX = 10
K_MAX = 4096
COMMON_FIELDS = frozenset({"version", "mechanism", "k", "weights"})
"""The fields every spec with a number of answers ``k`` may carry."""


def is_int(value: object) -> TypeGuard[int]:
    """Return True for Python ints that are not bools.

    Parameters
    ----------
    value : object
        Any decoded JSON value.

    Returns
    -------
    bool
        ``isinstance(value, int)`` and not a bool.

    Notes
    -----
    ``True == 1`` in Python, but a JSON ``true`` is never a valid integer here.

    References
    ----------
    .. [1] ldp/spec/README.md (booleans are not integers).
    """
    return isinstance(value, int) and not isinstance(value, bool)


def number(field: str, value: Any) -> float:
    """``value`` as a finite float; ValueError naming ``field`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"spec field {field!r} must be a number, got {value!r} "
            f"({type(value).__name__})"
        )
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"spec field {field!r} must be finite, got {value!r}")
    return result


def check_epsilon(value: Any) -> float:
    """The ε of a spec: a number with ``0 < ε <= EPSILON_MAX``."""
    epsilon = number("epsilon", value)
    if not 0 < epsilon <= EPSILON_MAX:
        raise ValueError(
            f"spec field 'epsilon' is {value!r}; allowed: 0 < epsilon <= {EPSILON_MAX}"
        )
    return epsilon


def check_k(value: Any) -> int:
    """The number of answers of a spec: an integer ``2 <= k <= K_MAX``."""
    if not is_int(value):
        raise ValueError(
            f"spec field 'k' must be an integer, got {value!r}; "
            f"allowed: integers 2 <= k <= {K_MAX}"
        )
    if not 2 <= value <= K_MAX:
        raise ValueError(f"spec field 'k' is {value!r}; allowed: 2 <= k <= {K_MAX}")
    return value


def required(spec: Mapping[str, Any], field: str) -> Any:
    """``spec[field]``; ValueError naming the field and the mechanism if absent."""
    if field not in spec:
        raise ValueError(
            f"spec field {field!r} is missing; required for {spec['mechanism']}"
        )
    return spec[field]


def validate_spec(spec: Any) -> tuple[dict[str, Any], Any]:
    """Check a requested or compiled spec and return its normalized form.

    Parameters
    ----------
    spec : mapping
        ``{"version": 1, "mechanism": ..., "k": ..., "epsilon": ...}`` plus
        ``design`` (forced response), ``g`` (OLH) and, in compiled specs,
        ``weights``.

    Returns
    -------
    normalized : dict
        ``version``, ``mechanism``, ``k`` and the mechanism's parameters
        (``epsilon`` as float, ``design`` as Fractions, ``g`` as int).
    weights : object or None
        The ``weights`` field if present (checked against the derived weights by
        the mechanism: a mismatch means the spec drifted).

    Raises
    ------
    ValueError
        Naming the field, the bad value and what is allowed.

    Notes
    -----
    Allowed: ``0 < ε <= 10``, integer ``2 <= k <= 4096``; each mechanism
    narrows or adds its own fields (``k = 2`` for binary mechanisms, a design
    for forced response, ``2 <= g <= 2^16`` for OLH, a grid for numeric
    mechanisms; ldp/spec/README.md).  Booleans are not numbers.

    References
    ----------
    .. [1] docs/maths.md, sections 1-3; ldp/spec/README.md (version 1).
    """
    if not isinstance(spec, Mapping):
        raise ValueError(f"a spec must be a JSON object, got {spec!r}")
    version = spec.get("version", SPEC_VERSION)
    if not is_int(version) or version != SPEC_VERSION:
        raise ValueError(
            f"spec field 'version' is {version!r}; allowed: {SPEC_VERSION}"
        )
    mechanism = spec.get("mechanism")
    rules = families.rules(mechanism)
    unknown = sorted(str(name) for name in set(spec) - rules.fields)
    if unknown:
        raise ValueError(
            f"spec field(s) {unknown} not allowed for {mechanism}; allowed: "
            f"{sorted(rules.fields)}"
        )
    normalized: dict[str, Any] = {"version": SPEC_VERSION, "mechanism": mechanism}
    normalized.update(rules.validate(spec))
    return normalized, spec.get("weights")
