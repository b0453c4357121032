"""Bins of scale and number answers: defaults, researchers' cut points, labels.

The maths (constrained maximum likelihood; Wald intervals for the bins,
Woodruff's for the median) is ``ldp.binned_distribution``; this module
chooses the bins and words them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import re
from typing import Any

import numpy as np
from django.core.cache import cache

import ldp
from ldp.estimators.binned import bin_index
from ldp.estimators.level_channels import level_channel
from surveys.analysis.results.objects import Distribution, Interval

logger = logging.getLogger(__name__)

DEFAULT_BINS = 5
LEVEL = 0.95
# Levels × report values above which the fit (EM on the whole channel) and
# the covariance of the debiased shares would hold a worker for seconds: such
# questions get no binned distribution.
MAX_CHANNEL_CELLS = 200_000
# How long a question's distribution is kept for the next snapshot (seconds).
# Raise the version when what :func:`distribution` computes changes.
CACHE_SECONDS = 7 * 24 * 3600
CACHE_VERSION = 2


def default_cuts(values: Any) -> list[float]:
    """Interior cut points of five equal-width bins, rounded to round numbers.

    Each cut ``low + j (high − low)/5`` is rounded to the power of ten below
    the bin width (8 → 1, 16.2 → 10); cuts that coincide are dropped, and a
    bin that would hold no possible answer falls back to the unrounded cuts.
    """
    values = np.asarray(values, dtype=float)
    low, high = float(values[0]), float(values[-1])
    if values.size <= DEFAULT_BINS:
        return [float(v) for v in values[1:]]
    width = (high - low) / DEFAULT_BINS
    unit = 10.0 ** math.floor(math.log10(width))
    exact = [low + j * width for j in range(1, DEFAULT_BINS)]
    for candidate in ([round(c / unit) * unit for c in exact], exact):
        cuts = sorted({float(f"{c:.12g}") for c in candidate if low < c < high})
        try:
            bin_index(values, cuts)
        except ValueError:
            continue
        return cuts
    return []


def parse_cuts(text: str, values: Any) -> list[float]:
    """Cut points typed by a researcher ("0, 10, 20, 40"), checked.

    Raises
    ------
    ValueError
        With a message for the researcher: not numbers, not increasing,
        outside the answer range, more than 20 bins, or an empty bin.
    """
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    if not parts:
        raise ValueError("Enter at least one cut point, for example 0, 10, 20, 40.")
    try:
        cuts = [float(p) for p in parts]
    except ValueError:
        raise ValueError(
            "Cut points must be numbers separated by commas, for example 0, 10, 20."
        ) from None
    bin_index(values, cuts)  # raises with the reason
    return cuts


def _number(value: float) -> str:
    return f"{value:g}"


def bin_labels(
    bins: tuple[tuple[float, float], ...], labels: list[str], numeric: bool
) -> list[str]:
    """Numbers: "first–last possible answer" of each bin; scales: the labels."""
    if not numeric:
        return [
            labels[int(a)] if a == b else f"{labels[int(a)]} – {labels[int(b)]}"
            for a, b in bins
        ]
    return [_number(a) if a == b else f"{_number(a)}–{_number(b)}" for a, b in bins]


def bin_cuts(
    mechanism: ldp.Mechanism, cuts: list[float] | None, *, numeric: bool
) -> tuple[Any, list[float] | None, bool] | None:
    """(the level values, the cut points the binned distribution uses — None
    for a bin per level —, whether they are the researcher's ``cuts``); None
    when the question gets no binned distribution (no channel to fit, a
    channel too large, or no valid bins).

    Numbers take ``cuts`` (or :func:`default_cuts`, also when ``cuts`` were
    stored for an earlier range of the question); scales one bin per point.
    """
    channel = level_channel(mechanism)
    if channel is None:
        return None
    values = mechanism.input_values()
    if values is None:
        values = np.arange(mechanism.k, dtype=float)
    if numeric and channel_cells(mechanism) > MAX_CHANNEL_CELLS:
        return None
    default = default_cuts(values) if numeric else None
    for candidate, researchers in ((cuts or default, bool(cuts)), (default, False)):
        try:
            bin_index(values, candidate)
        except ValueError:
            continue
        return values, candidate, researchers
    return None


def distribution(
    mechanism: ldp.Mechanism,
    stat: ldp.SupportCounts,
    *,
    labels: list[str],
    numeric: bool,
    cuts: list[float] | None,
) -> Distribution | None:
    """The binned distribution of one question in the bins of :func:`bin_cuts`
    (None: none).

    The fit and its intervals are computed once per question and tally: a
    snapshot whose question has the same reports' counts, cuts and labels as
    an earlier one reads the earlier result from the cache (keyed by all of
    them, so a change to any computes it again).  A cache that cannot be
    reached only costs the computation."""
    key = _cache_key(mechanism, stat, labels, numeric, cuts)
    try:
        found = cache.get(key)
    except Exception:  # any backend's outage; the result is recomputed
        logger.warning("cache unavailable: the binned distribution is recomputed")
        found = None
    if isinstance(found, Distribution):
        return found
    computed = _computed(mechanism, stat, labels=labels, numeric=numeric, cuts=cuts)
    if computed is not None:
        with contextlib.suppress(Exception):  # kept for next time if it can be
            cache.set(key, computed, CACHE_SECONDS)
    return computed


def _cache_key(
    mechanism: ldp.Mechanism,
    stat: ldp.SupportCounts,
    labels: list[str],
    numeric: bool,
    cuts: list[float] | None,
) -> str:
    """Everything :func:`distribution` reads, hashed (SHA-256)."""
    inputs = {
        "spec": mechanism.spec,
        "n": int(stat.n),
        "counts": np.asarray(stat.counts).reshape(-1).tolist(),
        "labels": labels,
        "numeric": numeric,
        "cuts": cuts,
    }
    text = json.dumps(inputs, sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"analysis:bins:{CACHE_VERSION}:{digest}"


def _computed(
    mechanism: ldp.Mechanism,
    stat: ldp.SupportCounts,
    *,
    labels: list[str],
    numeric: bool,
    cuts: list[float] | None,
) -> Distribution | None:
    """:func:`distribution` computed from the counts (the fit and intervals)."""
    chosen = bin_cuts(mechanism, cuts, numeric=numeric)
    if chosen is None:
        return None
    _, used, researchers = chosen
    try:
        fit = ldp.mechanism_distribution(mechanism, stat, used)
    except ValueError:
        return None
    if fit is None:
        return None
    interval = fit.confidence_interval(LEVEL)
    median = fit.median_interval(LEVEL)
    return Distribution(
        labels=bin_labels(fit.bins, labels, numeric),
        shares=[float(s) for s in fit.shares],
        intervals=[
            Interval(float(lo), float(hi))
            for lo, hi in zip(interval.low, interval.high, strict=True)
        ],
        median=fit.median,
        median_interval=Interval(float(median.low), float(median.high)),
        method=fit.method,
        cuts=list(used or []) if numeric and researchers else [],
    )


def channel_cells(mechanism: ldp.Mechanism) -> int:
    """Levels × report values of the mechanism's channel (its EM cost per report)."""
    channel = level_channel(mechanism)
    if channel is None:
        return 0
    matrix = getattr(channel, "channel", None)
    return int(matrix.size) if matrix is not None else mechanism.k
