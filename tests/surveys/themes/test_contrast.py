"""The WCAG 2.2 contrast ratio and the accent colour check built on it."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from surveys.themes.contrast import contrast, relative_luminance
from surveys.themes.models import validate_accent


@pytest.mark.parametrize(
    ("colour", "luminance"),
    [("#000000", 0.0), ("#ffffff", 1.0), ("#ff0000", 0.2126), ("#00ff00", 0.7152)],
)
def test_relative_luminance_matches_the_wcag_definition(colour, luminance):
    assert relative_luminance(colour) == pytest.approx(luminance)


@pytest.mark.parametrize(
    ("foreground", "background", "ratio"),
    [
        ("#000000", "#ffffff", 21.0),
        ("#ffffff", "#ffffff", 1.0),
        ("#777777", "#ffffff", 4.48),
        ("#767676", "#ffffff", 4.54),
        ("#0b5cad", "#ffffff", 6.67),
    ],
)
def test_contrast_ratio_of_known_pairs(foreground, background, ratio):
    assert contrast(foreground, background).ratio == pytest.approx(ratio, abs=0.005)
    assert contrast(background, foreground).ratio == pytest.approx(ratio, abs=0.005)


@pytest.mark.parametrize("accent", ["#767676", "#0b5cad", "#000000", "#6B2C91"])
def test_accent_reaching_aa_on_white_is_accepted(accent):
    validate_accent(accent)


@pytest.mark.parametrize(
    ("accent", "ratio"), [("#777777", "4.48"), ("#ffcc00", "1.51"), ("#ffffff", "1.00")]
)
def test_accent_below_aa_is_refused_with_its_measured_ratio(accent, ratio):
    with pytest.raises(ValidationError) as refused:
        validate_accent(accent)
    message = refused.value.messages[0]
    assert f"{ratio}:1" in message
    assert "4.5:1" in message


@pytest.mark.parametrize("accent", ["blue", "#fff", "#12345g", ""])
def test_accent_that_is_not_rrggbb_is_refused(accent):
    with pytest.raises(ValidationError, match="six hexadecimal digits"):
        validate_accent(accent)


@pytest.mark.parametrize(
    ("language", "says"),
    [
        ("fr", "rapport de contraste de 4.48:1"),
        ("es", "relación de contraste de 4.48:1"),
    ],
)
def test_contrast_refusal_is_translated(language, says):
    with translation.override(language), pytest.raises(ValidationError) as refused:
        validate_accent("#777777")
    assert says in refused.value.messages[0]
