"""The hard ceilings on ε that respondents' devices enforce.

The browser randomizer (``ldp/js/randomizer.js``) refuses to randomize a
question whose delivered ε is above :data:`EPSILON_CEILING_QUESTION`, or a
survey whose protected answers together (sequential composition, re-answers
included) are above :data:`EPSILON_CEILING_SURVEY`.  The survey builder uses
the same values, read out of the shipped module itself
(:mod:`ldp.spec.device`), so that researchers are stopped before any
respondent is refused.
Why these values: the project README, "The device's ceilings".
"""

from __future__ import annotations

from decimal import Decimal

from ldp.spec.device import shipped_integer

EPSILON_CEILING_QUESTION = shipped_integer("randomizer.js", "EPSILON_CEILING_QUESTION")
"""Most ε one protected question may deliver (ln R ≤ 5, R ≤ e^5 ≈ 148)."""

EPSILON_CEILING_SURVEY = shipped_integer("randomizer.js", "EPSILON_CEILING_SURVEY")
"""Most total ε the protected answers one device sends for a survey may reach."""


def above_question_ceiling(epsilon: Decimal) -> bool:
    """Whether a question's exact delivered ε is above the device's ceiling.

    Parameters
    ----------
    epsilon : Decimal
        The exact delivered ε (``Mechanism.epsilon_exact``).

    Returns
    -------
    bool
        ``epsilon > EPSILON_CEILING_QUESTION``.

    Notes
    -----
    The device compares the exact likelihood ratio ``R`` with ``e^5``;
    ``ln R > 5`` is the same test (docs/maths.md, section 8).

    References
    ----------
    .. [1] Apple Differential Privacy Team, "Learning with privacy at scale",
       Apple Machine Learning Journal 1(8), 2017 (deployed per-datum ε of 2
       to 8).
    """
    return epsilon > EPSILON_CEILING_QUESTION


def above_survey_ceiling(total: Decimal) -> bool:
    """Whether a survey's total ε (sum over its questions) is above the ceiling.

    Parameters
    ----------
    total : Decimal
        Sum of the questions' exact delivered ε (sequential composition).

    Returns
    -------
    bool
        ``total > EPSILON_CEILING_SURVEY``.

    Notes
    -----
    Sequential composition: ``ε_total = Σ ε_i``, i.e. ``R_total = Π R_i``
    (docs/maths.md, section 8).

    References
    ----------
    .. [1] C. Dwork, A. Roth, "The algorithmic foundations of differential
       privacy", 2014, theorem 3.16.
    """
    return total > EPSILON_CEILING_SURVEY
