"""No module over 500 lines and no function over 80 lines of code.

The sources of ``surveys/``, ``ldp/`` and ``benchmarks/`` are parsed with
``ast`` (migrations, which Django writes, are left out).  A module's size is
its line count; a function's is its lines of code: the lines from its first
statement after the docstring to its end that are neither blank nor only a
comment.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULE_LINES_MAX = 500
FUNCTION_CODE_LINES_MAX = 80

# Offenders not split yet. This list must only shrink: split a module or a
# function, then delete its line here (the test fails while a listed one
# already fits, so the list never hides a fixed one). Never add to it.
MODULES_NOT_YET_SPLIT: set[str] = set()
FUNCTIONS_NOT_YET_SPLIT: set[str] = set()


def _sources() -> list[Path]:
    return sorted(
        path
        for package in ("surveys", "ldp", "benchmarks")
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    )


def _code_lines(
    function: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> int:
    body = function.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        if len(body) == 1:
            return 0
        first = body[1]
    span = lines[first.lineno - 1 : function.end_lineno]
    return sum(1 for line in span if line.strip() and not line.strip().startswith("#"))


def long_modules() -> dict[str, int]:
    """Each module over ``MODULE_LINES_MAX`` lines, by path, with its length."""
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for path in _sources()
    }
    return {name: size for name, size in sizes.items() if size > MODULE_LINES_MAX}


def long_functions() -> dict[str, int]:
    """Each function over ``FUNCTION_CODE_LINES_MAX`` lines of code, as
    ``path:name``, with its count."""
    found = {}
    for path in _sources():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = _code_lines(node, lines)
                if size > FUNCTION_CODE_LINES_MAX:
                    found[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = size
    return found


def test_no_module_is_over_500_lines():
    new = {n: s for n, s in long_modules().items() if n not in MODULES_NOT_YET_SPLIT}
    assert not new, f"split these modules (one reason to change each): {new}"


def test_no_function_is_over_80_lines_of_code():
    new = {
        n: s for n, s in long_functions().items() if n not in FUNCTIONS_NOT_YET_SPLIT
    }
    assert not new, f"split these functions: {new}"


@pytest.mark.parametrize(
    ("listed", "found"),
    [
        (MODULES_NOT_YET_SPLIT, long_modules),
        (FUNCTIONS_NOT_YET_SPLIT, long_functions),
    ],
    ids=["modules", "functions"],
)
def test_the_list_of_offenders_not_yet_split_only_names_offenders(listed, found):
    fixed = listed - set(found())
    assert not fixed, f"these fit now; delete them from the list: {sorted(fixed)}"
