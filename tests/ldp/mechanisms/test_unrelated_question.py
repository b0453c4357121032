"""The ε-LDP unrelated-question design as an exact forced-response design."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

import ldp


def test_design_is_truthful_t_and_forced_shares_of_one_minus_t():
    design = ldp.unrelated_question_design("7/10", "1/12")
    assert design == {
        "truthful": Fraction(7, 10),
        "forced_yes": Fraction(3, 10) * Fraction(1, 12),
        "forced_no": Fraction(3, 10) * Fraction(11, 12),
    }
    assert sum(design.values()) == 1


def test_textbook_design_compiles_to_exact_epsilon_ln_29():
    # t = 0.7, π = 1/12: P(yes | yes) = 0.725, P(yes | no) = 0.025.
    mechanism = ldp.build(ldp.unrelated_question_spec(0.7, "1/12"))
    assert mechanism.name == "forced_response"
    assert mechanism.weights == {"truthful": 28, "forced_yes": 1, "forced_no": 11}
    assert float(mechanism.epsilon_exact) == pytest.approx(math.log(29), abs=1e-12)
    assert float(mechanism.p_star[1]) == pytest.approx(0.725)
    assert float(mechanism.q_star[1]) == pytest.approx(0.025)


def test_half_prevalence_is_the_symmetric_forced_response_design():
    assert ldp.unrelated_question_design("1/2", "1/2") == {
        "truthful": Fraction(1, 2),
        "forced_yes": Fraction(1, 4),
        "forced_no": Fraction(1, 4),
    }


def test_floats_are_read_as_the_decimal_they_print_as():
    design = ldp.unrelated_question_design(0.6, 0.1)
    assert design["forced_yes"] == Fraction(1, 25)


@pytest.mark.parametrize(
    "truthful, prevalence, field",
    [
        (0, "1/2", "truthful"),
        (1, "1/2", "truthful"),
        ("1/2", 0, "prevalence"),
        ("1/2", 1, "prevalence"),
        ("1/2", "x", "prevalence"),
        (True, "1/2", "truthful"),
    ],
)
def test_probabilities_outside_the_open_unit_interval_are_refused(
    truthful, prevalence, field
):
    with pytest.raises(ValueError, match=f"^{field} is"):
        ldp.unrelated_question_design(truthful, prevalence)


def test_regression_accepts_the_unrelated_question_design():
    import numpy as np

    mechanism = ldp.build(ldp.unrelated_question_spec("3/5", "1/4"))
    rng = np.random.default_rng(9)
    reports = mechanism.randomize(rng.integers(0, 2, 500), rng)
    fit = ldp.logistic_regression(reports, np.ones((500, 1)), mechanism)
    assert (fit.p, fit.q) == (0.7, 0.1)
