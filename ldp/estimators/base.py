"""The one interface every mechanism's estimate offers.

``Mechanism.estimate(stat)`` returns an :class:`Estimate` for every family
(frequency oracles, multi-select, ordinal and numeric finite channels), so
callers read shares, intervals, consistent shares and the mean the same way
whatever the mechanism.  What differs between families is data, not type:
which interval and consistency methods exist (:attr:`Estimate.interval_methods`,
:attr:`Estimate.consistent_methods`), whether the shares form a distribution
(:attr:`Estimate.sums_to_one`), whether they can be recovered at all
(:attr:`Estimate.identifiable`) and whether answers have values
(:meth:`Estimate.mean`).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ldp.arrays import FloatArray, IntArray
from ldp.estimators.intervals import ConfidenceInterval
from ldp.estimators.mean import MeanEstimate


@runtime_checkable
class Estimate(Protocol):
    """What ``Mechanism.estimate()`` returns, for every mechanism family.

    Implemented by :class:`~ldp.estimators.frequency.FrequencyEstimate`,
    :class:`~ldp.estimators.multiselect.MultiSelectEstimate` and
    :class:`~ldp.estimators.channel.ChannelEstimate`.

    Examples
    --------
    >>> import ldp
    >>> rng = np.random.default_rng(0)
    >>> for spec in ({"mechanism": "grr", "k": 3, "epsilon": 2.0},
    ...              {"mechanism": "ordinal", "k": 3, "epsilon": 2.0}):
    ...     mechanism = ldp.build(spec)
    ...     reports = mechanism.randomize(rng.integers(0, 3, 500), rng)
    ...     estimate = mechanism.estimate(mechanism.aggregate(reports))
    ...     print(isinstance(estimate, Estimate), estimate.interval_methods[0],
    ...           estimate.mean() is None)
    True exact True
    True wald False
    """

    @property
    def n(self) -> int:
        """Number of reports."""
        ...

    @property
    def mechanism(self) -> str:
        """Mechanism name, as in the spec."""
        ...

    @property
    def epsilon(self) -> float:
        """Delivered ε of the question (rounded up)."""
        ...

    @property
    def estimate(self) -> FloatArray:
        """Unbiased share of each answer (empty when not identifiable)."""
        ...

    @property
    def standard_error(self) -> FloatArray:
        """Standard error of each share (empty when not identifiable)."""
        ...

    @property
    def counts(self) -> IntArray:
        """The support counts or report histogram the estimate is made from."""
        ...

    @property
    def identifiable(self) -> bool:
        """True when the answer shares can be recovered from the reports."""
        ...

    @property
    def sums_to_one(self) -> bool:
        """True when the shares form a distribution (False: multi-select)."""
        ...

    @property
    def interval_methods(self) -> tuple[str, ...]:
        """Methods :meth:`confidence_interval` accepts; the first is its default."""
        ...

    @property
    def consistent_methods(self) -> tuple[str, ...]:
        """Methods :meth:`consistent` accepts; the first is its default."""
        ...

    def confidence_interval(
        self,
        level: float = 0.95,
        method: str | None = None,
        simultaneous: bool = False,
    ) -> ConfidenceInterval[FloatArray]:
        """Per-answer confidence intervals (see each family)."""
        ...

    def consistent(self, method: str | None = None) -> FloatArray:
        """Shares made consistent by post-processing (see each family)."""
        ...

    def mean(self) -> MeanEstimate | None:
        """The mean answer value, or None when answers have no values."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of the estimate."""
        ...


def not_identifiable(mechanism: str) -> ValueError:
    """The error raised when shares are asked of an unidentifiable estimate.

    Parameters
    ----------
    mechanism : str
        Mechanism name, for the message.

    Returns
    -------
    ValueError
        Saying why, and what to use instead.

    See Also
    --------
    Estimate.identifiable : The flag to check first.

    Examples
    --------
    >>> str(not_identifiable("duchi"))
    'duchi: the answer shares are not identifiable from its reports; use mean()'
    """
    return ValueError(
        f"{mechanism}: the answer shares are not identifiable from its reports; "
        "use mean()"
    )
