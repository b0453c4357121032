"""Choosing the minimum-variance frequency oracle for (k, ε)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ldp.mechanisms import FiniteChannelMechanism, FrequencyOracle, build
from ldp.mechanisms.about import MULTI_SELECT, NUMERIC, SINGLE_CHOICE, YES_NO
from ldp.mechanisms.base import Mechanism
from ldp.mechanisms.registry import for_kind
from ldp.planning import mean_noise_variance, variance_at_zero
from ldp.spec.validation import is_int


def _candidates(kind: str, answers: dict[str, Any]) -> list[type[Mechanism]]:
    """The mechanisms of ``kind`` that take an ε and accept these answers."""
    return [
        family
        for family in for_kind(kind)
        if not family.takes_design and family.accepts(answers)
    ]


def _oracles(kind: str, answers: dict[str, Any]) -> list[type[Mechanism]]:
    """The frequency oracles among :func:`_candidates`."""
    return [f for f in _candidates(kind, answers) if issubclass(f, FrequencyOracle)]


def _build_oracle(spec: dict[str, Any]) -> FrequencyOracle:
    """Build a single-answer frequency oracle's spec."""
    mechanism = build(spec)
    if not isinstance(mechanism, FrequencyOracle):
        raise TypeError(f"{spec['mechanism']} is not a frequency oracle")
    return mechanism


def _build_finite_channel(spec: dict[str, Any]) -> FiniteChannelMechanism:
    """Build a numeric (finite-channel) mechanism's spec."""
    mechanism = build(spec)
    if not isinstance(mechanism, FiniteChannelMechanism):
        raise TypeError(f"{spec['mechanism']} is not a finite channel")
    return mechanism


@dataclass(frozen=True)
class Alternative:
    """A mechanism considered, with its compiled spec and variance at f ≈ 0.

    Attributes
    ----------
    mechanism : str
        Mechanism name.
    spec : dict
        Its compiled spec.
    variance : float
        The criterion it was ranked by (see each ``recommend`` function).

    Examples
    --------
    >>> import ldp
    >>> best = ldp.recommend(k=10, epsilon=1.0).alternatives[0]
    >>> best.mechanism, round(best.variance, 3)
    ('grr', 3.63)
    """

    mechanism: str
    spec: dict[str, Any]
    variance: float


@dataclass(frozen=True)
class Recommendation:
    """The minimum-variance mechanism and every alternative considered.

    Attributes
    ----------
    spec : dict
        Compiled spec of the recommended mechanism.
    variance : float
        Its per-report variance at ``f ≈ 0``, worst case over answers
        (``n · Var f̂_v``).
    alternatives : tuple of Alternative
        All candidates, lowest variance first (the choice included).

    Examples
    --------
    >>> import ldp
    >>> choice = ldp.recommend(k=10, epsilon=1.0)
    >>> choice.mechanism, [alt.mechanism for alt in choice.alternatives]
    ('grr', ['grr', 'oue', 'olh', 'sue', 'hadamard'])
    """

    spec: dict[str, Any]
    variance: float
    alternatives: tuple[Alternative, ...]

    @property
    def mechanism(self) -> str:
        """Name of the recommended mechanism.

        Returns
        -------
        str
            ``spec["mechanism"]``.

        Notes
        -----
        The minimum of the per-report variance at ``f ≈ 0``.

        References
        ----------
        .. [1] Wang et al., USENIX Security 2017, section 5.

        Examples
        --------
        >>> import ldp
        >>> ldp.recommend(k=2, epsilon=1.0).mechanism
        'warner'
        """
        return str(self.spec["mechanism"])


def recommend(*, k: int, epsilon: float, kind: str | None = None) -> Recommendation:
    """Recommend the mechanism with the lowest variance for k answers at ε.

    Parameters
    ----------
    k : int
        Number of answers, ``2 <= k <= 4096``.
    epsilon : float
        Requested ε, ``0 < ε <= 10``.
    kind : str, optional
        The answer kind whose frequency oracles compete
        (``ldp.mechanisms.about``): by default ``"yes_no"`` for ``k = 2``
        (Warner) and ``"single_choice"`` otherwise (GRR, OUE, OLH, Hadamard,
        SUE).

    Returns
    -------
    Recommendation
        The minimum over the kind's mechanisms that take an ε of the
        realised variance at ``f ≈ 0``.

    Notes
    -----
    Variances per report at ``f ≈ 0``: GRR ``(e^ε + k − 2)/(e^ε − 1)^2``; OUE
    and OLH ``4 e^ε/(e^ε − 1)^2``; SUE ``e^{ε/2}/(e^{ε/2} − 1)^2``; Hadamard
    ``((e^ε + 1)/(e^ε − 1))^2``.  So GRR wins iff ``k − 2 < 3 e^ε``, else OUE
    (OLH is the short-report alternative, Hadamard the fastest to aggregate).
    Ties keep the earlier candidate in the registry's order (GRR, OUE, OLH,
    Hadamard, SUE).

    References
    ----------
    .. [1] Wang et al., USENIX Security 2017, section 5 (comparison).
    .. [2] docs/maths.md, section 3 (choosing).

    Examples
    --------
    >>> recommend(k=10, epsilon=1.0).mechanism
    'grr'
    >>> recommend(k=40, epsilon=1.0).mechanism
    'oue'
    """
    if kind is None:
        kind = YES_NO if k == 2 else SINGLE_CHOICE
    alternatives = []
    for family in _oracles(kind, {"k": k}):
        mechanism = _build_oracle(family.request({"k": k}, epsilon))
        alternatives.append(
            Alternative(family.name, mechanism.spec, variance_at_zero(mechanism))
        )
    ranked = tuple(sorted(alternatives, key=lambda alt: alt.variance))
    return Recommendation(ranked[0].spec, ranked[0].variance, ranked)


def recommend_multiselect(
    *, k: int, epsilon: float, max_selections: int
) -> Recommendation:
    """Recommend a multi-select mechanism: per-option RR or padding-and-sampling.

    Parameters
    ----------
    k : int
        Number of options, ``2 <= k <= 4096``.
    epsilon : float
        Requested total ε of the question, ``0 < ε <= 10``.
    max_selections : int
        Most options one respondent may select, ``1 <= max_selections <= k``;
        padding-and-sampling pads to ``ℓ = max_selections``.

    Returns
    -------
    Recommendation
        The candidate with the lower worst-case per-report variance of an
        option's share (``max_f n · Var f̂_v``), with every candidate as
        alternatives, lowest first.  ``multi_rr`` is a candidate for
        ``k <= 64`` only.

    Raises
    ------
    ValueError
        For ``max_selections`` outside ``[1, k]`` or an invalid k or ε.

    Notes
    -----
    ``multi_rr`` spends ``ε/k`` per option: worst case ``1/(4 (p − q)²)`` with
    ``p − q ≈ tanh(ε/(2k))``, which grows like ``k²/ε²``.  Padding-and-sampling
    spends ε on one sampled slot of ℓ: worst case ``ℓ² λ(1 − λ)/(p − q)²`` with
    ``λ`` in ``[q, q + (p − q)/ℓ]`` over ``k + ℓ`` items.  It wins for many
    options with few selections; per-option RR for few options at large ε.
    Ties keep padding-and-sampling (one short report).

    References
    ----------
    .. [1] T. Wang, N. Li, S. Jha, "Locally differentially private frequent
       itemset mining", IEEE S&P 2018, section 4.
    .. [2] Ú. Erlingsson, V. Pihur, A. Korolova, "RAPPOR", CCS 2014.
    .. [3] docs/maths.md, section 3 (multi-select).

    Examples
    --------
    >>> choice = recommend_multiselect(k=20, epsilon=2.0, max_selections=3)
    >>> [alt.mechanism for alt in choice.alternatives]
    ['padding_sampling', 'multi_rr']
    """
    if not is_int(k):
        raise ValueError(f"k is {k!r}; allowed: an integer 2 <= k <= 4096")
    if not is_int(max_selections) or not 1 <= max_selections <= k:
        raise ValueError(
            f"max_selections is {max_selections!r}; allowed: integers "
            f"1 <= max_selections <= k = {k}"
        )
    alternatives = []
    for family in _candidates(MULTI_SELECT, {"k": k}):
        mechanism = build(
            family.request({"k": k}, epsilon, max_selections=max_selections)
        )
        variance = mechanism.worst_case_variance()
        alternatives.append(Alternative(mechanism.name, mechanism.spec, variance))
    ranked = tuple(sorted(alternatives, key=lambda alt: alt.variance))
    return Recommendation(ranked[0].spec, ranked[0].variance, ranked)


def recommend_numeric(
    *, low: str | float, high: str | float, step: str | float, epsilon: float
) -> Recommendation:
    """Recommend the numeric mechanism with the lowest worst-case mean variance.

    Parameters
    ----------
    low, high, step : str or number
        The grid (decimal strings preferred), ``2 <= m <= 1001`` levels.
    epsilon : float
        Requested ε, ``0 < ε <= 10``.

    Returns
    -------
    Recommendation
        ``variance`` is ``max_x Var(s[Y] | x)`` per report in squared value
        units; alternatives are the numeric mechanisms (geometric, piecewise,
        Duchi, Gaussian),
        lowest first (``inf`` for a channel too smooth to invert).

    Notes
    -----
    Each candidate is compiled to its integer weights and its score vector
    ``Q s = v`` solved; ``Var(s[Y] | x) = Σ_y Q[x, y] s_y² − v_x²``.  Ties keep
    the earlier candidate in the registry's order (geometric, piecewise,
    Duchi, Gaussian): on two levels geometric and Duchi are the same channel,
    and geometric's reports also give the distribution.  Duchi
    tends to win at small ε, piecewise at larger ε, geometric on coarse grids.

    References
    ----------
    .. [1] J. C. Duchi, M. I. Jordan, M. J. Wainwright, JASA 2018.
    .. [2] N. Wang et al., ICDE 2019.
    .. [3] docs/maths.md, section 5 (choose the mechanism).

    Examples
    --------
    >>> recommend_numeric(low="0", high="10", step="1", epsilon=1.0).mechanism
    'duchi'
    """
    alternatives = []
    grid = {"low": low, "high": high, "step": step}
    for family in _candidates(NUMERIC, grid):
        mechanism = _build_finite_channel(family.request(grid, epsilon))
        alternatives.append(
            Alternative(family.name, mechanism.spec, mean_noise_variance(mechanism))
        )
    ranked = tuple(sorted(alternatives, key=lambda alt: alt.variance))
    return Recommendation(ranked[0].spec, ranked[0].variance, ranked)
