"""uniform_below and the word sources."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.sampling import (
    WORD_RANGE,
    CountingDraw,
    generator_words,
    injected_words,
    secure_words,
    uniform_below,
)


@pytest.mark.parametrize(("size", "word", "drawn"), [(10, 12345, 5), (1, 987654321, 0)])
def test_uniform_below_returns_an_accepted_word_mod_size(size, word, drawn):
    assert uniform_below(size, injected_words([word])) == drawn


def test_uniform_below_skips_words_at_or_above_the_limit():
    # 2^32 mod 3 = 1, so the limit is 2^32 - 1 and the word 2^32 - 1 is rejected.
    draw = CountingDraw(injected_words([WORD_RANGE - 1, WORD_RANGE - 2]))
    assert uniform_below(3, draw) == (WORD_RANGE - 2) % 3
    assert draw.count == 2


def test_uniform_below_accepts_the_largest_word_below_the_limit():
    size = 1_000_000_007
    limit = WORD_RANGE - WORD_RANGE % size
    draw = CountingDraw(injected_words([limit, limit - 1]))
    assert uniform_below(size, draw) == (limit - 1) % size
    assert draw.count == 2


def test_uniform_below_accepts_every_word_when_size_divides_2_to_32():
    assert uniform_below(2**32, injected_words([WORD_RANGE - 1])) == WORD_RANGE - 1
    assert uniform_below(4, injected_words([WORD_RANGE - 1])) == 3


@pytest.mark.parametrize("size", [0, -1, 2**32 + 1, True, 2.0])
def test_uniform_below_rejects_size_outside_range(size):
    with pytest.raises(ValueError, match="size"):
        uniform_below(size, injected_words([0]))


@pytest.mark.parametrize("word", [-1, 2**32, True, 1.5])
def test_uniform_below_rejects_word_outside_32_bits(word):
    with pytest.raises(ValueError, match="word"):
        uniform_below(10, injected_words([word]))


def test_accepted_words_give_every_residue_equally_often():
    # Exactly limit/S accepted words map to each residue: check by counting the
    # residues of the words in [limit - 3S, limit) and that limit is a multiple.
    size = 3_000_000_019
    limit = WORD_RANGE - WORD_RANGE % size
    assert limit % size == 0
    assert limit == size  # only one copy of each residue fits below 2^32


def test_injected_words_raise_when_exhausted():
    draw = injected_words([1])
    assert draw() == 1
    with pytest.raises(ValueError, match="exhausted"):
        draw()


def test_generator_words_are_reproducible_32_bit_ints():
    first = generator_words(np.random.default_rng(5), batch=7)
    second = generator_words(np.random.default_rng(5), batch=3)
    words = [first() for _ in range(20)]
    assert words == [second() for _ in range(20)]
    assert all(type(w) is int and 0 <= w < WORD_RANGE for w in words)


def test_secure_words_are_32_bit_ints():
    draw = secure_words()
    words = [draw() for _ in range(100)]
    assert all(type(w) is int and 0 <= w < WORD_RANGE for w in words)
    assert len(set(words)) > 90
