"""Citations in the code point at the repository's own documentation.

Every ``.py`` file under ``ldp/``, ``surveys/``, ``tests/`` and ``benchmarks/``
is scanned for citations such as "docs/maths.md, section 3" or
"docs/maths.md §3": the file must exist in ``docs/`` and have a top-level
section with that number (a heading such as ``## 3 Multiple-choice questions``).
Documents outside the repository may not be cited at all.  Plain pytest: no
Django, no services.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCANNED_TREES = ("ldp", "surveys", "tests", "benchmarks")

DOC_MENTION = re.compile(r"docs/(?P<name>[\w-]+)\.md")
SECTION_CITATION = re.compile(
    r"docs/(?P<name>[\w-]+)\.md"
    r"(?:,?\s*sections?\s+|\s*§§?\s*)"
    r"(?P<numbers>\d+(?:\s*(?:,|and|-|–)\s*\d+)*)"
)
NUMBER_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")
TOP_LEVEL_HEADING = re.compile(r"^##\s+(\d+)(?:\.|\s|$)")
FENCE = re.compile(r"^\s*(```|~~~)")
OUTSIDE_DOCUMENTS = re.compile(r"primer|test\s+plan", re.IGNORECASE)


def python_files() -> Iterator[Path]:
    """Every .py file of the scanned trees but this one, in a stable order.

    This file is left out because its patterns and examples name documents.
    """
    own = Path(__file__).resolve()
    for tree in SCANNED_TREES:
        yield from (
            p for p in sorted((ROOT / tree).rglob("*.py")) if p.resolve() != own
        )


def where(path: Path, text: str, offset: int) -> str:
    """``path:line`` of a character offset, relative to the repository."""
    return f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, offset) + 1}"


def cited_numbers(numbers: str) -> set[int]:
    """Section numbers of "3", "1 and 5", "2, 4", "4-6" (ranges expanded)."""
    found: set[int] = set()
    for low, high in NUMBER_RANGE.findall(numbers):
        found.update(range(int(low), int(high) + 1))
    found.update(int(n) for n in re.findall(r"\d+", NUMBER_RANGE.sub("", numbers)))
    return found


def top_level_sections(markdown: str) -> set[int]:
    """Numbers of the ``## N`` headings outside fenced code blocks."""
    sections: set[int] = set()
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := TOP_LEVEL_HEADING.match(line)):
            sections.add(int(heading.group(1)))
    return sections


def sections_of(name: str) -> set[int] | None:
    """Top-level section numbers of docs/<name>.md, or None if it is missing."""
    path = DOCS / f"{name}.md"
    if not path.is_file():
        return None
    return top_level_sections(path.read_text(encoding="utf-8"))


def test_citation_pattern_reads_both_forms_lists_and_ranges():
    text = (
        "see docs/maths.md, section 3 and docs/testing.md §4; "
        "docs/maths.md, sections 1 and 5; docs/maths.md, sections 4-6"
    )
    found = [
        (m["name"], cited_numbers(m["numbers"]))
        for m in SECTION_CITATION.finditer(text)
    ]
    assert found == [
        ("maths", {3}),
        ("testing", {4}),
        ("maths", {1, 5}),
        ("maths", {4, 5, 6}),
    ]


def test_only_numbered_level_two_headings_outside_code_count_as_sections():
    markdown = (
        "# Title\n## 1 Channels\n### 1.2 Sub\n## 2. Binary\n"
        "```text\n## 9 not a heading\n```\n## References\n## 10 Manipulation\n"
    )
    assert top_level_sections(markdown) == {1, 2, 10}


def test_every_cited_docs_file_exists():
    missing = [
        f"{where(path, text, m.start())}: docs/{m['name']}.md does not exist"
        for path in python_files()
        for text in [path.read_text(encoding="utf-8")]
        for m in DOC_MENTION.finditer(text)
        if not (DOCS / f"{m['name']}.md").is_file()
    ]
    assert not missing, "\n".join(missing)


def test_every_cited_section_is_a_top_level_section_of_its_file():
    wrong = []
    for path in python_files():
        text = path.read_text(encoding="utf-8")
        for m in SECTION_CITATION.finditer(text):
            sections = sections_of(m["name"])
            if sections is None:
                continue  # reported by test_every_cited_docs_file_exists
            for number in sorted(cited_numbers(m["numbers"]) - sections):
                wrong.append(
                    f"{where(path, text, m.start())}: docs/{m['name']}.md has no "
                    f"section {number} (it has {sorted(sections)})"
                )
    assert not wrong, "\n".join(wrong)


def test_no_file_cites_a_document_outside_the_repository():
    stray = [
        f"{where(path, text, m.start())}: {m.group(0)!r}"
        for path in python_files()
        for text in [path.read_text(encoding="utf-8")]
        for m in OUTSIDE_DOCUMENTS.finditer(text)
    ]
    assert not stray, "\n".join(stray)
