"""The conditions and ranges of questionnaire files, where they map cleanly.

XLSForm writes conditions in XPath (``relevant``: ``${q} = 'a'``,
``selected(${q}, 'b')``) and ranges as constraints (``. >= 0 and . <= 120``);
LimeSurvey writes them in its Expression Manager language (``Q1 == "A1"``,
``Q1.NAOK == "A1"``).  Only a disjunction of equalities on one question is a
condition Deniable's display logic can hold (shown when that answer is one
of these); anything else is left to the reader to list.
"""

from __future__ import annotations

import re
from decimal import Decimal

from surveys.authoring.imports.parsed import Condition
from surveys.authoring.models import Question


def _closing(text: str) -> int:
    """The index of the parenthesis that closes the one ``text`` starts with."""
    depth = 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


def _unwrap(text: str) -> str:
    """``text`` without parentheses around the whole of it."""
    while text.startswith("(") and _closing(text) == len(text) - 1:
        text = text[1:-1].strip()
    return text


_TERM = re.compile(
    r"""^\s*(?:
        \$\{(?P<a>[\w.-]+)\}\s*=\s*(?P<qa>['"]?)(?P<va>[^'"\s()]+)(?P=qa)
      | selected\(\s*\$\{(?P<b>[\w.-]+)\}\s*,\s*(?P<qb>['"])(?P<vb>[^'"]+)(?P=qb)\s*\)
    )\s*$""",
    re.VERBOSE,
)


def parse_relevant(expression: str) -> Condition | None:
    """``${q} = 'a' or selected(${q}, 'b')`` on one question, else None."""
    text = expression.strip()
    text = _unwrap(text)
    driver, values = None, []
    for term in re.split(r"\s+or\s+", text):
        found = _TERM.match(_unwrap(term.strip()))
        if not found:
            return None
        name = found.group("a") or found.group("b")
        if driver not in (None, name):
            return None
        driver = name
        values.append(found.group("va") or found.group("vb"))
    return Condition(driver, tuple(values)) if driver else None


_BOUND = re.compile(r"^\(?\s*\.\s*(>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)\s*\)?$")


def parse_range(constraint: str, integer: bool) -> tuple[Decimal, Decimal] | None:
    """The range of ``. >= 0 and . <= 120`` (strict bounds on integers)."""
    low = high = None
    for part in re.split(r"\s+and\s+", constraint.strip()):
        found = _BOUND.match(part.strip())
        if not found:
            return None
        sign, number = found.group(1), Decimal(found.group(2))
        if sign in (">", "<") and not integer:
            return None
        if sign == ">":
            low = number + 1
        elif sign == ">=":
            low = number
        elif sign == "<":
            high = number - 1
        else:
            high = number
    return (low, high) if low is not None and high is not None else None


def decimal_step(low: Decimal, high: Decimal) -> Decimal | None:
    """The finest step among 0.01, 0.1, 1, 10 … giving a whole number of at
    most 201 values from ``low`` to ``high`` (the builder's limit)."""
    for exponent in range(-2, 7):
        step = Decimal(1).scaleb(exponent)
        steps = (high - low) / step
        if steps == steps.to_integral_value() and steps + 1 <= 201:
            return step
    return None


_LS_TERM = re.compile(
    r"""^\(*\s*(?P<name>[A-Za-z][A-Za-z0-9_]*)(?:\.NAOK|\.code)?\s*(?:==|eq)\s*
    (?P<q>["'])(?P<value>[^"']*)(?P=q)\s*\)*$""",
    re.VERBOSE,
)


def parse_relevance(equation: str, kinds: dict[str, str]) -> Condition | None:
    """``Q1 == "A1" or Q1.NAOK == "A2"`` (or ``Q2_SQ001 == "Y"`` for a
    multiple-choice ``Q2``) on one question, else None."""
    text = equation.strip()
    text = _unwrap(text)
    driver, values = None, []
    for term in re.split(r"\s+(?:or)\s+|\s*\|\|\s*", text):
        found = _LS_TERM.match(term.strip())
        if not found:
            return None
        name, value = found.group("name"), found.group("value")
        if name not in kinds and "_" in name:
            head, _, sub = name.rpartition("_")
            if kinds.get(head) != Question.Kind.MULTI_SELECT or value != "Y":
                return None
            name, value = head, sub
        if driver not in (None, name) or name not in kinds:
            return None
        driver = name
        values.append(value)
    return Condition(driver, tuple(values)) if driver else None
