"""Shared test vectors: the Python reference and the browser must agree.

Each vector is a compiled spec, an answer, a list of injected 32-bit words and
the report the Python reference (``ldp.build(spec).randomize_one``) gives for
them, with the number of words it consumed.  ``node --test tests/js/`` feeds
the same words to ``ldp/js/randomizer.js`` and expects the same report and
count; ``tests/ldp/test_vectors.py`` re-checks them against Python.

Usage::

    python -m ldp.spec.vectors --write   # regenerate vectors.json
    python -m ldp.spec.vectors --check   # exit 1 if vectors.json drifted

The words are chosen per draw of the contract's sampling order (see
``README.md``): every draw at ``v = 0``, at ``v = S - 1``, at the weight
boundaries (``P - 1``, ``P``, ...), reached both by a small word and by a word
near the rejection limit, every draw preceded by rejected words (``u >=
limit``), and pseudo-random words derived from SHA-256 (stable across
platforms and library versions).  The expected reports come from Python only.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import ldp
from ldp.exact import display_epsilon
from ldp.spec.ceilings import EPSILON_CEILING_QUESTION, EPSILON_CEILING_SURVEY
from ldp.spec.ratio import likelihood_ratio, ratio_display, ratio_epsilon
from ldp.spec.vector_cases import CASES, device_check_cases, survey_check_cases

WORD_RANGE = 2**32
PATH = Path(__file__).with_name("vectors.json")
FORMAT = 2


def figures(spec: dict[str, Any]) -> dict[str, str]:
    """The exact likelihood ratio and ε display of a spec's weights."""
    ratio = likelihood_ratio(spec)
    return {
        "likelihood_ratio": f"{ratio.numerator}/{ratio.denominator}",
        "epsilon_display": ratio_display(ratio),
    }


def draw_bounds(spec: dict[str, Any]) -> list[tuple[int, list[int]]]:
    """The contract's ``uniform_below`` bounds in order, with interesting ``v``.

    Used only to pick words that exercise every branch; the expected reports
    never depend on it.
    """
    w = spec["weights"]
    k = spec.get("k", 2)
    mechanism = spec["mechanism"]
    if mechanism == "forced_response":
        t, a, b = w["truthful"], w["forced_yes"], w["forced_no"]
        return [(t + a + b, [t - 1, t, t + a - 1, t + a])]
    if mechanism in ("warner", "hadamard"):
        keep, flip = w["keep"], w["flip"]
        bounds = [(w["K"], [1, w["K"] // 2])] if mechanism == "hadamard" else []
        return [*bounds, (keep + flip, [keep - 1, keep])]
    if mechanism == "grr":
        p, q = w["keep"], w["other"]
        return [(p + (k - 1) * q, [p - 1, p, p + q - 1, p + q, p + (k - 2) * q])]
    if mechanism in ("sue", "oue"):
        a1, a0 = w["one_if_one"], w["one_if_zero"]
        return [(w["total"], [a0 - 1, a0, a1 - 1, a1])] * k
    if mechanism == "olh":
        p, q, g, prime = w["keep"], w["other"], w["g"], w["prime"]
        seeds = (prime, [1, prime // 2, prime - 2])
        return [seeds, seeds, (p + (g - 1) * q, [p - 1, p, p + q, p + (g - 2) * q])]
    if mechanism == "ordinal":
        rows = w["rows"]
        return [(w["total"], _edges([rows[0], rows[len(rows) // 2], rows[-1]]))]
    if mechanism in ("geometric", "gaussian"):
        # Kernel edges at both ends and around the centre (offset 0).
        kernel, m = w["kernel"], (len(w["kernel"]) + 1) // 2
        edges = _edges([kernel])
        picks = {0, 1, m - 3, m - 2, m - 1, m, 2 * m - 4, 2 * m - 3}
        return [(w["total"], [e for i, e in enumerate(edges) if i // 2 in picks])]
    if mechanism == "duchi":
        base, slope, total = w["base"], w["slope"], w["total"]
        values = [base - 1, base, base + slope - 1, base + slope, total - base - 1]
        return [(total, [*values, total - base])]
    if mechanism == "piecewise":
        high, low, band = w["high"], w["low"], w["width"] * w["high"]
        total = band + (w["outputs"] - w["width"]) * low
        values = [high - 1, high, band - 1, band, band + low - 1, band + low]
        return [(total, [*values, total - low, total - 1])]
    if mechanism == "multi_rr":
        a1, a0 = w["one_if_one"], w["one_if_zero"]
        return [(w["total"], [a0 - 1, a0, a1 - 1, a1])] * k
    if mechanism == "padding_sampling":
        p, q, items = w["keep"], w["other"], k + spec["ell"]
        slots = (spec["ell"], [0, spec["ell"] - 1])
        return [slots, (p + (items - 1) * q, [p - 1, p, p + q, p + (items - 2) * q])]
    raise ValueError(f"no vectors for mechanism {mechanism!r}")


def _edges(rows: list[list[int]]) -> list[int]:
    """``c - 1`` and ``c`` for every running sum ``c`` of each row but the last."""
    edges: list[int] = []
    for row in rows:
        running = 0
        for weight in row[:-1]:
            running += weight
            edges += [running - 1, running]
    return edges


def _limit(bound: int) -> int:
    return WORD_RANGE - WORD_RANGE % bound


def _high_word(bound: int, v: int) -> int:
    """The largest accepted word that reduces to ``v`` (tests the modulo)."""
    return _limit(bound) - bound + v


def _rejected(bound: int) -> list[int]:
    """Words the rejection routine must skip (none if ``bound`` divides 2^32)."""
    limit = _limit(bound)
    return [] if limit == WORD_RANGE else [WORD_RANGE - 1, limit]


def _hash_words(label: str, count: int) -> list[int]:
    words = []
    for i in range(count):
        digest = hashlib.sha256(f"deniable vectors/{label}/{i}".encode()).digest()
        words.append(int.from_bytes(digest[:4], "little"))
    return words


def word_scenarios(name: str, spec: dict[str, Any], answer: Any) -> list[list[int]]:
    """Injected word lists for one spec and answer."""
    bounds = draw_bounds(spec)
    scenarios: list[list[int]] = [
        [0] * len(bounds),
        [_limit(bound) - 1 for bound, _ in bounds],
        [word for bound, _ in bounds for word in [*_rejected(bound), bound // 2]],
    ]
    # Each interesting v of each draw, other draws at a fixed mid value; the
    # small word and the high word for v must give the same report.
    for position, (bound, values) in enumerate(bounds):
        for v in sorted({v for v in values if 0 <= v < bound}):
            for word in (v, _high_word(bound, v)):
                words = [b // 3 for b, _ in bounds]
                words[position] = word
                scenarios.append(words)
    # Pseudo-random words, with spare words left over at the end.
    for i in range(3):
        scenarios.append(_hash_words(f"{name}/{answer}/{i}", 2 * len(bounds) + 2))
    return scenarios


class CountingWords:
    """Serve injected words in order and count them."""

    def __init__(self, words: list[int]) -> None:
        self.words = words
        self.used = 0

    def __call__(self) -> int:
        if self.used >= len(self.words):
            raise ValueError(f"injected words exhausted after {self.used}")
        word = self.words[self.used]
        self.used += 1
        return word


def reference_report(
    spec: dict[str, Any], answer: Any, words: list[int]
) -> tuple[Any, int]:
    """The Python reference's report for ``words``, and the words it used."""
    draw = CountingWords(words)
    report = _built(json.dumps(spec, sort_keys=True)).randomize_one(answer, draw)
    return report, draw.used


@functools.cache
def _built(spec_json: str) -> ldp.Mechanism:
    """``ldp.build`` once per compiled spec (calibrated kernels take a while)."""
    return ldp.build(json.loads(spec_json))


def build_document(
    reference: Callable[[dict[str, Any], Any, list[int]], tuple[Any, int]] = (
        reference_report
    ),
) -> dict[str, Any]:
    """Build the whole vectors document from the Python reference."""
    groups: list[dict[str, Any]] = []
    for name, requested, answers in CASES:
        mechanism = ldp.build({"version": 1, **requested})
        spec = mechanism.spec
        vectors = []
        for answer in answers:
            for words in word_scenarios(name, spec, answer):
                report, used = reference(spec, answer, words)
                vectors.append(
                    {"answer": answer, "words": words, "report": report, "used": used}
                )
        above = mechanism.epsilon_exact > EPSILON_CEILING_QUESTION
        if figures(spec)["epsilon_display"] != mechanism.epsilon_display:
            raise AssertionError(f"{name}: ln R disagrees with the delivered ε")
        groups.append(
            {
                "name": name,
                "spec": spec,
                "epsilon": mechanism.epsilon,
                "check": {
                    **figures(spec),
                    "verdict": "above_question_ceiling" if above else "ok",
                },
                "vectors": vectors,
            }
        )
    specs = {group["name"]: group["spec"] for group in groups}
    surveys = []
    for name, members, verdict in survey_check_cases():
        total = sum(
            (ratio_epsilon(likelihood_ratio(specs[m])) for m in members), Decimal(0)
        )
        if (verdict == "ok") == (total > EPSILON_CEILING_SURVEY):
            raise AssertionError(
                f"survey check {name!r}: verdict {verdict} vs ε {total}"
            )
        surveys.append(
            {
                "name": name,
                "questions": members,
                "epsilon_display": display_epsilon(total),
                "verdict": verdict,
            }
        )
    return {
        "format": FORMAT,
        "about": (
            "Injected 32-bit words and the report the Python reference gives "
            "for them, and the device's exact figures and verdicts; regenerate "
            "with: python -m ldp.spec.vectors --write"
        ),
        "ceilings": {
            "question": EPSILON_CEILING_QUESTION,
            "survey": EPSILON_CEILING_SURVEY,
        },
        "groups": groups,
        "device_checks": [
            {"name": name, "spec": spec, "verdict": verdict, **figures_or_none(spec)}
            for name, spec, verdict in device_check_cases()
        ],
        "survey_checks": surveys,
    }


def figures_or_none(spec: dict[str, Any]) -> dict[str, str]:
    """``figures`` for specs a ratio exists for (not an unknown mechanism)."""
    try:
        return figures(spec)
    except (ValueError, KeyError):
        return {}


def render(document: dict[str, Any]) -> str:
    """Serialize deterministically: one vector per line, keys sorted."""
    lines = ["{"]
    lines.append(f' "format": {json.dumps(document["format"])},')
    lines.append(f' "about": {json.dumps(document["about"])},')
    lines.append(f' "ceilings": {json.dumps(document["ceilings"], sort_keys=True)},')
    for key in ("device_checks", "survey_checks"):
        lines.append(f' "{key}": [')
        items = document[key]
        for j, item in enumerate(items):
            comma = "," if j < len(items) - 1 else ""
            lines.append("  " + json.dumps(item, sort_keys=True) + comma)
        lines.append(" ],")
    lines.append(' "groups": [')
    for i, group in enumerate(document["groups"]):
        head = {key: group[key] for key in ("name", "spec", "epsilon", "check")}
        lines.append("  " + json.dumps(head, sort_keys=True)[:-1] + ', "vectors": [')
        vectors = group["vectors"]
        for j, vector in enumerate(vectors):
            comma = "," if j < len(vectors) - 1 else ""
            lines.append("   " + json.dumps(vector, sort_keys=True) + comma)
        lines.append("  ]}" + ("," if i < len(document["groups"]) - 1 else ""))
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ldp.spec.vectors", description=__doc__.splitlines()[0]
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="regenerate the file")
    action.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs"
    )
    args = parser.parse_args(argv)
    text = render(build_document())
    if args.write:
        PATH.write_text(text, encoding="utf-8")
        count = sum(len(g["vectors"]) for g in json.loads(text)["groups"])
        print(f"wrote {count} vectors to {PATH.name}")
        return 0
    current = PATH.read_text(encoding="utf-8") if PATH.exists() else ""
    if current == text:
        print(f"{PATH.name} is up to date")
        return 0
    print(
        f"{PATH.name} differs from what the Python reference produces now; "
        "if the change is intended, run: python -m ldp.spec.vectors --write",
        file=sys.stderr,
    )
    old = {g["name"]: g for g in json.loads(current)["groups"]} if current else {}
    for group in json.loads(text)["groups"]:
        if old.get(group["name"]) != group:
            print(f"  drifted: {group['name']}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
