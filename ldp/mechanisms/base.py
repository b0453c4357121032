"""The Mechanism interface shared by every family of local randomizer."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from decimal import Decimal
from typing import Any, ClassVar

from ldp.arrays import AnyArray, FloatArray
from ldp.counts import SupportCounts, check_counts
from ldp.estimators.base import Estimate
from ldp.exact import (
    UndeliverableEpsilon,
    display_epsilon,
    epsilon_gap_allowed,
    round_up_float,
)
from ldp.mechanisms.about import About
from ldp.mechanisms.reports import ReportHandling
from ldp.mechanisms.sampler import Sampler
from ldp.mechanisms.specs import SpecRules


def _same_weights(given: Any, derived: dict[str, int]) -> bool:
    """True if ``given`` has exactly the derived keys and int (not bool) values."""
    return (
        isinstance(given, dict)
        and given.keys() == derived.keys()
        and all(type(given[key]) is int for key in given)
        and given == derived
    )


class Mechanism(ReportHandling, SpecRules, About, Sampler, ABC):
    """A local randomizer compiled to integer weights.

    Subclasses derive ``weights`` from the validated spec, compute the exact ε
    from those integers and implement the sampler of ``ldp/spec/README.md``
    (:class:`~ldp.mechanisms.sampler.Sampler`); each also declares its spec
    rules (:class:`~ldp.mechanisms.specs.SpecRules`) and what the rest of the
    project needs to know of it (:class:`~ldp.mechanisms.about.About`).
    Every family answers the same questions: :meth:`estimate` returns an
    :class:`~ldp.estimators.base.Estimate`, and :meth:`worst_case_variance`,
    :meth:`manipulation_bound`, :attr:`bias_bound` and :meth:`input_values`
    describe its headline figure before any report arrives.

    Attributes
    ----------
    k : int
        Number of answers (options, levels or grid points).
    weights : dict
        The integer weights every sampler uses.
    epsilon_exact : Decimal
        Delivered ε computed exactly from the weights.
    minimum_reports : int
        Fewest reports :meth:`estimate` accepts.
    interval_method : str
        Interval method of the headline figure while no shares are shown:
        ``"exact"`` (Clopper–Pearson shares) for frequency oracles, ``"t"``
        (the mean) for finite channels.

    Examples
    --------
    >>> import ldp
    >>> mechanism = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    >>> mechanism
    GeneralizedRandomizedResponse(k=3, epsilon=1.000)
    >>> rng = np.random.default_rng(1)
    >>> stat = mechanism.aggregate(mechanism.randomize([0] * 60 + [2] * 40, rng))
    >>> stat.n
    100
    """

    name: ClassVar[str]
    minimum_reports: ClassVar[int] = 1
    interval_method: ClassVar[str] = "exact"
    epsilon_above: Decimal | None = None
    """A delivered ε above the request met while calibrating, if any."""

    def __init__(self, params: dict[str, Any], weights: Any = None) -> None:
        self._params = params
        self.k: int = self._input_size()
        self.weights: dict[str, Any] = self._derive_weights()
        if weights is not None and not self._weights_match(weights):
            raise ValueError(
                f"spec field 'weights' is {weights!r} but build derives "
                f"{self.weights!r}: the spec drifted; allowed: exactly the derived "
                "weights (or omit them)"
            )
        self.epsilon_exact: Decimal = self._exact_epsilon()
        self._check_delivered()

    def _check_delivered(self) -> None:
        """Refuse weights whose delivered ε' is 0, above ε or too far below it.

        Every family is checked here, after its weights are derived: the
        delivered ``ε'`` must satisfy ``0 < ε' <= ε`` and
        ``ε − ε' <= 10^-6 · max(1, ε)`` (a spec with no requested ε, forced
        response, only needs ``ε' > 0``).  ``ε' = 0`` means every answer is
        reported with the same probabilities: nothing can be estimated.
        """
        delivered = self.epsilon_exact
        requested = self._params.get("epsilon")
        if delivered <= 0:
            raise UndeliverableEpsilon(
                f"its integer weights {self._weights_summary()} deliver ε' = 0 "
                "(every answer is reported alike, nothing can be estimated)"
            )
        if requested is None:
            return
        gap = Decimal(requested) - delivered
        allowed = epsilon_gap_allowed(requested)
        if gap < 0 or gap > allowed:
            raise UndeliverableEpsilon(
                f"its integer weights deliver ε' = {round_up_float(delivered)!r}, "
                f"not within {allowed:.3g} below the requested {requested!r}",
                above=self.epsilon_above if gap > 0 else None,
            )

    def _weights_summary(self) -> str:
        """The weights for an error message, cut to 120 characters."""
        text = repr(self.weights)
        return text if len(text) <= 120 else text[:117] + "..."

    # --- derived quantities -------------------------------------------------
    def _input_size(self) -> int:
        """Number of answers; the spec's ``k`` unless the family derives it."""
        return int(self._params["k"])

    def _weights_match(self, given: Any) -> bool:
        """True if a compiled spec's ``weights`` are exactly the derived ones."""
        return _same_weights(given, self.weights)

    @abstractmethod
    def _derive_weights(self) -> dict[str, Any]: ...

    @abstractmethod
    def _exact_epsilon(self) -> Decimal: ...

    def _spec_fields(self) -> dict[str, Any]:
        """Compiled spec fields other than ``weights`` (JSON-able)."""
        return dict(self._params)

    @property
    def spec(self) -> dict[str, Any]:
        """The compiled spec: the requested fields plus ``weights``.

        Returns
        -------
        dict
            JSON-able; ``build(mechanism.spec)`` rebuilds the same mechanism.

        Notes
        -----
        ``weights`` are the integers every sampler uses; a compiled spec whose
        weights differ from the derived ones is refused (drift).

        References
        ----------
        .. [1] docs/maths.md, section 1 (integer weights).

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0}).spec["weights"]
        {'keep': 2474403177, 'other': 910282058}
        """
        return copy.deepcopy({**self._spec_fields(), "weights": self.weights})

    @property
    def epsilon(self) -> float:
        """Delivered ε: the smallest float ``>=`` the exact value.

        Returns
        -------
        float
            ``min{x in float64 : x >= ε'}``, ``ε'`` computed from the weights.

        Notes
        -----
        Never the requested ε echoed back; ``ε' <= ε`` by construction.

        References
        ----------
        .. [1] docs/maths.md, section 1.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.epsilon <= 1.0, round(grr.epsilon, 9)
        (True, 1.0)
        """
        return round_up_float(self.epsilon_exact)

    @property
    def epsilon_display(self) -> str:
        """Delivered ε rounded up to 3 decimals, for display.

        Returns
        -------
        str
            ``ceil(ε' · 1000)/1000``, for example ``"1.099"`` for ln 3.

        Notes
        -----
        Rounded up so the displayed value is never below the delivered ε.

        References
        ----------
        .. [1] docs/maths.md, section 1.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0}).epsilon_display
        '1.000'
        """
        return display_epsilon(self.epsilon_exact)

    def channel_matrix(self) -> AnyArray:
        """The channel ``Q[x, y] = P(report y | answer x)``.

        Returns
        -------
        ndarray
            Only for mechanisms whose report is one answer (binary, GRR).

        Raises
        ------
        NotImplementedError
            For oracles whose output space is large (unary, OLH, Hadamard).

        Notes
        -----
        ``ε = max_y ln(max_x Q[x, y]/min_x Q[x, y])``.

        References
        ----------
        .. [1] docs/maths.md, section 1.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.channel_matrix().round(3)
        array([[0.576, 0.212, 0.212],
               [0.212, 0.576, 0.212],
               [0.212, 0.212, 0.576]])
        """
        raise NotImplementedError(f"{self.name} has no small finite channel matrix")

    # --- estimation ---------------------------------------------------------
    def _check_stat(self, stat: SupportCounts) -> None:
        """Refuse counts of another spec, or too few reports to estimate."""
        if not isinstance(stat, SupportCounts):
            raise ValueError("stat must be the SupportCounts returned by aggregate")
        if stat.spec != self.spec:
            raise ValueError("support counts were made under a different spec")
        if stat.n <= 0:
            raise ValueError("cannot estimate from zero reports")
        if stat.n < self.minimum_reports:
            raise ValueError(
                f"need at least {self.minimum_reports} reports to estimate, "
                f"got {stat.n}"
            )
        check_counts(stat.n, stat.counts, self.spec)

    @abstractmethod
    def estimate(self, stat: SupportCounts) -> Estimate:
        """Estimate the answer shares (and the mean, where answers have values).

        Parameters
        ----------
        stat : SupportCounts
            Output of :meth:`aggregate` for this mechanism's spec, with at
            least :attr:`minimum_reports` reports.

        Returns
        -------
        Estimate
            The common interface: ``estimate``, ``standard_error``,
            ``confidence_interval(level, method)``, ``consistent(method)``,
            ``mean()`` and ``to_dict()``.

        Raises
        ------
        ValueError
            For counts of another spec, or too few reports.

        Notes
        -----
        Each family's estimator is unbiased: ``E f̂ = f``.

        References
        ----------
        .. [1] docs/maths.md, section 6.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> estimate = grr.estimate(grr.aggregate([0, 2, 2, 1, 2]))
        >>> estimate.interval_methods[0], estimate.mean() is None
        ('exact', True)
        """

    @abstractmethod
    def worst_case_variance(self) -> float:
        """Per-report variance of the headline estimate, worst case over answers.

        Returns
        -------
        float
            ``n · Var`` of a share (frequency oracles, multi-select) or of the
            mean in squared value units (finite channels).

        Notes
        -----
        The quantity :func:`ldp.planning.margin_of_error` and
        :func:`ldp.planning.sample_size` plan with.

        References
        ----------
        .. [1] docs/maths.md, section 7.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> round(grr.worst_case_variance(), 4)
        1.885
        >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
        >>> geometric = ldp.build({"mechanism": "geometric", **grid})
        >>> round(geometric.worst_case_variance(), 1)
        161.2
        """

    @abstractmethod
    def manipulation_bound(self, share: float) -> float:
        """How far a ``share`` of fake respondents can move the headline estimate.

        Parameters
        ----------
        share : float
            Fraction of the reports that are fake, e.g. 0.01.

        Returns
        -------
        float
            The largest shift, in the units of the headline estimate.

        Notes
        -----
        Fakes may send any valid report, so the bound is ``share`` times the
        range of one report's contribution to the estimator.

        References
        ----------
        .. [1] docs/maths.md, section 10.
        .. [2] A. Cheu, A. Smith, J. Ullman, "Manipulation attacks in local
           differential privacy", IEEE S&P 2021.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> round(grr.manipulation_bound(0.01), 4)
        0.0216
        """

    @property
    def value_range(self) -> float:
        """Width of the headline estimate's scale (1 for shares).

        Returns
        -------
        float
            1 for shares; ``max v − min v`` for means of valued answers.

        Notes
        -----
        A margin asked as a fraction of the scale is this times the fraction.

        References
        ----------
        .. [1] docs/maths.md, section 7.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0}).value_range
        1.0
        >>> grid = {"low": "0", "high": "10", "step": "1", "epsilon": 1.0}
        >>> ldp.build({"mechanism": "geometric", **grid}).value_range
        10.0
        """
        return 1.0

    @property
    def bias_bound(self) -> float:
        """Worst-case bias of the headline estimate from rounding (0 if exact).

        Returns
        -------
        float
            0 for frequency oracles; the score residual for finite channels.

        Notes
        -----
        Unbiasedness holds exactly for the realised integer weights; only a
        numerically singular channel leaves a residual.

        References
        ----------
        .. [1] docs/maths.md, section 5.

        Examples
        --------
        >>> import ldp
        >>> ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0}).bias_bound
        0.0
        """
        return 0.0

    def input_values(self) -> FloatArray | None:
        """The value of each answer, or None when answers are categories.

        Returns
        -------
        ndarray or None
            ``v_x`` for ordinal and numeric mechanisms; None otherwise.

        Notes
        -----
        Answers with values have a mean, ``Σ_x f_x v_x``.

        References
        ----------
        .. [1] docs/maths.md, section 5.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> print(grr.input_values())
        None
        >>> ldp.build({"mechanism": "ordinal", "k": 3, "epsilon": 1.0}).input_values()
        array([0., 1., 2.])
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k}, epsilon={self.epsilon_display})"
