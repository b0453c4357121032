"""Results of questions with a custom split or an unrelated-question design.

The dashboard's estimate debiases through the question's own compiled design
(``p* = t + a``, ``q* = a`` from its weights), so a seeded simulation of the
design recovers the true share inside its 95% interval; the card names the
design and its split.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from surveys.analysis.results.estimates import question_result
from surveys.authoring import services
from surveys.authoring.designs import CUSTOM, UNRELATED_QUESTION, ForcedDesign
from surveys.authoring.mechanisms import PrivacyConfig

pytestmark = pytest.mark.django_db

DESIGNS = {
    "custom": ForcedDesign(
        kind=CUSTOM,
        truthful=Fraction(7, 10),
        forced_yes=Fraction(1, 5),
        forced_no=Fraction(1, 10),
    ),
    "unrelated": ForcedDesign(
        kind=UNRELATED_QUESTION, truthful=Fraction(3, 5), prevalence=Fraction(1, 4)
    ),
}
LABELS = {
    "custom": "Forced response, custom split: true answer 70%, “yes” 20%, “no” 10%",
    "unrelated": (
        "Forced response, unrelated-question design: true answer 60%, otherwise a "
        "made-up answer drawn on the device, “yes” 25% of the time"
    ),
}


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_result_recovers_a_simulated_share_and_names_the_design(ada, name):
    survey = services.survey_create(owner=ada, title="Designs")
    question = services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", design=DESIGNS[name]),
    )
    mechanism = question.compiled_mechanism()
    rng = np.random.default_rng(1969)
    answers = (rng.random(5_000) < 0.3).astype(int)
    stat = mechanism.aggregate(mechanism.randomize(answers, rng))
    result = question_result(question, mechanism, stat, target_margin=0.05)
    truth = float(answers.mean())
    assert result.intervals[1].low <= truth <= result.intervals[1].high
    # The design's own channel: (share of "yes" reports − a)/t.
    weights = mechanism.weights
    total = sum(weights.values())
    t, a = weights["truthful"] / total, weights["forced_yes"] / total
    assert result.estimate[1] == pytest.approx((stat.counts[1] / stat.n - a) / t)
    assert result.mechanism_label == LABELS[name]


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_the_privacy_view_and_the_codebook_name_the_design(ada, name):
    from surveys.analysis.exports import datasets
    from surveys.analysis.pages.privacy import survey_privacy_view

    survey = services.survey_create(owner=ada, title="Designs")
    services.question_create(
        survey=survey,
        text="Have you ever cheated on an exam?",
        privacy=PrivacyConfig(kind="yes_no", design=DESIGNS[name]),
    )
    survey = services.survey_publish(survey=survey, user=ada)
    (view,) = survey_privacy_view(survey).questions
    assert view.mechanism_label == LABELS[name]
    protected = [v for v in datasets.variables(survey) if v.protected]
    assert protected and all(v.mechanism_label == LABELS[name] for v in protected)
