"""Validation of a question's answers and privacy settings, in one place.

Errors are keyed by form field, echo the bad value and say what is allowed.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_lazy

import ldp
from ldp.mechanisms import registry
from ldp.spec.ceilings import EPSILON_CEILING_QUESTION, above_question_ceiling
from surveys.authoring import mechanisms
from surveys.authoring.designs import design_problems
from surveys.authoring.kinds import KINDS, KindFacts, facts
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.mechanisms import PrivacyConfig

# Bounded cost: the answer page renders every option for every respondent; at
# 256 it stays within its budget (README, "Limits"; benchmarks/page_cost.py),
# at ldp's limit of 4096 it took 60-90 times the trivial view.
OPTIONS_MAX = 256
OPTION_LENGTH_MAX = 200


def normalize_options(raw: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Options from text (one per line) or a list: stripped, blank lines dropped."""
    lines = raw.splitlines() if isinstance(raw, str) else list(raw)
    return tuple(line.strip() for line in lines if line and line.strip())


def _options_errors(options: tuple[str, ...]) -> list[str]:
    errors = []
    if len(options) < 2:
        errors.append(
            gettext("Give at least %(least)s options, one per line (got %(got)s).")
            % {"least": _n(2), "got": _n(len(options))}
        )
    if len(options) > OPTIONS_MAX:
        errors.append(
            gettext(
                "Give at most %(most)s options (got %(got)s), because the answer "
                "page shows every option to every respondent and a longer list "
                "makes it too slow to serve (and to read)."
            )
            % {"most": _n(OPTIONS_MAX), "got": _n(len(options))}
        )
    seen: dict[str, str] = {}
    for option in options:
        key = option.casefold()
        if key in seen:
            errors.append(
                gettext(
                    "“%(option)s” appears more than once; each option must be "
                    "different."
                )
                % {"option": option}
            )
        seen[key] = option
        if len(option) > OPTION_LENGTH_MAX:
            errors.append(
                gettext(
                    "“%(start)s…” is %(length)s characters long; allowed: at most "
                    "%(most)s."
                )
                % {
                    "start": option[:40],
                    "length": _n(len(option)),
                    "most": _n(OPTION_LENGTH_MAX),
                }
            )
    return errors


def _grid_errors(config: PrivacyConfig) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    low, high, step = config.low, config.high, config.step
    for name, value in (("numeric_low", low), ("numeric_high", high)):
        if value is None:
            errors[name] = [gettext("Required for a number question.")]
    if step is None:
        errors["numeric_step"] = [gettext("Required for a number question (e.g. 1).")]
    elif step <= 0:
        errors["numeric_step"] = [
            gettext("The step is %(step)s; allowed: more than 0.") % {"step": _n(step)}
        ]
    if errors:
        return errors
    if low >= high:
        errors["numeric_high"] = [
            gettext(
                "The highest value (%(high)s) must be more than the lowest (%(low)s)."
            )
            % {"high": _n(high), "low": _n(low)}
        ]
        return errors
    steps = (high - low) / step
    if steps != steps.to_integral_value():
        errors["numeric_step"] = [
            gettext(
                "From %(low)s to %(high)s is not a whole number of steps of %(step)s."
            )
            % {"low": _n(low), "high": _n(high), "step": _n(step)}
        ]
    elif problem := mechanisms.numeric_cost_problem(config):
        field, message = problem
        errors[field] = [message]
    return errors


def _kind_or_error(kind: str) -> KindFacts:
    if kind not in KINDS:
        raise ValidationError(
            {"kind": [gettext("“%(kind)s” is not a question kind.") % {"kind": kind}]}
        )
    return facts(kind)


def _answers(privacy: PrivacyConfig, errors: dict[str, list[str]]) -> dict[str, Any]:
    """The options, grid and selection limit the kind has, checked."""
    kind = facts(privacy.kind)
    options: tuple[str, ...] = ()
    if kind.lists_options:
        options = normalize_options(privacy.options)
        if problems := _options_errors(options):
            errors["options"] = problems
    else:
        options = kind.fixed_options
    answers: dict[str, Any] = {"options": options}
    if kind.grid:
        errors.update(_grid_errors(privacy))
        answers.update(low=privacy.low, high=privacy.high, step=privacy.step)
    if kind.several and privacy.max_selections is not None:
        answers["max_selections"] = privacy.max_selections
        if not 1 <= privacy.max_selections <= max(len(options), 1):
            errors["max_selections"] = [
                gettext(
                    "At most %(most)s selections is not possible with %(count)s "
                    "options; allowed: 1 to %(count)s (or leave it empty for no "
                    "limit)."
                )
                % {"most": _n(privacy.max_selections), "count": _n(len(options))}
            ]
    return answers


def _designed(privacy: PrivacyConfig, errors: dict[str, list[str]]) -> str:
    """The mechanism a researcher's design asks for (the kind's mechanism that
    takes a design), with what is wrong with the design; else the chosen one."""
    name = privacy.mechanism or ""
    takes = [f.name for f in registry.for_kind(privacy.kind) if f.takes_design]
    if not takes:
        errors["design"] = [
            gettext(
                "A custom split or an unrelated-question design is for yes/no "
                "questions only."
            )
        ]
        return name
    if name not in ("", *takes):
        errors["design"] = [
            gettext(
                "A custom split or an unrelated-question design is a "
                "forced-response design: choose Forced response as the method, "
                "or the symmetric design."
            )
        ]
    if privacy.design is not None:
        errors.update(design_problems(privacy.design))
    return takes[0]


FREE_TEXT_PROTECTED = gettext_lazy(
    "Open text is never protected: no method randomizes words, and what a "
    "person types can identify them. Choose “Not protected”, or a choice "
    "question if the answer is sensitive."
)
OTHER_PROTECTED = gettext_lazy(
    "“Other, please specify” is typed text, which is never randomized: offer "
    "it only on an unprotected question."
)
OTHER_WRONG_KIND = gettext_lazy(
    "“Other, please specify” is for single choice and multiple selections only."
)


def _free_text_errors(privacy: PrivacyConfig, errors: dict[str, list[str]]) -> None:
    """Typed words are never protected: neither an open-text question nor a
    choice question's "Other, please specify" may be randomized."""
    kind = facts(privacy.kind)
    if kind.free_text and privacy.is_private:
        errors["protection"] = [str(FREE_TEXT_PROTECTED)]
    if privacy.other_option and not kind.takes_other:
        errors["other_option"] = [str(OTHER_WRONG_KIND)]
    elif privacy.other_option and privacy.is_private:
        errors["other_option"] = [str(OTHER_PROTECTED)]


def question_validate(
    *, privacy: PrivacyConfig, acknowledged: bool
) -> tuple[PrivacyConfig, ldp.Mechanism | None]:
    """Check a question's privacy settings and compile them.

    Returns the normalized configuration and the compiled mechanism (None for a
    non-private question).  Raises ValidationError keyed by form field.
    """
    _kind_or_error(privacy.kind)
    errors: dict[str, list[str]] = {}
    answers = _answers(privacy, errors)
    _free_text_errors(privacy, errors)
    design = privacy.design if privacy.is_private else None
    mechanism_name = privacy.mechanism or ""
    if design is not None:
        mechanism_name = _designed(privacy, errors)
    epsilon = privacy.epsilon
    in_range = epsilon is not None and 0 < epsilon <= mechanisms.EPSILON_MAX
    # With a design, ε follows from it: the requested ε is not used.
    if design is None and privacy.is_private and not in_range:
        errors["requested_epsilon"] = [
            gettext("ε is %(epsilon)s; allowed: more than 0 and at most %(most)s.")
            % {"epsilon": _n(str(epsilon)), "most": _n(mechanisms.EPSILON_MAX)}
        ]
    if not privacy.is_private and not acknowledged:
        errors["not_private_acknowledged"] = [
            gettext(
                "Tick the box to confirm that this answer will be sent and stored "
                "unprotected, or protect it."
            )
        ]
    config = PrivacyConfig(
        kind=privacy.kind,
        is_private=privacy.is_private,
        epsilon=(
            float(epsilon)
            if epsilon is not None and (design is None or in_range)
            else mechanisms.DEFAULT_EPSILON
        ),
        mechanism=mechanism_name,
        design=design,
        other_option=privacy.other_option,
        **answers,
    )
    if errors:
        raise ValidationError(errors)
    if not config.is_private:
        return config, None
    return config, _compiled(config)


def _compiled(config: PrivacyConfig) -> ldp.Mechanism:
    """The configuration's mechanism, within the question's ε ceiling."""
    try:
        mechanism = mechanisms.build(config)
    except mechanisms.MechanismError as error:
        field = "mechanism" if config.mechanism else "requested_epsilon"
        if config.design is not None:
            field = "design"
        raise ValidationError({field: [str(error)]}) from None
    if not above_question_ceiling(mechanism.epsilon_exact):
        return mechanism
    # A mechanism taking a design fixes ε by its design, not by the requested ε.
    family = registry.family(mechanism.name)
    field = "mechanism" if family.takes_design else "requested_epsilon"
    if config.design is not None:
        field = "design"
    values = {
        "epsilon": _n(mechanism.epsilon_display),
        "ceiling": _n(EPSILON_CEILING_QUESTION),
    }
    if config.design is not None:
        message = gettext(
            "This question would deliver ε = %(epsilon)s; respondents' devices "
            "refuse any question above ε = %(ceiling)s (one answer could then "
            "move even odds to over 99%%). Give the forced answers larger "
            "percentages."
        )
    else:
        message = gettext(
            "This question would deliver ε = %(epsilon)s; respondents' devices "
            "refuse any question above ε = %(ceiling)s (one answer could then "
            "move even odds to over 99%%). Choose a smaller ε."
        )
    raise ValidationError({field: [message % values]})
