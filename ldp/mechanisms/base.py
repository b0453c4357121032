"""The Mechanism interface shared by every frequency oracle."""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from decimal import Decimal
from typing import Any, ClassVar

import numpy as np

from ldp.exact import display_epsilon, round_up_float
from ldp.mechanisms.reports import ReportHandling
from ldp.sampling import Draw


def _same_weights(given: Any, derived: dict[str, int]) -> bool:
    """True if ``given`` has exactly the derived keys and int (not bool) values."""
    return (
        isinstance(given, dict)
        and given.keys() == derived.keys()
        and all(type(given[key]) is int for key in given)
        and given == derived
    )


class Mechanism(ReportHandling, ABC):
    """A local randomizer compiled to integer weights.

    Subclasses derive ``weights`` from the validated spec, compute the exact ε
    from those integers and implement the sampler of the spec contract.
    """

    name: ClassVar[str]

    def __init__(self, params: dict[str, Any], weights: Any = None) -> None:
        self._params = params
        self.k: int = params["k"]
        self.weights: dict[str, int] = self._derive_weights()
        if weights is not None and not _same_weights(weights, self.weights):
            raise ValueError(
                f"spec field 'weights' is {weights!r} but build derives "
                f"{self.weights!r}: the spec drifted; allowed: exactly the derived "
                "weights (or omit them)"
            )
        self.epsilon_exact: Decimal = self._exact_epsilon()
        self.p_star, self.q_star = self._support_probabilities()

    # --- derived quantities -------------------------------------------------
    @abstractmethod
    def _derive_weights(self) -> dict[str, int]: ...

    @abstractmethod
    def _exact_epsilon(self) -> Decimal: ...

    @abstractmethod
    def _support_probabilities(self) -> tuple[np.ndarray, np.ndarray]: ...

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
        .. [1] Deniable LDP primer, section 1 ("Integer weights").
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
        .. [1] Deniable LDP primer, section 1.
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
        .. [1] Deniable LDP primer, section 1.
        """
        return display_epsilon(self.epsilon_exact)

    def channel_matrix(self) -> np.ndarray:
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
        .. [1] Deniable LDP primer, section 1.
        """
        raise NotImplementedError(f"{self.name} has no small finite channel matrix")

    # --- sampling -----------------------------------------------------------
    def _check_value(self, value: Any) -> int:
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
            raise ValueError(
                f"answer must be an integer in [0, {self.k}), got {value!r}"
            )
        if not 0 <= value < self.k:
            raise ValueError(
                f"answer must be an integer in [0, {self.k}), got {value!r}"
            )
        return int(value)

    def _check_values(self, values: Any) -> np.ndarray:
        array = np.asarray(values)
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError("values must be a 1-d array of integer answers")
        if array.size and (array.min() < 0 or array.max() >= self.k):
            raise ValueError(f"answers must lie in [0, {self.k})")
        return array.astype(np.int64)

    @abstractmethod
    def randomize_one(self, value: int, draw: Draw | None = None) -> Any:
        """Randomize one answer following the spec contract word for word.

        Parameters
        ----------
        value : int
            The true answer in ``[0, k)``.
        draw : callable, optional
            Source of uniform 32-bit words (``draw()`` returns an int);
            default: the operating system's CSPRNG (``secrets``).

        Returns
        -------
        int or list of int
            The JSON report.

        Notes
        -----
        Draws only through ``uniform_below``, in the contract's order, so the
        browser fed the same words gives the same report.

        References
        ----------
        .. [1] Deniable LDP primer, section 9; the spec contract.
        """

    @abstractmethod
    def randomize(self, values: Any, rng: np.random.Generator) -> np.ndarray:
        """Randomize many answers at once (same channel as ``randomize_one``).

        Parameters
        ----------
        values : array_like of int
            True answers in ``[0, k)``.
        rng : numpy.random.Generator
            Source of randomness (simulations).

        Returns
        -------
        ndarray
            The array layout that ``aggregate`` accepts.

        Notes
        -----
        ``P(report | x)`` equals the channel of ``randomize_one`` exactly.

        References
        ----------
        .. [1] Deniable LDP primer, sections 2-3.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k}, epsilon={self.epsilon_display})"
