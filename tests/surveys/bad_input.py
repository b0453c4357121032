"""Hostile values for the bad-input sweep: numbers that break float arithmetic,
strings that are not numbers, repeated keys (lists), and random text."""

from __future__ import annotations

from hypothesis import strategies as st

# Values that once reached float arithmetic (1e309 is inf as a float), overflow
# 32- and 64-bit columns, or look like numbers to str.isdigit() but not to int().
NASTY_NUMBERS = (
    "1e309",
    "-1e309",
    "9" * 20,
    "-" + "9" * 20,
    "1e99999999999999999999",
    "1e-99999999",
    "1e-400",
    "1.00000000000000000000000000001",
    "NaN",
    "-nan",
    "sNaN",
    "Infinity",
    "-inf",
    "9" * 5000,
    str(2**31),
    str(2**63),
    str(-(2**63) - 1),
    "0x10",
    "1_000",
    "²",
    "١٢",
    "1e",
    ".",
    "-",
    "",
    " ",
    "\x00",
    "1\x00",
)

# The few that broke something before: every field of every endpoint gets each.
CORE_NASTY = (
    "1e309",
    "-1e309",
    "9" * 20,
    "1e99999999999999999999",
    "1e-99999999",
    "NaN",
    "Infinity",
    "9" * 5000,
    "²",
    "١٢",
    str(2**63),
    "\x00",
)

numbers_as_text = st.one_of(
    st.sampled_from(NASTY_NUMBERS),
    st.integers().map(str),
    st.floats().map(str),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.text(alphabet="0123456789.-+eE ", max_size=30),
)
any_text = st.one_of(st.text(max_size=40), st.text(max_size=600))
one_value = st.one_of(numbers_as_text, any_text)
# A repeated key arrives as several values: "wrong type" for a form field.
field_value = st.one_of(one_value, st.lists(one_value, min_size=2, max_size=3))


def extras() -> st.SearchStrategy[dict]:
    """Fields nobody asked for."""
    return st.dictionaries(st.text(min_size=1, max_size=12), field_value, max_size=3)


def body(fields: tuple[str, ...]) -> st.SearchStrategy[dict]:
    """Some of ``fields`` (any may be missing) with hostile values, plus extras."""
    known = st.fixed_dictionaries({}, optional=dict.fromkeys(fields, field_value))
    return st.builds(lambda a, b: {**b, **a}, known, extras())


def one_replaced(
    bases: list[dict], values: dict[str, st.SearchStrategy]
) -> st.SearchStrategy[dict]:
    """A valid base with one of its own fields (from ``values``) replaced, plus
    extras.

    Only fields the base fills are spoiled: a field that does not apply to it
    (a number question's bounds on a multiple-choice base) is ignored by the
    form, so spoiling it would leave a valid request."""

    def spoil(base: dict) -> st.SearchStrategy[dict]:
        names = sorted(name for name in values if name in base) or sorted(values)
        return st.sampled_from(names).flatmap(
            lambda name: st.builds(
                lambda value, more: {**more, **base, name: value},
                values[name],
                extras(),
            )
        )

    return st.sampled_from(bases).flatmap(spoil)


def with_bad(
    fields: tuple[str, ...],
    bad: dict[str, st.SearchStrategy],
    bases: list[dict] | None = None,
) -> st.SearchStrategy[dict]:
    """A body in which at least one field (from ``bad``) holds a refused value:
    either a valid base with that one field spoiled, or random other fields."""
    spoiled_random = st.sampled_from(sorted(bad)).flatmap(
        lambda name: st.builds(
            lambda rest, value: {**rest, name: value}, body(fields), bad[name]
        )
    )
    if not bases:
        return spoiled_random
    return st.one_of(one_replaced(bases, bad), spoiled_random)


def query(fields: tuple[str, ...], bases: list[dict] | None = None):
    """Query parameters: random ones, or a valid base with one made hostile."""
    if not bases:
        return body(fields)
    hostile = dict.fromkeys(fields, field_value)
    return st.one_of(one_replaced(bases, hostile), body(fields))
