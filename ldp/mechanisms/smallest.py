"""The nearest ε above a refused request that a spec's integer weights express.

A requested ε that the compiled integer weights cannot deliver (``ε' = 0``,
or ``ε'`` further below the request than the tolerance) is refused by
``ldp.build``; the error names the least ε at or above the request that the
same spec (mechanism, answers, grid) compiles, found here by running the
family's own compiler, so the number is exact rather than a formula's
estimate.  The answer depends only on the spec and the request: what is
remembered only saves time.
"""

from __future__ import annotations

import json
import struct
from decimal import Decimal
from typing import Any

from ldp.exact import UndeliverableEpsilon, round_up_float
from ldp.mechanisms.base import Mechanism
from ldp.spec.validation import EPSILON_MAX

CACHE_SIZE = 256
"""Answers remembered per process: a repeated refusal is answered at once."""

FOLLOW_MAX = 64
"""Most refusals followed upwards before falling back to bisection."""

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
) -> Mechanism | UndeliverableEpsilon:
    """The family compiled at ``epsilon`` instead of the request, or its refusal."""
    trial = dict(params, epsilon=epsilon)
    if "epsilon_per_option" in trial:
        trial["epsilon_per_option"] = epsilon / trial["k"]
    try:
        return family(trial)
    except UndeliverableEpsilon as refusal:
        return refusal


def smallest_epsilon(
    family: type[Mechanism], params: dict[str, Any]
) -> tuple[float, Decimal]:
    """An ε at or above the refused request that the spec compiles.

    Parameters
    ----------
    family : type of Mechanism
        The class ``ldp.build`` compiles the spec with.
    params : dict
        The validated spec, whose requested ``epsilon`` was refused.

    Returns
    -------
    epsilon : float
        A float ``ε >= request`` (up to ``EPSILON_MAX``) for which the
        integer weights deliver ``0 < ε' <= ε`` with
        ``ε − ε' <= 10^-6 · max(1, ε)``: the least such float for families
        whose feasibility is monotone in the request.
    delivered : Decimal
        The exact ``ε'`` of the weights compiled at that ``ε``.

    Raises
    ------
    ValueError
        If not even ``EPSILON_MAX`` compiles.

    Notes
    -----
    Families that calibrate a noise parameter (geometric, Gaussian) say, when
    they refuse, which delivered ``ε'`` their bisection met just above the
    request (``UndeliverableEpsilon.above``): the exact ε of the
    neighbouring, slightly less noisy parameter.  That ``ε'`` rounded up to
    a float is a request the same bisection meets within the tolerance, so
    it is tried next (a refusal names the next ``ε'`` above, and so on);
    a request below everything the bracket's noisiest kernel reaches is
    first moved up to where it is reached (:func:`_first_reachable`, one
    kernel per step).  Each step is one compile, with the column extremes
    of the clamped kernel read in ``O(m)``: a fraction of a second for a
    1001-level grid, where bisecting over compiles took a minute.  Where
    the integer kernel is coarse (tiny ε on a fine grid) the delivered ε'
    is not monotone in the noise, so the first ε found is not always the
    least one: hence "such as" in the message.

    Other families' feasibility is monotone in the request (each weight
    ratio is a non-decreasing function of ``e^ε`` up to the floor and
    ceiling steps), so the least compiling float is found by bisection on
    the IEEE-754 bit patterns of positive floats (ordered like the floats):
    about 60 compiles, ending on adjacent floats ``ε⁻ < ε`` with ``ε⁻``
    refused and ``ε`` compiled.  Answers are remembered per spec *and*
    request (up to :data:`CACHE_SIZE`), so memory never changes an answer.

    References
    ----------
    .. [1] docs/maths.md, section 1.3 (integer weights) and 1.4.
    """
    key = json.dumps(params, sort_keys=True, default=str)
    if key not in _CACHE:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _search(family, params)
    return _CACHE[key]


def _follow(
    family: type[Mechanism], params: dict[str, Any], refusal: UndeliverableEpsilon
) -> tuple[float, Decimal] | None:
    """Follow the refusals' ``above`` upwards to a compile, or None."""
    current = float(params["epsilon"])
    for _ in range(FOLLOW_MAX):
        if refusal.above is None:
            return None
        candidate = round_up_float(refusal.above)
        if not current < candidate <= EPSILON_MAX:
            return None
        result = _compiled(family, params, candidate)
        if isinstance(result, Mechanism):
            return candidate, result.epsilon_exact
        current, refusal = candidate, result
    return None


def _first_reachable(
    family: type[Mechanism], params: dict[str, Any], request: float
) -> float:
    """The least float above ``request`` whose calibration is not exhausted.

    Doubling then bisection on the float bits of
    ``Mechanism.noise_exhausted``, one kernel per step; below the answer
    every request is refused before calibrating, so no compile is skipped.
    """
    low = high = request
    while family.noise_exhausted(params, high):
        if high >= EPSILON_MAX:
            raise ValueError(
                f"no ε up to {EPSILON_MAX} can be delivered by the integer weights "
                f"of {params!r}"
            )
        low, high = high, min(high * 2, float(EPSILON_MAX))
    low_bits, high_bits = _float_bits(low), _float_bits(high)
    while high_bits - low_bits > 1:
        middle = (low_bits + high_bits) // 2
        if family.noise_exhausted(params, _bits_float(middle)):
            low_bits = middle
        else:
            high_bits = middle
    return _bits_float(high_bits)


def _search(family: type[Mechanism], params: dict[str, Any]) -> tuple[float, Decimal]:
    """The search of :func:`smallest_epsilon` (not remembered)."""
    low = float(params["epsilon"])
    if family.noise_exhausted(params, low):
        low = _first_reachable(family, params, low)
        params = dict(params, epsilon=low)
    first = _compiled(family, params, low)
    if isinstance(first, Mechanism):
        return low, first.epsilon_exact
    followed = _follow(family, params, first)
    if followed is not None:
        return followed
    hint = family.smallest_epsilon_hint(params)
    if hint is not None and hint >= low:
        hinted = _compiled(family, params, hint)
        if isinstance(hinted, Mechanism):
            return hint, hinted.epsilon_exact
    high = low
    compiled: Mechanism | UndeliverableEpsilon = first
    while not isinstance(compiled, Mechanism):
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
        if isinstance(candidate, Mechanism):
            high_bits, compiled = middle, candidate
        else:
            low_bits = middle
    return _bits_float(high_bits), compiled.epsilon_exact
