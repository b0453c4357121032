"""ε on researchers' pages: three significant digits, rounded up."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.template import Context, Template

from surveys.analysis.templatetags.privacy_numbers import epsilon_text


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0201, "0.0201"),
        (1.0986122886681098, "1.10"),
        (12.34, "12.4"),
        (0.9999999997465803, "1.00"),
        (9.996, "10.0"),
        (99.95, "100"),
        (1.0, "1.00"),
        (Decimal("0.5"), "0.500"),
        (float("inf"), "∞"),
        (0.0, "0"),
        (None, "—"),
    ],
)
def test_epsilon_is_shown_to_three_significant_digits(value, shown):
    assert epsilon_text(value) == shown


@pytest.mark.parametrize("value", [0.0201, 0.01999, 1.0986, 3.14159, 7.0001, 0.333])
def test_the_shown_epsilon_is_never_below_the_true_one(value):
    assert Decimal(epsilon_text(value)) >= Decimal(str(value))


def test_the_template_filter_formats_like_the_function():
    rendered = Template("{% load privacy_numbers %}{{ e|epsilon }}").render(
        Context({"e": 0.0201})
    )
    assert rendered == "0.0201"
