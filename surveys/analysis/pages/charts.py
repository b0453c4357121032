"""Server-rendered SVG charts, built as XML trees so they are always well formed.

No chart library and no script: the SVG is inlined in the page, colours come
from classes in the dashboard stylesheet (the CSP forbids inline styles), and
every chart carries a <title> and <desc> and sits next to a table with the same
numbers.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.formats import get_format
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, pgettext

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH = 640
LABEL_WIDTH = 200
ROW_HEIGHT = 30
TOP = 28
BOTTOM = 34
RIGHT = 24


@dataclass(frozen=True)
class Bar:
    """One bar: a point estimate with its interval (shares in [0, 1] or raw)."""

    label: str
    estimate: float
    low: float
    high: float
    consistent: float | None = None


def _svg(chart_id: str, title: str, desc: str, width: int, height: int) -> ET.Element:
    root = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "viewBox": f"0 0 {width} {height}",
            "width": str(width),
            "height": str(height),
            "role": "img",
            "class": "chart",
            # Named by its title, described by its desc: a screen reader says
            # each once (naming by both made Chromium repeat the desc).
            "aria-labelledby": f"{chart_id}-title",
            "aria-describedby": f"{chart_id}-desc",
            "preserveAspectRatio": "xMinYMin meet",
        },
    )
    ET.SubElement(root, "title", {"id": f"{chart_id}-title"}).text = title
    ET.SubElement(root, "desc", {"id": f"{chart_id}-desc"}).text = desc
    return root


def _render(root: ET.Element) -> SafeString:
    # ElementTree escapes every text and attribute value.
    return mark_safe(ET.tostring(root, encoding="unicode"))  # noqa: S308


def _text(parent, x: float, y: float, text: str, cls: str, anchor: str = "start"):
    node = ET.SubElement(
        parent,
        "text",
        {"x": _f(x), "y": _f(y), "class": cls, "text-anchor": anchor},
    )
    node.text = text
    return node


def _f(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _truncate(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _axis_range(values: Sequence[float], percent: bool) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if percent:
        low = min([0.0, *finite])
        high = max([1.0, *finite])
        return low, high
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    if low == high:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.05
    return low - pad, high + pad


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values whose first and last enclose [low, high]."""
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step + 1e-9) * step
    last = math.ceil(high / step - 1e-9) * step
    ticks, value = [], first
    while value <= last + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def shown_number(text: str) -> str:
    """A number written in the C locale ("0.25") the active language's way
    ("0,25" in Spanish and French): for text a reader sees (tick labels, bar
    titles), never for a coordinate (those stay in the C locale)."""
    return text.replace(".", str(get_format("DECIMAL_SEPARATOR")))


def _shown_percent(digits: str) -> str:
    """A percentage's digits with the active language's percent sign."""
    return pgettext("a percentage", "%(value)s%%") % {"value": shown_number(digits)}


def _format_tick(value: float, percent: bool) -> str:
    if percent:
        return _shown_percent(f"{value * 100:.0f}")
    return shown_number(f"{value:g}")


def _interval_grid(
    root: ET.Element,
    ticks: list[float],
    x_of: Callable[[float], float],
    height: float,
    percent: bool,
) -> None:
    """The vertical grid lines with their tick labels, and the zero line when
    the axis extends below zero."""
    grid = ET.SubElement(root, "g", {"class": "chart-grid", "aria-hidden": "true"})
    for tick in ticks:
        x = x_of(tick)
        ET.SubElement(
            grid,
            "line",
            {"x1": _f(x), "x2": _f(x), "y1": str(TOP - 6), "y2": str(height - BOTTOM)},
        )
        _text(
            grid, x, height - BOTTOM + 18, _format_tick(tick, percent), "tick", "middle"
        )
    if ticks[0] < 0 < ticks[-1]:
        zero = x_of(0.0)
        ET.SubElement(
            grid,
            "line",
            {
                "x1": _f(zero),
                "x2": _f(zero),
                "y1": str(TOP - 6),
                "y2": str(height - BOTTOM),
                "class": "zero",
            },
        )


def _whisker(group: ET.Element, x1: float, x2: float, mid: float) -> None:
    """A 95% interval: a line from ``x1`` to ``x2`` with a cap at each end."""
    whisker = ET.SubElement(group, "g", {"class": "interval"})
    ET.SubElement(
        whisker, "line", {"x1": _f(x1), "x2": _f(x2), "y1": _f(mid), "y2": _f(mid)}
    )
    for x in (x1, x2):
        ET.SubElement(
            whisker,
            "line",
            {"x1": _f(x), "x2": _f(x), "y1": _f(mid - 6), "y2": _f(mid + 6)},
        )


def interval_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    bars: Sequence[Bar],
    percent: bool = True,
) -> SafeString:
    """Horizontal bars with 95% interval whiskers (and the consistent point).

    Estimates can fall outside [0, 1] (unbiased estimates of small shares); the
    axis then extends so nothing is clipped, and 0% stays marked.
    """
    values = [v for b in bars for v in (b.estimate, b.low, b.high)]
    ticks = _ticks(*_axis_range(values, percent))
    low, high = ticks[0], ticks[-1]
    height = TOP + ROW_HEIGHT * max(len(bars), 1) + BOTTOM
    root = _svg(chart_id, title, desc, WIDTH, height)
    plot_left, plot_right = LABEL_WIDTH, WIDTH - RIGHT

    def x_of(value: float) -> float:
        value = min(max(value, low), high)
        return plot_left + (value - low) / (high - low) * (plot_right - plot_left)

    _interval_grid(root, ticks, x_of, height, percent)
    for index, bar in enumerate(bars):
        y = TOP + index * ROW_HEIGHT
        group = ET.SubElement(root, "g", {"class": "chart-row"})
        _text(
            group,
            LABEL_WIDTH - 8,
            y + ROW_HEIGHT / 2 + 5,
            _truncate(bar.label),
            "label",
            "end",
        )
        if not math.isfinite(bar.estimate):
            continue
        start, end = sorted(
            (x_of(max(low, 0.0) if percent else low), x_of(bar.estimate))
        )
        rect = ET.SubElement(
            group,
            "rect",
            {
                "x": _f(start),
                "y": _f(y + 7),
                "width": _f(max(end - start, 1.0)),
                "height": str(ROW_HEIGHT - 14),
                "class": "bar",
            },
        )
        ET.SubElement(rect, "title").text = gettext(
            "%(label)s: %(estimate)s (95%% interval %(low)s to %(high)s)"
        ) % {
            "label": bar.label,
            "estimate": _format_tick(bar.estimate, percent),
            "low": _format_value(bar.low, percent),
            "high": _format_value(bar.high, percent),
        }
        if math.isfinite(bar.low) and math.isfinite(bar.high):
            _whisker(group, x_of(bar.low), x_of(bar.high), y + ROW_HEIGHT / 2)
        if bar.consistent is not None and math.isfinite(bar.consistent):
            ET.SubElement(
                group,
                "circle",
                {
                    "cx": _f(x_of(bar.consistent)),
                    "cy": _f(y + ROW_HEIGHT / 2),
                    "r": "4",
                    "class": "consistent",
                },
            )
    return _render(root)


def _format_value(value: float, percent: bool) -> str:
    if not math.isfinite(value):
        return "—"
    return (
        _shown_percent(f"{value * 100:.1f}")
        if percent
        else shown_number(f"{value:.4g}")
    )


@dataclass(frozen=True)
class Curve:
    """One line of a trade-off chart: (α, β) points and how it is drawn."""

    label: str
    alphas: Sequence[float]
    betas: Sequence[float]
    css_class: str = "curve"


def tradeoff_chart(
    *, chart_id: str, title: str, desc: str, curves: Sequence[Curve], size: int = 300
) -> SafeString:
    """A square plot of trade-off functions β = f(α) on [0, 1]²."""
    margin_left, margin_bottom, margin = 48, 44, 12
    legend_height = 20 * len(curves)
    width = margin_left + size + margin
    height = margin + size + margin_bottom + legend_height
    root = _svg(chart_id, title, desc, width, height)

    def point(alpha: float, beta: float) -> str:
        x = margin_left + alpha * size
        y = margin + (1 - beta) * size
        return f"{_f(x)},{_f(y)}"

    grid = ET.SubElement(root, "g", {"class": "chart-grid", "aria-hidden": "true"})
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = margin_left + tick * size
        y = margin + (1 - tick) * size
        ET.SubElement(
            grid,
            "line",
            {"x1": _f(x), "x2": _f(x), "y1": str(margin), "y2": _f(margin + size)},
        )
        ET.SubElement(
            grid,
            "line",
            {
                "x1": str(margin_left),
                "x2": _f(margin_left + size),
                "y1": _f(y),
                "y2": _f(y),
            },
        )
        _text(grid, x, margin + size + 16, shown_number(f"{tick:g}"), "tick", "middle")
        _text(grid, margin_left - 6, y + 4, shown_number(f"{tick:g}"), "tick", "end")
    _text(
        root,
        margin_left + size / 2,
        margin + size + 34,
        gettext("type I error α (false alarm)"),
        "axis-label",
        "middle",
    )
    y_label = _text(
        root, 0, 0, gettext("type II error β (miss)"), "axis-label", "middle"
    )
    y_label.set("transform", f"translate(12 {_f(margin + size / 2)}) rotate(-90)")
    ET.SubElement(
        root,
        "polyline",
        {"points": f"{point(0, 1)} {point(1, 0)}", "class": "curve-perfect"},
    ).append(_titled(gettext("no information: 1 − α")))
    for index, curve in enumerate(curves):
        points = " ".join(
            point(float(a), float(b))
            for a, b in zip(curve.alphas, curve.betas, strict=True)
        )
        line = ET.SubElement(
            root, "polyline", {"points": points, "class": curve.css_class}
        )
        line.append(_titled(curve.label))
        y = margin + size + margin_bottom + 20 * index + 6
        ET.SubElement(
            root,
            "line",
            {
                "x1": str(margin_left),
                "x2": str(margin_left + 24),
                "y1": _f(y),
                "y2": _f(y),
                "class": curve.css_class,
            },
        )
        _text(root, margin_left + 30, y + 4, curve.label, "legend")
    return _render(root)


def _titled(text: str) -> ET.Element:
    node = ET.Element("title")
    node.text = text
    return node


DELTA_FLOOR_EXPONENT = -12  # the chart's lowest δ: 10^-12


def delta_curve_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    epsilons: Sequence[float],
    deltas: Sequence[float],
    pure_epsilon: float | None = None,
    width: int = 420,
    height: int = 260,
) -> SafeString:
    """δ(ε) against ε, δ on a log scale from 1 down to 10^-12.

    Points with δ below the floor are drawn on it.  ``pure_epsilon`` marks the
    ε from which δ = 0 holds exactly (the sum of the questions' pure ε), as a
    dashed vertical line.
    """
    margin_left, margin_bottom, margin_top, margin_right = 56, 44, 12, 16
    plot_w = width - margin_left - margin_right
    plot_h = height - margin_top - margin_bottom
    root = _svg(chart_id, title, desc, width, height)
    high_e = max([*epsilons, pure_epsilon or 0.0])
    ticks_e = _ticks(0.0, high_e)
    x_max = ticks_e[-1] or 1.0

    def x(eps: float) -> float:
        return margin_left + eps / x_max * plot_w

    def y(delta: float) -> float:
        exponent = math.log10(delta) if delta > 0 else DELTA_FLOOR_EXPONENT
        exponent = min(0.0, max(float(DELTA_FLOOR_EXPONENT), exponent))
        return margin_top + (-exponent / -DELTA_FLOOR_EXPONENT) * plot_h

    grid = ET.SubElement(root, "g", {"class": "chart-grid", "aria-hidden": "true"})
    for tick in ticks_e:
        ET.SubElement(
            grid,
            "line",
            {
                "x1": _f(x(tick)),
                "x2": _f(x(tick)),
                "y1": str(margin_top),
                "y2": _f(margin_top + plot_h),
            },
        )
        _text(
            grid,
            x(tick),
            margin_top + plot_h + 16,
            shown_number(f"{tick:g}"),
            "tick",
            "middle",
        )
    for exponent in range(0, DELTA_FLOOR_EXPONENT - 1, -3):
        level = y(10.0**exponent)
        ET.SubElement(
            grid,
            "line",
            {
                "x1": str(margin_left),
                "x2": _f(margin_left + plot_w),
                "y1": _f(level),
                "y2": _f(level),
            },
        )
        label = "1" if exponent == 0 else f"10^{exponent}"
        _text(grid, margin_left - 6, level + 4, label, "tick", "end")
    _text(
        root,
        margin_left + plot_w / 2,
        margin_top + plot_h + 34,
        "ε",
        "axis-label",
        "middle",
    )
    y_label = _text(root, 0, 0, gettext("δ(ε), log scale"), "axis-label", "middle")
    y_label.set("transform", f"translate(12 {_f(margin_top + plot_h / 2)}) rotate(-90)")
    points = " ".join(
        f"{_f(x(float(e)))},{_f(y(float(d)))}"
        for e, d in zip(epsilons, deltas, strict=True)
    )
    line = ET.SubElement(root, "polyline", {"points": points, "class": "curve"})
    line.append(_titled(gettext("δ(ε) from the survey's μ")))
    if pure_epsilon is not None and math.isfinite(pure_epsilon):
        marker = ET.SubElement(
            root,
            "line",
            {
                "x1": _f(x(pure_epsilon)),
                "x2": _f(x(pure_epsilon)),
                "y1": str(margin_top),
                "y2": _f(margin_top + plot_h),
                "class": "curve-perfect",
            },
        )
        marker.append(_titled(f"from ε = {pure_epsilon:.3g} on, δ = 0 exactly"))
    return _render(root)
