"""XLSForm's piping, ``${name}`` in a label, as Deniable's ``{{qN}}``.

An XLSForm label may repeat an earlier answer by its question's name
(https://xlsform.org, "Piping").  Deniable pipes by question number
(``surveys.authoring.piping``), so each ``${name}`` of an imported question's
text (and of its translations' texts) becomes ``{{qN}}``, N the position the
question imported under that name took, when the builder allows it there:
the named question was imported **before** this one and is **not
protected** (every imported question arrives unprotected; the builder then
refuses to protect one whose answer is piped, so a protected answer is never
shown).  Any other reference is left as written, with a finding saying why:
a name the import did not create a question for, a question that comes at or
after this one, a protected question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from surveys.authoring.imports.parsed import ParsedQuestion, ParsedSurvey
from surveys.authoring.models import Question

# XLSForm names: a letter or underscore, then letters, digits, "_", "-", ".".
REFERENCE = re.compile(r"\$\{\s*([A-Za-z_][\w.\-]*)\s*\}")


def _converted(
    text: str,
    earlier: Mapping[str, Question],
    refused: dict[str, str],
    later: set[str],
) -> str:
    """``text`` with each allowed ``${name}`` as ``{{qN}}``; every name left
    as written goes into ``refused`` (name → finding code)."""

    def pipe(match: re.Match[str]) -> str:
        name = match.group(1)
        source = earlier.get(name)
        if source is not None and not source.is_private:
            return f"{{{{q{source.position}}}}}"
        if source is not None:
            refused.setdefault(name, "pipe_protected")
        elif name in later:
            refused.setdefault(name, "pipe_later")
        else:
            refused.setdefault(name, "pipe_unknown")
        return match.group(0)

    return REFERENCE.sub(pipe, text or "")


def convert(
    parsed: ParsedSurvey,
    question: ParsedQuestion,
    earlier: Mapping[str, Question],
) -> None:
    """Rewrite ``question``'s text and translated texts before it is created.

    ``earlier``: the questions created so far, by the name they had in the
    file.  A reference that stays as written is a finding on ``question``.
    """
    index = next(
        (i for i, q in enumerate(parsed.questions) if q is question),
        len(parsed.questions),
    )
    later = {q.name for q in parsed.questions[index:]}
    refused: dict[str, str] = {}
    question.text = _converted(question.text, earlier, refused, later)
    for texts in question.translations.values():
        if isinstance(texts.get("text"), str):
            texts["text"] = _converted(str(texts["text"]), earlier, refused, later)
    for name, code in refused.items():
        parsed.note(code, question.name, dropped=False, name=f"${{{name}}}")
