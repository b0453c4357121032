"""The mechanism spec format: version, limits and validation."""

from ldp.spec.validation import (
    EPSILON_MAX,
    K_MAX,
    SPEC_VERSION,
    validate_spec,
)

__all__ = [
    "EPSILON_MAX",
    "K_MAX",
    "SPEC_VERSION",
    "validate_spec",
]
