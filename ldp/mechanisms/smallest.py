"""The smallest ε a spec's integer weights can express.

A requested ε so small that the compiled integer weights cannot deliver
``ε' > 0`` within the tolerance is refused by ``ldp.build``; the error names
the smallest request the same spec (mechanism, answers, grid) compiles, found
here by running the family's own compiler, so the number is exact rather
than a formula's estimate.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any

from ldp.exact import UndeliverableEpsilon
from ldp.mechanisms.base import Mechanism
from ldp.spec.validation import EPSILON_MAX

CACHE_SIZE = 256
"""Minima remembered per process: a refused spec is answered at once after."""

_CACHE: dict[str, tuple[float, Decimal]] = {}


def _float_bits(value: float) -> int:
    """Order-preserving integer of a positive float (its IEEE-754 bits)."""
    bits: int = struct.unpack("<q", struct.pack("<d", value))[0]
    return bits


def _bits_float(bits: int) -> float:
    value: float = struct.unpack("<d", struct.pack("<q", bits))[0]
    return value


def _compiled(
    family: type[Mechanism], params: dict[str, Any], epsilon: float
) -> Mechanism | None:
    """The family compiled at ``epsilon`` instead of the request, or None."""
    trial = dict(params, epsilon=epsilon)
    if "epsilon_per_option" in trial:
        trial["epsilon_per_option"] = epsilon / trial["k"]
    try:
        return family(trial)
    except UndeliverableEpsilon:
        return None


def smallest_epsilon(
    family: type[Mechanism], params: dict[str, Any]
) -> tuple[float, Decimal]:
    """The smallest float ε the spec compiles, and the ε' it delivers.

    Parameters
    ----------
    family : type of Mechanism
        The class ``ldp.build`` compiles the spec with.
    params : dict
        The validated spec, whose requested ``epsilon`` was refused.

    Returns
    -------
    epsilon : float
        The least float ``ε`` (between the refused request and
        ``EPSILON_MAX``) for which the integer weights deliver
        ``0 < ε' <= ε`` with ``ε − ε' <= 10^-6 · max(1, ε)``.
    delivered : Decimal
        The exact ``ε'`` of the weights compiled at that ``ε``.

    Raises
    ------
    ValueError
        If not even ``EPSILON_MAX`` compiles.

    Notes
    -----
    Bisection on the IEEE-754 bit patterns of positive floats, which are
    ordered like the floats themselves, so it ends on adjacent floats
    ``ε⁻ < ε`` with ``ε⁻`` refused and ``ε`` compiled: about 60 compiles.
    It relies on ``ε' > 0`` being monotone in the request, which holds for
    every family: each weight ratio ``P/Q`` (or the channel's largest
    column ratio) is a non-decreasing function of ``e^ε`` up to the floor
    and ceiling steps, and the result is verified by compiling it.  The
    answer depends on the spec without its ε, so it is remembered per spec
    (up to :data:`CACHE_SIZE`): a refused spec costs the bisection once.

    References
    ----------
    .. [1] docs/maths.md, section 1.3 (integer weights) and 1.4.
    """
    key = json.dumps(
        {
            name: value
            for name, value in params.items()
            if name not in ("epsilon", "epsilon_per_option")
        },
        sort_keys=True,
        default=str,
    )
    if key not in _CACHE:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _search(family, params)
    return _CACHE[key]


def _search(family: type[Mechanism], params: dict[str, Any]) -> tuple[float, Decimal]:
    """The bisection of :func:`smallest_epsilon` (uncached)."""
    hint = family.smallest_epsilon_hint(params)
    if hint is not None:
        hinted = _compiled(family, params, hint)
        if hinted is not None:
            return hint, hinted.epsilon_exact
    low = float(params["epsilon"])
    high = low
    compiled = None
    while compiled is None:
        if high >= EPSILON_MAX:
            raise ValueError(
                f"no ε up to {EPSILON_MAX} can be delivered by the integer weights "
                f"of {params!r}"
            )
        high = min(high * 16, float(EPSILON_MAX))
        compiled = _compiled(family, params, high)
    low_bits, high_bits = _float_bits(low), _float_bits(high)
    while high_bits - low_bits > 1:
        middle = (low_bits + high_bits) // 2
        candidate = _compiled(family, params, _bits_float(middle))
        if candidate is None:
            low_bits = middle
        else:
            high_bits, compiled = middle, candidate
    return _bits_float(high_bits), compiled.epsilon_exact
