"""Server-rendered SVG: well-formed XML, accessible, escaped, nothing clipped."""

# Parsing the SVG this project generated itself, not untrusted input.
# ruff: noqa: S314

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ldp.accounting import epsilon_dp_tradeoff, tradeoff_curve
from surveys.analysis.pages import charts

NS = "{http://www.w3.org/2000/svg}"


def _bars():
    return [
        charts.Bar("Yes", 0.3, 0.25, 0.35, 0.3),
        charts.Bar("No <script>alert(1)</script> & more", 0.7, 0.65, 0.75, 0.7),
    ]


def test_interval_chart_is_well_formed_svg_with_title_and_desc():
    svg = charts.interval_chart(chart_id="c1", title="T & t", desc="D", bars=_bars())
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "c1-title"
    assert root.get("aria-describedby") == "c1-desc"
    assert root.find(f"{NS}title").text == "T & t"
    assert root.find(f"{NS}desc").text == "D"


def test_interval_chart_escapes_labels():
    svg = str(charts.interval_chart(chart_id="c", title="t", desc="d", bars=_bars()))
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg


def test_interval_chart_draws_one_bar_and_whisker_per_answer():
    root = ET.fromstring(
        charts.interval_chart(chart_id="c", title="t", desc="d", bars=_bars())
    )
    assert len(root.findall(f".//{NS}rect[@class='bar']")) == 2
    assert len(root.findall(f".//{NS}g[@class='interval']")) == 2
    assert len(root.findall(f".//{NS}circle[@class='consistent']")) == 2


def test_axis_extends_below_zero_for_negative_estimates():
    bars = [charts.Bar("A", -0.1, -0.3, 0.1), charts.Bar("B", 1.1, 0.9, 1.3)]
    root = ET.fromstring(
        charts.interval_chart(chart_id="c", title="t", desc="d", bars=bars)
    )
    ticks = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "tick"]
    values = [float(t.rstrip("%")) for t in ticks]
    assert values[0] <= -30 and values[-1] >= 130  # the whole interval is shown
    assert root.find(f".//{NS}line[@class='zero']") is not None


def test_chart_without_bars_is_still_valid():
    ET.fromstring(charts.interval_chart(chart_id="c", title="t", desc="d", bars=[]))


def test_tradeoff_chart_draws_every_curve_inside_the_unit_square():
    alphas = np.linspace(0, 1, 51)
    q = np.array([[0.75, 0.25], [0.25, 0.75]])
    curves = [
        charts.Curve("exact", alphas, tradeoff_curve(q, alphas)),
        charts.Curve(
            "bound", alphas, epsilon_dp_tradeoff(np.log(3), alphas), "curve-reference"
        ),
    ]
    root = ET.fromstring(
        charts.tradeoff_chart(chart_id="p", title="t", desc="d", curves=curves)
    )
    lines = root.findall(f"{NS}polyline")
    assert len(lines) == 3  # the no-information diagonal and both curves
    for line in lines:
        for point in line.get("points").split():
            x, y = map(float, point.split(","))
            assert 48 <= x <= 48 + 300 and 12 <= y <= 12 + 300
