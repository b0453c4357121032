"""Quotas on unprotected answers: "close for people who answer X once N have".

A quota is a cell of one unprotected choice question (an answer value) with
the most counted submissions that may give it (``Question.quotas``:
``{"<value>": limit}``).  Protected answers never have quotas: the device
would have to tell the server, by stopping or not, which cell a true answer
falls in.  Typed words have none either (they are not cells).

The respondent's device checks the quotas **before anything is randomized**
(``static/js/quotas.js``): when an unprotected answer falls in a full cell,
it closes politely, shows the completion code where the survey uses one,
and sends nothing, so no ε is spent on a response that would be turned away.
The cells that are full are given to the device with the answer page
(``surveys.collection.quota_state.full_cells``).  A cell that fills while
someone is answering is not enforced against that person: refusing a
response after its device has randomized would spend their ε for nothing,
so a quota may overshoot by the number of respondents answering at the
moment it fills.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

from surveys.authoring.kinds import facts
from surveys.authoring.models import Question

QUOTA_LINE = re.compile(r"^(?P<label>.+?)\s*:\s*(?P<limit>\d{1,9})\s*$")
PROTECTED_QUOTA = gettext_lazy(
    "Quotas are for unprotected questions only: a quota on a protected "
    "answer would tell the server, by who is let in, which answer the "
    "respondent's device holds."
)


def takes_quotas(question: Question) -> bool:
    """Whether ``question`` may have quotas: unprotected, with answers to
    choose (not a number, not typed words)."""
    kind = facts(question.kind)
    return not question.is_private and (kind.one_choice or kind.several)


def labels_for(
    kind: str, options: tuple[str, ...] | list[str], other_option: bool
) -> list[tuple[int, str]]:
    """(value, label) pairs a quota line may name, in the builder's language:
    "Yes"/"No", the options, and "Other" for "Other, please specify"."""
    if kind == Question.Kind.YES_NO:
        return [(1, gettext("Yes")), (0, gettext("No"))]
    labels = list(enumerate(str(option) for option in options))
    if other_option:
        labels.append((len(labels), gettext("Other")))
    return labels


def parse(text: str, labels: list[tuple[int, str]]) -> dict[str, int]:
    """Quotas from the builder's lines ``<answer>: <most respondents>``.

    ``labels`` are the question's (value, label) pairs; an answer is named by
    its label (case and spaces aside).  Raises ValidationError keyed
    ``quotas``."""
    by_label = {label.casefold().strip(): value for value, label in labels}
    found: dict[str, int] = {}
    for line in (line.strip() for line in (text or "").splitlines()):
        if not line:
            continue
        match = QUOTA_LINE.match(line)
        value = by_label.get(match["label"].casefold().strip()) if match else None
        if match is None or value is None:
            raise ValidationError(
                {
                    "quotas": [
                        gettext(
                            "“%(line)s” is not a quota: write an answer of this "
                            "question, a colon and the most respondents, e.g. "
                            "“%(example)s: 100”."
                        )
                        % {"line": line[:60], "example": labels[0][1] if labels else ""}
                    ]
                }
            )
        found[str(value)] = int(match["limit"])
    return found


def as_text(question: Question) -> str:
    """The builder's lines for the question's stored quotas."""
    names = dict(
        labels_for(question.kind, question.options or [], question.other_option)
    )
    return "\n".join(
        f"{names.get(int(value), value)}: {limit}"
        for value, limit in (question.quotas or {}).items()
    )


def validate(question: Question) -> None:
    """Refuse quotas on a question that cannot have them, or that name an
    answer the question does not have or a limit that is not a count."""
    if not question.quotas:
        return
    if not takes_quotas(question):
        raise ValidationError({"quotas": [str(PROTECTED_QUOTA)]})
    values = {
        str(value)
        for value, _ in labels_for(
            question.kind, question.options or [], question.other_option
        )
    }
    for value, limit in question.quotas.items():
        if value not in values or isinstance(limit, bool) or not isinstance(limit, int):
            raise ValidationError(
                {
                    "quotas": [
                        gettext(
                            "A quota names an answer of this question and a whole "
                            "number of respondents (got %(value)s: %(limit)s)."
                        )
                        % {"value": str(value)[:20], "limit": str(limit)[:20]}
                    ]
                }
            )
