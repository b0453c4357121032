"""The one sampling primitive and the sources of uniform 32-bit words.

Every mechanism's scalar reference sampler (``randomize_one``) draws only
through :func:`uniform_below`, in the order fixed by ``ldp/spec/README.md``, so
the browser randomizer fed the same words returns the same report.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator

import numpy as np

WORD_RANGE = 2**32
"""Number of distinct 32-bit words."""

Draw = Callable[[], int]
"""A source of uniform 32-bit words: each call returns an int in ``[0, 2^32)``."""


def uniform_below(size: int, draw: Draw) -> int:
    """Draw an integer uniformly from ``[0, size)`` by rejection sampling.

    Parameters
    ----------
    size : int
        Number of outcomes ``S``, with ``1 <= S <= 2^32``.
    draw : callable
        Returns one uniform 32-bit word per call.

    Returns
    -------
    int
        ``u mod S`` for the first word ``u`` below the rejection limit.

    Raises
    ------
    ValueError
        If ``size`` is outside ``[1, 2^32]`` or a word is outside ``[0, 2^32)``.

    Notes
    -----
    With ``limit = 2^32 - (2^32 mod S)`` the accepted words ``u < limit`` are
    ``limit / S`` copies of each residue, so ``P(u mod S = v | u < limit) = 1/S``
    exactly; a plain ``u mod S`` would give some residues one extra preimage.

    References
    ----------
    .. [1] I. Mironov, "On significance of the least significant bits for
       differential privacy", CCS 2012 (why sampling must be exact).
    .. [2] docs/maths.md, section 9 (sampling safely in the browser).

    Examples
    --------
    >>> words = iter([7, 2**32 - 1, 11])
    >>> uniform_below(6, lambda: next(words))
    1
    """
    if isinstance(size, bool) or not isinstance(size, int):
        raise ValueError(f"size must be an integer, got {size!r}")
    if not 1 <= size <= WORD_RANGE:
        raise ValueError(f"size must be in [1, 2^32], got {size}")
    limit = WORD_RANGE - (WORD_RANGE % size)
    while True:
        word = draw()
        if isinstance(word, bool) or not isinstance(word, (int, np.integer)):
            raise ValueError(f"a word must be an integer, got {word!r}")
        word = int(word)
        if not 0 <= word < WORD_RANGE:
            raise ValueError(f"a word must be in [0, 2^32), got {word}")
        if word < limit:
            return word % size


def secure_words() -> Draw:
    """Return a word source backed by the operating system's CSPRNG.

    Returns
    -------
    callable
        Each call returns ``secrets.randbits(32)``.

    Notes
    -----
    This is the default for server-side randomization (for example simulations
    shown to researchers); respondents' answers are randomized in the browser.

    References
    ----------
    .. [1] docs/maths.md, section 9 (randomness only from a secure source).
    """

    def draw() -> int:
        return secrets.randbits(32)

    return draw


def generator_words(rng: np.random.Generator, batch: int = 4096) -> Draw:
    """Adapt a numpy ``Generator`` into a word source (reproducible simulations).

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness; not cryptographically secure.
    batch : int, optional
        Words fetched per call to the generator.

    Returns
    -------
    callable
        Each call returns one uniform 32-bit word as a Python int.

    Notes
    -----
    Words are ``rng.integers(0, 2^32, dtype=uint64)`` served in order.

    References
    ----------
    .. [1] docs/maths.md, section 9.
    """
    buffer: list[int] = []

    def draw() -> int:
        if not buffer:
            words = rng.integers(0, WORD_RANGE, size=batch, dtype=np.uint64)
            buffer.extend(int(w) for w in words[::-1])
        return buffer.pop()

    return draw


def injected_words(words: Iterable[int]) -> Draw:
    """Serve a fixed sequence of words, for tests and shared vectors.

    Parameters
    ----------
    words : iterable of int
        The words to return, in order.

    Returns
    -------
    callable
        Each call returns the next word; raises ``ValueError`` when exhausted.

    Notes
    -----
    Feeding the same words to the Python and JavaScript samplers must give the
    same report, word for word.

    References
    ----------
    .. [1] docs/maths.md, section 9; ldp/spec/README.md (shared vectors).
    """
    iterator: Iterator[int] = iter(words)

    def draw() -> int:
        try:
            return next(iterator)
        except StopIteration:
            raise ValueError("the injected word sequence is exhausted") from None

    return draw


class CountingDraw:
    """Wrap a word source and count the words it serves (constant-work tests)."""

    def __init__(self, draw: Draw) -> None:
        self._draw = draw
        self.count = 0

    def __call__(self) -> int:
        self.count += 1
        return self._draw()
