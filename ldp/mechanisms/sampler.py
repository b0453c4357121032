"""The sampling interface of every mechanism: one answer, or many at once."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ldp.arrays import AnyArray, IntArray
from ldp.sampling import Draw


class Sampler(ABC):
    """Randomize answers in ``[0, k)`` as the spec's sampler does.

    ``randomize_one`` follows ``ldp/spec/README.md`` word for word (the
    browser's sampler fed the same words gives the same report);
    ``randomize`` draws many reports at once with numpy, through the same
    channel.
    """

    k: int

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

    def _check_values(self, values: Any) -> IntArray:
        array = np.asarray(values)
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
            raise ValueError("values must be a 1-d array of integer answers")
        if array.size and (array.min() < 0 or array.max() >= self.k):
            raise ValueError(f"answers must lie in [0, {self.k})")
        return array.astype(np.int64)

    @abstractmethod
    def randomize_one(self, value: int, draw: Draw | None = None) -> Any:
        """Randomize one answer following ``ldp/spec/README.md`` word for word.

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
        .. [1] docs/maths.md, section 9; ldp/spec/README.md.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> words = iter([5, 4_000_000_000])
        >>> grr.randomize_one(2, draw=lambda: next(words))
        2
        """

    @abstractmethod
    def randomize(self, values: Any, rng: np.random.Generator) -> AnyArray:
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
        .. [1] docs/maths.md, sections 2-3.

        Examples
        --------
        >>> import ldp
        >>> grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
        >>> grr.randomize([0, 1, 2, 2], np.random.default_rng(3))
        array([2, 1, 2, 2])
        """
