"""The mechanism spec format: version, limits and validation."""

from ldp.spec.validation import (
    BINARY_MECHANISMS,
    DESIGN_FIELDS,
    EPSILON_MAX,
    G_MAX,
    K_MAX,
    MECHANISMS,
    SPEC_VERSION,
    validate_spec,
)

__all__ = [
    "BINARY_MECHANISMS",
    "DESIGN_FIELDS",
    "EPSILON_MAX",
    "G_MAX",
    "K_MAX",
    "MECHANISMS",
    "SPEC_VERSION",
    "validate_spec",
]
