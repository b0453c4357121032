"""Mechanisms, one module per family, their registry and ``build(spec)``."""

from __future__ import annotations

from typing import Any

from ldp.exact import UndeliverableEpsilon, round_up_float
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.binary import ForcedResponse, Warner
from ldp.mechanisms.grr import GeneralizedRandomizedResponse
from ldp.mechanisms.hadamard import HadamardResponse
from ldp.mechanisms.multiselect import (
    MultiRandomizedResponse,
    MultiSelectMechanism,
    PaddingAndSampling,
)
from ldp.mechanisms.numeric import (
    DiscreteGaussian,
    Duchi,
    FiniteChannelMechanism,
    Geometric,
    GridMechanism,
    Piecewise,
)
from ldp.mechanisms.olh import OptimizedLocalHashing
from ldp.mechanisms.oracle import FrequencyOracle, SupportMechanism
from ldp.mechanisms.ordinal import OrdinalExponential
from ldp.mechanisms.registry import REGISTRY
from ldp.mechanisms.smallest import smallest_epsilon
from ldp.mechanisms.unary import OptimizedUnaryEncoding, SymmetricUnaryEncoding
from ldp.spec.validation import validate_spec


def build(spec: Any) -> Mechanism:
    """Validate a requested or compiled spec and compile it to a Mechanism.

    Parameters
    ----------
    spec : mapping
        ``{"version": 1, "mechanism": ..., "k": ..., "epsilon": ...}`` (plus
        ``design`` or ``g``); a compiled spec also carries ``weights``.

    Returns
    -------
    Mechanism
        Its ``.spec`` is the compiled spec with the integer ``weights``.

    Raises
    ------
    ValueError
        For an invalid spec (naming the field, the value and what is allowed),
        for compiled weights that differ from the derived ones (drift), or
        for an ε the integer weights cannot deliver: ``ε' = 0``, or not within
        ``10^-6 · max(1, ε)`` below the request.  That message names an ε
        above the request that the same spec compiles and the ε' it delivers
        (:func:`ldp.mechanisms.smallest.smallest_epsilon`).

    Notes
    -----
    Weights are chosen by floor/ceiling so the delivered ε, computed exactly
    from the integers, is never above the requested ε.  Every family is
    checked alike after compiling (``0 < ε' <= ε`` and
    ``ε − ε' <= 10^-6 · max(1, ε)``);
    with at most ``2^32`` per row, a ratio of integers cannot come closer to 1
    than ``1 + 1/2^32``, so a small enough ε always rounds to ``ε' = 0``.

    References
    ----------
    .. [1] docs/maths.md, section 1 (integer weights).

    Examples
    --------
    >>> build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    GeneralizedRandomizedResponse(k=3, epsilon=1.000)
    """
    params, weights = validate_spec(spec)
    family = REGISTRY[params["mechanism"]]
    try:
        return family(params, weights)
    except UndeliverableEpsilon as error:
        smallest, delivered = smallest_epsilon(family, params)
        raise ValueError(
            f"spec field 'epsilon' is {params['epsilon']!r}, too small for "
            f"{params['mechanism']} with these answers: {error}; allowed: an "
            f"ε its integer weights can express, such as epsilon = {smallest!r} "
            f"(delivering ε' = {round_up_float(delivered)!r}), the first found "
            "above the request"
        ) from None


__all__ = [
    "REGISTRY",
    "DiscreteGaussian",
    "Duchi",
    "FiniteChannelMechanism",
    "ForcedResponse",
    "FrequencyOracle",
    "GeneralizedRandomizedResponse",
    "Geometric",
    "GridMechanism",
    "HadamardResponse",
    "Mechanism",
    "MultiRandomizedResponse",
    "MultiSelectMechanism",
    "OptimizedLocalHashing",
    "OptimizedUnaryEncoding",
    "OrdinalExponential",
    "PaddingAndSampling",
    "Piecewise",
    "SupportMechanism",
    "SymmetricUnaryEncoding",
    "Warner",
    "build",
]
