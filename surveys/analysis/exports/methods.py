"""The methods paragraph for a paper: how answers were protected and estimated.

Sentences are notes (``surveys.analysis.wording``): the results page words
them in the reader's language, the ``methods.txt`` export in English.  They
name each protected question's mechanism, its ε and number of reports, the
estimator and the interval method, the survey's total ε, the software version
and the fingerprint of the device's randomizer script.
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext, gettext_noop

from surveys.analysis import wording
from surveys.analysis.results.objects import QuestionResult, SurveyResults
from surveys.collection import assets
from surveys.version import deniable_version

INTERVAL_METHODS = {
    "exact": gettext_noop(
        "Clopper–Pearson intervals at the 95 percent level for each share, "
        "computed from the count moved into its possible range"
    ),
    "wilson": gettext_noop(
        "Wilson score intervals at the 95 percent level for each share"
    ),
    "wald": gettext_noop(
        "Wald intervals at the 95 percent level with a floor on the variance, "
        "held within the range"
    ),
    "t": gettext_noop(
        "a Student t interval at the 95 percent level with a floor on the "
        "variance, held within the answer range"
    ),
}

SHARES = gettext_noop(
    "“%(question)s”: %(mechanism)s at ε = %(epsilon)s, %(n)s reports; unbiased "
    "estimates of each answer's share by inverting the randomization, with "
    "%(intervals)s."
)
MEAN = gettext_noop(
    "“%(question)s”: %(mechanism)s at ε = %(epsilon)s, %(n)s reports; an "
    "unbiased estimate of the mean from per-report scores, with %(intervals)s."
)
OPENING = gettext_noop(
    "Answers to the protected questions were randomized on each respondent's "
    "device before they were sent (local differential privacy), with Deniable "
    "%(version)s; the server never received the answers themselves."
)
TOTAL = gettext_noop(
    "The survey's total privacy loss is ε = %(total)s, the sum of the "
    "questions' ε (sequential composition)."
)
FINGERPRINT = gettext_noop(
    "The device's randomizer script has the SHA-384 fingerprint %(fingerprint)s."
)
NONE_PROTECTED = gettext_noop("No question of this survey is protected.")


def _question(q: QuestionResult, translate: Callable[[str], str]) -> wording.Note:
    shares = bool(q.estimate) or q.mean is None
    method = INTERVAL_METHODS.get(q.interval_method)
    return wording.sentence(
        SHARES if shares else MEAN,
        question=q.text,
        mechanism=q.mechanism_label,
        epsilon=float(f"{q.epsilon:.3g}"),
        n=q.n,
        intervals=translate(method) if method else q.interval_method,
    )


def _fingerprint() -> str:
    try:
        return assets.randomizer_script().integrity
    except OSError:
        return "unknown"


def methods_notes(
    results: SurveyResults, translate: Callable[[str], str] = str
) -> list[wording.Note]:
    """The paragraph's sentences, in order, as notes (``translate`` words the
    interval methods, which go into the sentences as values)."""
    questions = list(results.questions)
    notes = [wording.sentence(OPENING, version=deniable_version())]
    if not questions:
        notes.append(wording.sentence(NONE_PROTECTED))
    notes.extend(_question(q, translate) for q in questions)
    if questions:
        notes.append(
            wording.sentence(TOTAL, total=float(f"{results.total_epsilon:.3g}"))
        )
    notes.append(wording.sentence(FINGERPRINT, fingerprint=_fingerprint()))
    return notes


def methods_shown(results: SurveyResults) -> str:
    """The paragraph in the reader's language (for the results page)."""
    return " ".join(wording.shown(n) for n in methods_notes(results, gettext))


def methods_text(results: SurveyResults) -> str:
    """The paragraph in English, as the ``methods.txt`` export."""
    return " ".join(wording.english(n) for n in methods_notes(results)) + "\n"
