"""The sentences of an import's findings, worded when shown.

A finding is stored as a code with its values (``SurveyImport.findings``),
so the list reads in the language of whoever opens the import's page.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

SENTENCES = {
    "unsupported_type": gettext_lazy(
        "Not imported: Deniable has no question of type “%(type)s”."
    ),
    "open_text": gettext_lazy(
        "Not imported: several text boxes in one question (import each as a "
        "question of its own)."
    ),
    "metadata": gettext_lazy(
        "Not imported: device or time metadata (%(type)s) is not collected, "
        "since it could identify a respondent."
    ),
    "calculation": gettext_lazy("Not imported: calculations are not supported."),
    "repeat": gettext_lazy(
        "Not imported: repeated groups are not supported, nor the questions in them."
    ),
    "in_repeat": gettext_lazy("Not imported: it is inside the repeat “%(repeat)s”."),
    "hidden": gettext_lazy("Not imported: a hidden question."),
    "no_label": gettext_lazy("Not imported: it has no label."),
    "missing_choices": gettext_lazy(
        "Not imported: its answer list “%(list)s” is missing or empty."
    ),
    "no_range": gettext_lazy(
        "Not imported: a number question needs a lowest and a highest value "
        "(from a constraint such as “. >= 0 and . <= 120”); found “%(expression)s”."
    ),
    "note_unattached": gettext_lazy("Not imported: a note with no question after it."),
    "language": gettext_lazy(
        "Texts in “%(language)s” not imported: Deniable's respondent pages are "
        "not offered in that language."
    ),
    "source_language": gettext_lazy(
        "The form is written in “%(language)s”, a language Deniable's respondent "
        "pages are not offered in: its texts were imported as written, and the "
        "survey is marked as written in English (change it on the Languages page "
        "if another language fits better)."
    ),
    "refused": gettext_lazy("Not imported: the builder refused it (%(problem)s)."),
    "condition": gettext_lazy(
        "Imported without its condition “%(expression)s”, which display logic "
        "cannot express: the question is always shown."
    ),
    "condition_driver": gettext_lazy(
        "Imported without its condition: it depends on “%(driver)s”, which was "
        "not imported; the question is always shown."
    ),
    "group_condition": gettext_lazy(
        "Imported without its group's condition: a question has one condition, "
        "and this one has its own."
    ),
    "required_expression": gettext_lazy(
        "Imported as optional: “required” is the expression “%(expression)s”."
    ),
    "constraint": gettext_lazy("Imported without its constraint “%(expression)s”."),
    "choice_filter": gettext_lazy(
        "Imported without its choice filter “%(expression)s”: every option is shown."
    ),
    "or_other": gettext_lazy("Imported without its “Other, please specify” answer."),
    "comment": gettext_lazy("Imported without its comment box."),
    "decimal_step": gettext_lazy("Answers are numbers in steps of %(step)s."),
    "array_rows": gettext_lazy(
        "An array of %(count)s rows: each row became a question of its own."
    ),
    "media": gettext_lazy("Imported without its images, audio or video."),
    "piping": gettext_lazy(
        "Its text refers to earlier answers; it is shown as written."
    ),
    "pipe_unknown": gettext_lazy(
        "“%(name)s” is shown as written: no question imported before this one "
        "has that name (notes, calculations and questions not imported cannot "
        "be repeated)."
    ),
    "pipe_later": gettext_lazy(
        "“%(name)s” is shown as written: that question comes at or after this "
        "one, and only an earlier answer can be repeated."
    ),
    "pipe_protected": gettext_lazy(
        "“%(name)s” is shown as written: that question is protected, and its "
        "true answer never leaves the respondent's device, so it is never "
        "repeated on the page."
    ),
    "default": gettext_lazy("Imported without its default answer “%(value)s”."),
    "shortened": gettext_lazy("Its text was shortened to %(most)s characters."),
    "translation": gettext_lazy("Translations not imported (%(problem)s)."),
}


def sentence(finding: dict[str, Any]) -> str:
    """A stored finding in the active language (its code when unknown)."""
    template = SENTENCES.get(str(finding.get("code")))
    if template is None:
        return str(finding.get("code"))
    values = {k: str(v) for k, v in (finding.get("values") or {}).items()}
    try:
        return str(template) % values
    except (KeyError, ValueError, TypeError):
        return str(template)
