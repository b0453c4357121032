"""No code outside a mechanism's own module names it.

A mechanism's name may appear in code only in ``ldp/mechanisms`` (its module
and the registry), the test vectors (``ldp/spec/vectors.py`` and their cases,
``ldp/spec/vector_cases.py``) and the browser modules (``ldp/js``); everything
else asks the registry.  Docstrings (usage examples) and migrations (history)
are not code that decides anything.  A name that is also a question kind
(``"ordinal"``: a scale question) is the kind's, not the mechanism's, and is
left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ldp.mechanisms import registry
from ldp.mechanisms.about import ANSWER_KINDS

ROOT = Path(__file__).resolve().parents[1]
NAMES = set(registry.names()) - set(ANSWER_KINDS)
HOMES = (
    "ldp/mechanisms/",
    "ldp/spec/vectors.py",
    "ldp/spec/vector_cases.py",
    "ldp/js/",
)


def _python_files() -> list[Path]:
    files = [*ROOT.glob("surveys/**/*.py"), *ROOT.glob("ldp/**/*.py")]
    return sorted(
        path
        for path in files
        if not path.relative_to(ROOT).as_posix().startswith(HOMES)
        and "migrations" not in path.parts
    )


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            found.add(id(body[0].value))
    return found


def _named(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    return sorted(
        {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and node.value in NAMES
            and id(node) not in docstrings
        }
    )


@pytest.mark.parametrize(
    "path", _python_files(), ids=lambda p: p.relative_to(ROOT).as_posix()
)
def test_no_module_outside_the_mechanisms_names_a_mechanism(path):
    assert _named(path) == []


def test_no_template_or_page_script_names_a_mechanism():
    alternatives = "|".join(sorted(NAMES))
    pattern = re.compile(rf"""["'\s]({alternatives})["'\s]""")
    files = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("static/**/*.js")]
    named = {
        path.relative_to(ROOT).as_posix(): sorted(
            set(pattern.findall(path.read_text()))
        )
        for path in files
    }
    assert {path: found for path, found in named.items() if found} == {}
