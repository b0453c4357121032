"""Survey weights from plain questions: post-stratification and raking.

Weights are computed from the answers to unprotected questions only (their
true values are known), to population margins the researcher gives.  They
are normalised to mean 1 (sum n).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.arrays import FloatArray

RAKING_ITERATIONS_MAX = 1000
"""Most sweeps over the margins :func:`rake` makes before giving up."""


class CalibrationError(ValueError):
    """Weights that meet the margins cannot be found from this sample.

    Examples
    --------
    >>> post_stratify(["a", "a"], {"a": 0.5, "b": 0.5})
    Traceback (most recent call last):
    ...
    ldp.weighting.CalibrationError: 'cells': no respondent has level(s) ['b'], ...
    """


@dataclass(frozen=True, eq=False)
class CalibrationWeights:
    """Calibrated weights and how well they meet their margins.

    Attributes
    ----------
    weights : ndarray
        One weight per respondent, mean 1.
    method : str
        ``"post-stratification"`` or ``"raking"``.
    iterations : int
        Raking sweeps (1 for post-stratification).
    max_margin_error : float
        Largest ``|weighted share − target share|`` over every margin level.
    cells : ndarray or None
        Post-stratification: each respondent's cell (as text), the strata a
        weighted estimate's variance takes residuals in
        (:func:`ldp.weighted_estimate`'s ``strata``); None for raking.

    Examples
    --------
    >>> w = post_stratify(["a", "a", "b"], {"a": 0.5, "b": 0.5})
    >>> w.weights
    array([0.75, 0.75, 1.5 ])
    >>> round(w.design_effect, 4)
    1.125
    """

    weights: FloatArray
    method: str
    iterations: int
    max_margin_error: float
    cells: Any = None

    @property
    def design_effect(self) -> float:
        """Kish's design effect of unequal weighting, ``n Σw²/(Σw)²``.

        Returns
        -------
        float
            At least 1; the factor by which unequal weights inflate the
            variance of a mean when the outcome is unrelated to the weights.

        See Also
        --------
        CalibrationWeights.effective_sample_size : ``n`` divided by it.

        Examples
        --------
        >>> round(post_stratify(["a", "a", "b"],
        ...                     {"a": 0.5, "b": 0.5}).design_effect, 3)
        1.125
        """
        return kish_design_effect(self.weights)

    @property
    def effective_sample_size(self) -> float:
        """Kish's effective sample size ``(Σw)²/Σw²``.

        Returns
        -------
        float
            ``n`` divided by the design effect.

        See Also
        --------
        CalibrationWeights.design_effect : The inflation factor.

        Examples
        --------
        >>> round(post_stratify(["a", "a", "b"],
        ...                     {"a": 0.5, "b": 0.5}).effective_sample_size, 3)
        2.667
        """
        return float(self.weights.size / self.design_effect)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able summary (without the weights themselves).

        Returns
        -------
        dict
            ``method``, ``n``, ``iterations``, ``max_margin_error``,
            ``design_effect``, ``effective_sample_size``, ``min_weight``,
            ``max_weight``.

        See Also
        --------
        CalibrationWeights.weights : The weights.

        Examples
        --------
        >>> post_stratify(["a", "b"], {"a": 0.5, "b": 0.5}).to_dict()["method"]
        'post-stratification'
        """
        return {
            "method": self.method,
            "n": int(self.weights.size),
            "iterations": self.iterations,
            "max_margin_error": self.max_margin_error,
            "design_effect": self.design_effect,
            "effective_sample_size": self.effective_sample_size,
            "min_weight": float(self.weights.min()),
            "max_weight": float(self.weights.max()),
        }


def kish_design_effect(weights: Any) -> float:
    """Return Kish's design effect of unequal weighting, ``n Σw²/(Σw)²``.

    Parameters
    ----------
    weights : array_like
        Non-negative weights, not all zero.

    Returns
    -------
    float
        ``1 + CV²`` of the weights (population CV).

    Raises
    ------
    ValueError
        For negative, non-finite or all-zero weights.

    Notes
    -----
    ``deff = n Σ w_i² / (Σ w_i)² = 1 + CV²(w)``; the effective sample size is
    ``n/deff``.

    References
    ----------
    .. [1] L. Kish, "Survey Sampling", Wiley 1965, section 11.7.
    .. [2] docs/maths.md, section 6.6.

    Examples
    --------
    >>> kish_design_effect([1, 1, 1, 1])
    1.0
    >>> kish_design_effect([1, 3])
    1.25
    """
    w = check_weights(weights)
    return float(w.size * np.sum(w * w) / np.sum(w) ** 2)


def check_weights(weights: Any, n: int | None = None) -> FloatArray:
    """Return weights as floats, refusing negative, non-finite or all-zero ones.

    Parameters
    ----------
    weights : array_like, shape (n,)
        Weights.
    n : int, optional
        The required length.

    Returns
    -------
    ndarray
        The weights as float64.

    Raises
    ------
    ValueError
        Naming the problem.

    Notes
    -----
    Weights only need to be proportional: estimates divide by ``Σw``.

    References
    ----------
    .. [1] docs/maths.md, section 6.6.

    Examples
    --------
    >>> check_weights([1, 2])
    array([1., 2.])
    """
    w = np.asarray(weights, dtype=float)
    if w.ndim != 1:
        raise ValueError(
            f"weights must be one number per respondent, got shape {w.shape}"
        )
    if n is not None and w.size != n:
        raise ValueError(f"{w.size} weights for {n} reports; one per report is needed")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and >= 0")
    if not w.size or w.sum() <= 0:
        raise ValueError("weights must not all be 0")
    return w


def _targets(name: str, margin: Mapping[Any, Any]) -> dict[str, float]:
    if not isinstance(margin, Mapping) or not margin:
        raise ValueError(f"margin of {name!r} must map each level to its share")
    targets = {}
    for level, share in margin.items():
        value = float(share)
        if not np.isfinite(value) or value < 0:
            raise ValueError(
                f"margin of {name!r}: level {level!r} has share {share!r}; "
                "allowed: a number >= 0"
            )
        targets[str(level)] = value
    total = sum(targets.values())
    if total <= 0:
        raise ValueError(f"margin of {name!r} sums to 0")
    return {level: value / total for level, value in targets.items()}


def _labels(name: str, values: Sequence[Any], targets: Mapping[str, float]) -> Any:
    labels = np.asarray([str(value) for value in values])
    unknown = sorted(set(labels.tolist()) - set(targets))
    if unknown:
        raise ValueError(
            f"{name!r} has levels {unknown} that its margin does not give; "
            f"allowed: {sorted(targets)}"
        )
    empty = sorted(
        level for level, share in targets.items() if share > 0 and level not in labels
    )
    if empty:
        raise CalibrationError(
            f"{name!r}: no respondent has level(s) {empty}, whose population share "
            "is positive; merge them with a neighbouring level"
        )
    return labels


def _base(base_weights: Any, n: int) -> FloatArray:
    if base_weights is None:
        return np.ones(n)
    return check_weights(base_weights, n)


def post_stratify(
    cells: Sequence[Any], population: Mapping[Any, Any], base_weights: Any = None
) -> CalibrationWeights:
    """Compute weights that give each cell its population share.

    Parameters
    ----------
    cells : sequence
        Each respondent's cell (the answer to a plain question, or a
        combination of answers); compared as text.
    population : mapping
        Population share (or count) of every cell; normalised to sum 1.
    base_weights : array_like, optional
        Design weights to adjust (default: all 1).

    Returns
    -------
    CalibrationWeights
        ``w_i = d_i P_h / (Σ_{j in h} d_j / Σ_j d_j)``, scaled to mean 1.

    Raises
    ------
    ValueError
        For a cell the population does not give, or shares that are negative
        or sum to 0.
    CalibrationError
        For a cell with a positive population share and no respondent.

    Notes
    -----
    The post-stratified estimator of a mean is ``Σ_h P_h ȳ_h`` with ``ȳ_h``
    the (design-weighted) cell mean.

    References
    ----------
    .. [1] D. Holt, T. M. F. Smith, "Post stratification", JRSS A 142(1),
       1979.
    .. [2] T. Lumley, "Complex Surveys: A Guide to Analysis Using R", Wiley
       2010, section 7.2.
    .. [3] docs/maths.md, section 6.6.

    Examples
    --------
    >>> post_stratify(["a", "a", "a", "b"], {"a": 1, "b": 1}).weights.round(3)
    array([0.667, 0.667, 0.667, 2.   ])
    """
    targets = _targets("cells", population)
    labels = _labels("cells", cells, targets)
    d = _base(base_weights, labels.size)
    w = d.copy()
    for level, share in targets.items():
        mask = labels == level
        if mask.any():
            w[mask] *= share / (d[mask].sum() / d.sum())
    w *= w.size / w.sum()
    return CalibrationWeights(
        w, "post-stratification", 1, _margin_error(w, [(labels, targets)]), labels
    )


def _margin_error(w: FloatArray, margins: list[tuple[Any, dict[str, float]]]) -> float:
    total = w.sum()
    worst = 0.0
    for labels, targets in margins:
        for level, share in targets.items():
            worst = max(worst, abs(w[labels == level].sum() / total - share))
    return float(worst)


def rake(
    variables: Mapping[str, Sequence[Any]],
    margins: Mapping[str, Mapping[Any, Any]],
    base_weights: Any = None,
    *,
    tolerance: float = 1e-10,
    max_iterations: int = RAKING_ITERATIONS_MAX,
) -> CalibrationWeights:
    """Raking (iterative proportional fitting) to several population margins.

    Parameters
    ----------
    variables : mapping of str to sequence
        Each plain question's answer for every respondent, by name.
    margins : mapping of str to mapping
        For each name in ``variables``, the population share (or count) of
        each level; each margin is normalised to sum 1.
    base_weights : array_like, optional
        Design weights to start from (default: all 1).
    tolerance : float, optional
        Stop when every weighted margin is within this of its target.
    max_iterations : int, optional
        Most sweeps over the margins.

    Returns
    -------
    CalibrationWeights
        Weights, scaled to mean 1, meeting every margin within ``tolerance``.

    Raises
    ------
    ValueError
        For a variable without a margin (or the reverse), unequal lengths, a
        level its margin does not give, or shares that are negative.
    CalibrationError
        For a level with a positive share and no respondent, or margins that
        raking cannot meet within ``max_iterations`` (for example when
        respondents leave a needed combination of levels empty).

    Notes
    -----
    Each sweep multiplies, margin by margin, the weights of level ``l`` by
    ``P_l / (Σ_{i: x_i = l} w_i / Σ_i w_i)``.  The limit minimises the
    raking (Kullback–Leibler) distance ``Σ w_i ln(w_i/d_i)`` subject to the
    margins, a calibration estimator of Deville and Särndal.

    References
    ----------
    .. [1] W. E. Deming, F. F. Stephan, "On a least squares adjustment of a
       sampled frequency table when the expected marginal totals are known",
       Ann. Math. Statist. 11(4), 1940.
    .. [2] J.-C. Deville, C.-E. Särndal, "Calibration estimators in survey
       sampling", JASA 87(418), 376–382, 1992.
    .. [3] T. Lumley, "Complex Surveys", Wiley 2010, section 7.4.
    .. [4] docs/maths.md, section 6.6.

    Examples
    --------
    >>> fit = rake({"sex": ["f", "f", "m", "m", "m"],
    ...             "age": ["young", "old", "young", "old", "old"]},
    ...            {"sex": {"f": 0.5, "m": 0.5}, "age": {"young": 0.5, "old": 0.5}})
    >>> fit.weights.round(3)
    array([1.464, 1.036, 1.036, 0.732, 0.732])
    >>> fit.max_margin_error < 1e-10
    True
    """
    if set(variables) != set(margins):
        raise ValueError(
            f"variables {sorted(variables)} and margins {sorted(margins)} must name "
            "the same questions"
        )
    if not variables:
        raise ValueError("raking needs at least one margin")
    lengths = {name: len(values) for name, values in variables.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"variables have unequal lengths: {lengths}")
    prepared = []
    for name, values in variables.items():
        targets = _targets(name, margins[name])
        prepared.append((_labels(name, values, targets), targets))
    n = next(iter(lengths.values()))
    w = _base(base_weights, n).copy()
    masks = [
        [(labels == level, share) for level, share in targets.items()]
        for labels, targets in prepared
    ]
    iterations = 0
    error = _margin_error(w, prepared)
    while error > tolerance and iterations < max_iterations:
        for levels in masks:
            total = w.sum()
            for mask, share in levels:
                current = w[mask].sum() / total
                if current > 0:
                    w[mask] *= share / current
        iterations += 1
        error = _margin_error(w, prepared)
    if error > tolerance:
        raise CalibrationError(
            f"raking did not meet the margins within {tolerance:g} after "
            f"{iterations} sweeps (largest error {error:.3g}); some needed "
            "combination of levels has no respondent: merge levels or drop a margin"
        )
    w *= w.size / w.sum()
    return CalibrationWeights(w, "raking", iterations, error)
