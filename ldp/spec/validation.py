"""Validation of requested and compiled mechanism specs (format version 1).

One place checks every field; each error names the field, echoes the bad
value and says what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TypeGuard

from ldp.spec.grid import (
    GRID_FIELDS,
    NUMERIC_MECHANISMS,
    ORDINAL_MECHANISMS,
    check_ordinal_k,
    validate_grid,
)

SPEC_VERSION = 1
EPSILON_MAX = 10
K_MAX = 4096
G_MAX = 2**16
FREQUENCY_MECHANISMS = (
    "forced_response",
    "warner",
    "grr",
    "sue",
    "oue",
    "olh",
    "hadamard",
)
MULTI_SELECT_MECHANISMS = ("multi_rr", "padding_sampling")
MECHANISMS = (
    *FREQUENCY_MECHANISMS,
    *MULTI_SELECT_MECHANISMS,
    *ORDINAL_MECHANISMS,
    *NUMERIC_MECHANISMS,
)
MULTI_RR_K_MAX = 64
BINARY_MECHANISMS = ("forced_response", "warner")
DESIGN_FIELDS = ("truthful", "forced_yes", "forced_no")

_COMMON_FIELDS = {"version", "mechanism", "k", "weights"}
_ALLOWED_FIELDS = {
    "forced_response": _COMMON_FIELDS | {"design"},
    "olh": _COMMON_FIELDS | {"epsilon", "g"},
    "multi_rr": _COMMON_FIELDS | {"epsilon", "epsilon_per_option"},
    "padding_sampling": _COMMON_FIELDS | {"epsilon", "ell"},
}
_ALLOWED_FIELDS.update({name: set(GRID_FIELDS) for name in NUMERIC_MECHANISMS})


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


def _number(field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(
            f"spec field {field!r} must be a number, got {value!r} "
            f"({type(value).__name__})"
        )
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"spec field {field!r} must be finite, got {value!r}")
    return result


def _epsilon(value: Any) -> float:
    epsilon = _number("epsilon", value)
    if not 0 < epsilon <= EPSILON_MAX:
        raise ValueError(
            f"spec field 'epsilon' is {value!r}; allowed: 0 < epsilon <= {EPSILON_MAX}"
        )
    return epsilon


def _probability(name: str, value: Any) -> Fraction:
    field = f"design.{name}"
    if isinstance(value, str):
        try:
            result = Fraction(value)
        except (ValueError, ZeroDivisionError):
            raise ValueError(
                f"spec field {field!r} is {value!r}; allowed: a number or a "
                "'p/q' string"
            ) from None
    else:
        result = Fraction(str(_number(field, value)))
    if result <= 0:
        raise ValueError(f"spec field {field!r} is {value!r}; allowed: > 0")
    return result


def _design(value: Any) -> dict[str, Fraction]:
    if not isinstance(value, Mapping):
        raise ValueError(
            f"spec field 'design' must be an object with fields {DESIGN_FIELDS}, "
            f"got {value!r}"
        )
    if set(value) != set(DESIGN_FIELDS):
        raise ValueError(
            f"spec field 'design' has fields {sorted(value)}; allowed: exactly "
            f"{list(DESIGN_FIELDS)}"
        )
    design = {name: _probability(name, value[name]) for name in DESIGN_FIELDS}
    total = sum(design.values())
    if total != 1:
        raise ValueError(
            f"spec field 'design' sums to {total} ({value!r}); allowed: "
            "probabilities summing to exactly 1"
        )
    return design


def _k(mechanism: str, value: Any) -> int:
    if mechanism in BINARY_MECHANISMS:
        if value is None:
            return 2
        if not is_int(value) or value != 2:
            raise ValueError(
                f"spec field 'k' is {value!r}; allowed for {mechanism}: 2 (or omitted)"
            )
        return 2
    if not is_int(value):
        raise ValueError(
            f"spec field 'k' must be an integer, got {value!r}; "
            f"allowed: integers 2 <= k <= {K_MAX}"
        )
    if not 2 <= value <= K_MAX:
        raise ValueError(f"spec field 'k' is {value!r}; allowed: 2 <= k <= {K_MAX}")
    return value


def _multi_select(
    mechanism: str, spec: Mapping[str, Any], normalized: dict[str, Any]
) -> None:
    """Check the fields of ``multi_rr`` and ``padding_sampling`` in place."""
    k, epsilon = normalized["k"], normalized["epsilon"]
    if mechanism == "multi_rr":
        if k > MULTI_RR_K_MAX:
            raise ValueError(
                f"spec field 'k' is {k!r}; allowed for multi_rr: 2 <= k <= "
                f"{MULTI_RR_K_MAX} (use padding_sampling for more options)"
            )
        per_option = epsilon / k
        given = spec.get("epsilon_per_option", per_option)
        if isinstance(given, bool) or given != per_option:
            raise ValueError(
                f"spec field 'epsilon_per_option' is {given!r}; allowed: exactly "
                f"epsilon / k = {per_option!r} (or omitted)"
            )
        normalized["epsilon_per_option"] = per_option
        return
    if "ell" not in spec:
        raise ValueError(
            "spec field 'ell' is missing; required for padding_sampling "
            f"(the most options one answer may select, 1 <= ell <= k = {k})"
        )
    ell = spec["ell"]
    if not is_int(ell) or not 1 <= ell <= k:
        raise ValueError(
            f"spec field 'ell' is {ell!r}; allowed: integers 1 <= ell <= k = {k}"
        )
    normalized["ell"] = ell


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
    Allowed: ``0 < ε <= 10``, integer ``2 <= k <= 4096`` (``k = 2`` for binary
    mechanisms), design probabilities ``> 0`` summing exactly to 1 (floats are
    read as ``Fraction(str(x))``), ``2 <= g <= 2^16``.  Booleans are not numbers.

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
    if mechanism not in MECHANISMS:
        raise ValueError(
            f"spec field 'mechanism' is {mechanism!r}; allowed: {list(MECHANISMS)}"
        )
    allowed = _ALLOWED_FIELDS.get(mechanism, _COMMON_FIELDS | {"epsilon"})
    unknown = sorted(str(name) for name in set(spec) - allowed)
    if unknown:
        raise ValueError(
            f"spec field(s) {unknown} not allowed for {mechanism}; allowed: "
            f"{sorted(allowed)}"
        )
    normalized: dict[str, Any] = {"version": SPEC_VERSION, "mechanism": mechanism}
    if mechanism in NUMERIC_MECHANISMS:
        normalized.update(validate_grid(spec))
    else:
        normalized["k"] = _k(mechanism, spec.get("k"))
    if mechanism in ORDINAL_MECHANISMS:
        check_ordinal_k(normalized["k"])
    if mechanism == "forced_response":
        if "design" not in spec:
            raise ValueError(
                "spec field 'design' is missing; required for forced_response"
            )
        normalized["design"] = _design(spec["design"])
    else:
        if "epsilon" not in spec:
            raise ValueError(
                f"spec field 'epsilon' is missing; required for {mechanism}"
            )
        normalized["epsilon"] = _epsilon(spec["epsilon"])
    if "g" in spec:
        g = spec["g"]
        if not is_int(g) or not 2 <= g <= G_MAX:
            raise ValueError(
                f"spec field 'g' is {g!r}; allowed: integers 2 <= g <= {G_MAX}"
            )
        normalized["g"] = g
    if mechanism in MULTI_SELECT_MECHANISMS:
        _multi_select(mechanism, spec, normalized)
    return normalized, spec.get("weights")
