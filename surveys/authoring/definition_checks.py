"""The parts of an imported survey definition, checked and turned into the
builder's values.

Each check names where in the document a problem is ("Question 3 (“…”)") and
raises ValidationError ending in "Nothing was imported."; the import itself is
:func:`surveys.authoring.definitions.definition_import`.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from surveys.authoring import translation_services, translations
from surveys.authoring.designs import ForcedDesign
from surveys.authoring.mechanisms import DEFAULT_EPSILON, PrivacyConfig
from surveys.authoring.models import Survey


def checked_fields(
    data: Any,
    fields: dict[str, type | tuple[type, ...]],
    required: tuple[str, ...],
    where: str,
) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValidationError(
            gettext("%(where)s must be a JSON object. Nothing was imported.")
            % {"where": where}
        )
    problems = []
    unknown = sorted(set(data) - set(fields))
    if unknown:
        problems.append(
            gettext("%(where)s has unknown fields: %(fields)s.")
            % {"where": where, "fields": ", ".join(unknown)}
        )
    for name in required:
        if name not in data:
            problems.append(
                gettext("%(where)s lacks “%(field)s”.")
                % {"where": where, "field": name}
            )
    for name, value in data.items():
        expected = fields.get(name)
        if expected is None:
            continue
        # JSON has no int/bool distinction in Python's eyes: True is an int.
        wrong_bool = isinstance(value, bool) and expected in (int, (int, float))
        if wrong_bool or not isinstance(value, expected):
            problems.append(
                gettext("%(where)s: “%(field)s” has the wrong type (%(value)s).")
                % {"where": where, "field": name, "value": f"{value!r:.40}"}
            )
    if problems:
        raise ValidationError([*problems, gettext("Nothing was imported.")])
    return data


def decimal_or_none(value: str | None, where: str) -> Decimal | None:
    if value is None:
        return None
    try:
        return Decimal(value)
    except InvalidOperation:
        raise ValidationError(
            gettext(
                "%(where)s: “%(value)s” is not a decimal number. Nothing was imported."
            )
            % {"where": where, "value": f"{value:.40}"}
        ) from None


def privacy_config(data: dict[str, Any], where: str) -> PrivacyConfig:
    options = data.get("options", [])
    if not all(isinstance(option, str) for option in options):
        raise ValidationError(
            gettext("%(where)s: every option must be text. Nothing was imported.")
            % {"where": where}
        )
    design = None
    if data.get("design") is not None:
        try:
            design = ForcedDesign.from_json(data["design"])
        except ValueError as error:
            raise ValidationError(
                gettext("%(where)s: %(problem)s. Nothing was imported.")
                % {"where": where, "problem": error}
            ) from None
    return PrivacyConfig(
        kind=data["kind"],
        is_private=data.get("is_private", True),
        options=tuple(options),
        epsilon=float(data.get("epsilon", DEFAULT_EPSILON)),
        mechanism=data.get("mechanism", ""),
        low=decimal_or_none(data.get("numeric_low"), where),
        high=decimal_or_none(data.get("numeric_high"), where),
        step=decimal_or_none(data.get("numeric_step"), where),
        max_selections=data.get("max_selections"),
        design=design,
        other_option=data.get("other_option", False),
    )


def show_if_condition(
    data: Any, created: dict[int, int], where: str
) -> dict[str, Any] | None:
    """A document's condition with the new id of the question it names."""
    if data is None:
        return None
    number = data.get("question_number") if isinstance(data, dict) else None
    any_of = data.get("any_of") if isinstance(data, dict) else None
    if not isinstance(number, int) or not isinstance(any_of, list):
        raise ValidationError(
            gettext(
                "%(where)s: “show_if” needs a “question_number” and an “any_of” list."
            )
            % {"where": where}
        )
    if number not in created:
        raise ValidationError(
            gettext(
                "%(where)s: “show_if” names question %(number)s, which is not an "
                "earlier question of this definition (or could not be imported)."
            )
            % {"where": where, "number": number}
        )
    return {"question": created[number], "any_of": any_of}


def prefixed_problems(where: str, error: ValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [
            gettext("%(where)s, %(field)s: %(problem)s")
            % {"where": where, "field": field.replace("_", " "), "problem": message}
            for field, messages in error.message_dict.items()
            for message in messages
        ]
    return [
        gettext("%(where)s: %(problem)s") % {"where": where, "problem": message}
        for message in error.messages
    ]


def import_languages(
    survey: Survey,
    owner,
    fields: dict[str, Any],
    questions: list[dict[str, Any]],
) -> list[str]:
    """Declare the document's languages and store its translations through the
    builder's own services; the problems found ([]: none)."""
    try:
        translation_services.survey_languages_update(
            survey=survey,
            user=owner,
            source_language=fields.get("source_language", survey.source_language),
            languages=[c for c in fields.get("languages", []) if isinstance(c, str)],
            record_language=bool(fields.get("record_language", False)),
        )
    except ValidationError as error:
        return prefixed_problems(gettext("The survey's languages"), error)
    survey.refresh_from_db()
    ids = list(survey.questions.values_list("pk", flat=True))
    texts = fields.get("translations", {})
    problems = []
    for language in survey.languages:
        per_question = {}
        for pk, data in zip(ids, questions, strict=True):
            given = (data.get("translations") or {}).get(language)
            if isinstance(given, dict):
                per_question[pk] = given
        survey_texts = texts.get(language) if isinstance(texts, dict) else None
        try:
            translation_services.translations_update(
                survey=survey,
                user=owner,
                language=language,
                survey_texts=survey_texts if isinstance(survey_texts, dict) else {},
                question_texts=per_question,
            )
        except ValidationError as error:
            where = gettext("The %(language)s texts") % {
                "language": translations.language_name(language)
            }
            problems.extend(prefixed_problems(where, error))
    survey.refresh_from_db()
    return problems
