"""What a survey may hold: its total ε against its budget and the device's
ceiling, and its size (questions and answer options).

The builder's services (``survey_services``, ``question_services``) and the
imports ask these before anything is changed; each answer is the message that
says what was wrong and what is allowed, or None.
"""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import gettext

from ldp.spec.ceilings import EPSILON_CEILING_SURVEY, above_survey_ceiling
from surveys.authoring import previews
from surveys.authoring.ldp_words import localized_number as _n
from surveys.authoring.mechanisms import PrivacyConfig
from surveys.authoring.models import Survey

BUDGET_MAX = 100.0
# Bounded cost: the consent and answer pages show every question and option to
# every respondent, so their cost grows with the survey's size.  Within these
# they stay within their budget (README, "Limits"; benchmarks/page_cost.py).
SURVEY_QUESTIONS_MAX = 50
SURVEY_OPTIONS_MAX = 512


def budget_error(
    survey: Survey, total: Decimal, *, current: bool = False, changed: bool = True
) -> str | None:
    """Why a total ε of ``total`` is refused for ``survey`` (None: it is not).

    The message speaks of a change ("would be", then "Nothing was changed."),
    or with ``current`` of the survey as it is ("is"); ``changed=False`` leaves
    out "Nothing was changed." (an import says "Nothing was imported.").
    """
    _, display, _ = previews.total_epsilon([total])
    values = {
        "total": _n(display),
        "ceiling": _n(EPSILON_CEILING_SURVEY),
        "budget": _n(survey.epsilon_budget),
    }
    if above_survey_ceiling(total):
        if current:
            message = gettext(
                "The total ε per respondent is %(total)s, above %(ceiling)s: "
                "respondents' devices refuse any survey above that (taken "
                "together, the answers would then tell almost surely what each "
                "person answered). Lower a question's ε or remove a question."
            )
        else:
            message = gettext(
                "The total ε per respondent would be %(total)s, above %(ceiling)s: "
                "respondents' devices refuse any survey above that (taken "
                "together, the answers would then tell almost surely what each "
                "person answered). Lower a question's ε or remove a question."
            )
    elif total <= Decimal(survey.epsilon_budget):
        return None
    elif current:
        message = gettext(
            "The total ε per respondent is %(total)s, above this survey's budget "
            "of %(budget)s. Lower a question's ε, remove a question, or raise the "
            "budget."
        )
    else:
        message = gettext(
            "The total ε per respondent would be %(total)s, above this survey's "
            "budget of %(budget)s. Lower a question's ε, remove a question, or "
            "raise the budget."
        )
    message %= values
    if changed:
        message = gettext("%(problem)s Nothing was changed.") % {"problem": message}
    return message


def size_error(
    survey: Survey, config: PrivacyConfig, *, exclude_question_id: int | None = None
) -> dict[str, list[str]] | None:
    """Why adding (or changing) a question would make the survey too big.

    At most ``SURVEY_QUESTIONS_MAX`` questions and ``SURVEY_OPTIONS_MAX``
    answer options in all (yes/no counts 2, a number question none).
    """
    others = survey.questions.exclude(pk=exclude_question_id)
    count = others.count() + 1
    if count > SURVEY_QUESTIONS_MAX:
        return {
            "__all__": [
                gettext(
                    "This survey would have %(count)s questions; allowed: at most "
                    "%(most)s, because every respondent's page shows all of them, "
                    "and a bigger survey makes it too slow to serve (and to "
                    "answer). Nothing was changed."
                )
                % {"count": _n(count), "most": _n(SURVEY_QUESTIONS_MAX)}
            ]
        }
    options = sum(len(q.options or ()) for q in others) + len(config.options)
    if options > SURVEY_OPTIONS_MAX:
        return {
            "options": [
                gettext(
                    "This survey's questions would offer %(count)s answer options "
                    "in all; allowed: at most %(most)s, because every respondent's "
                    "page shows all of them, and a bigger survey makes it too slow "
                    "to serve (and to answer). Use fewer options, or split the "
                    "survey. Nothing was changed."
                )
                % {"count": _n(options), "most": _n(SURVEY_OPTIONS_MAX)}
            ]
        }
    return None
