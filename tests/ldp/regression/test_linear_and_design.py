"""Score regression (HC sandwich) and design matrices: exact checks."""

from __future__ import annotations

import numpy as np
import pytest

import ldp


def test_score_regression_matches_hand_computed_ols_and_hc0():
    x = np.column_stack([np.ones(4), [0, 1, 0, 1]])
    s = np.array([1.0, 3.0, 2.0, 6.0])
    fit = ldp.score_regression(s, x, hc="HC0")
    # Group means 1.5 and 4.5; residuals ±0.5 and ±1.5.
    np.testing.assert_allclose(fit.coef, [1.5, 3.0])
    # HC0 for a saturated two-group design: Var(mean_g) = Σ e²/n_g².
    var0 = (0.25 + 0.25) / 4
    var1 = (2.25 + 2.25) / 4
    np.testing.assert_allclose(fit.covariance[0, 0], var0)
    np.testing.assert_allclose(fit.covariance[1, 1], var0 + var1)
    hc1 = ldp.score_regression(s, x)
    np.testing.assert_allclose(hc1.covariance, fit.covariance * 4 / 2)


def test_score_regression_on_reports_uses_the_mechanisms_scores():
    duchi = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    )
    rng = np.random.default_rng(3)
    reports = duchi.randomize(rng.integers(0, 11, 300), rng)
    x = np.column_stack([np.ones(300), rng.normal(size=300)])
    fit = ldp.score_regression(reports, x, duchi)
    direct = ldp.score_regression(duchi.scores()[reports], x)
    np.testing.assert_allclose(fit.coef, direct.coef)
    np.testing.assert_allclose(fit.covariance, direct.covariance)
    assert fit.mechanism == "duchi"


def test_intercept_only_score_regression_is_the_score_mean():
    geometric = ldp.build(
        {"mechanism": "geometric", "low": "0", "high": "20", "step": "2", "epsilon": 2}
    )
    rng = np.random.default_rng(4)
    reports = geometric.randomize(rng.integers(0, 11, 500), rng)
    fit = ldp.score_regression(reports, np.ones((500, 1)), geometric, hc="HC1")
    mean = geometric.estimate_mean(geometric.aggregate(reports))
    assert fit.coef[0] == pytest.approx(mean.estimate)
    # HC1 with one column is the sample variance over n: the mean's SE.
    assert fit.standard_error[0] == pytest.approx(mean.standard_error)


def test_t_intervals_use_the_residual_degrees_of_freedom():
    x = np.column_stack([np.ones(4), [0, 1, 0, 1]])
    fit = ldp.score_regression([1.0, 3.0, 2.0, 6.0], x)
    ci = fit.confidence_interval(0.95, "t")
    assert ci.high[0] - fit.coef[0] == pytest.approx(4.302653 * fit.standard_error[0])


def test_score_regression_refuses_reports_outside_the_outputs():
    duchi = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "10", "step": "1", "epsilon": 1.0}
    )
    with pytest.raises(ValueError, match="integers in \\[0, 2\\)"):
        ldp.score_regression(np.array([0, 1, 2]), np.ones((3, 1)), duchi)


def test_score_regression_refuses_a_mechanism_without_scores():
    grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    with pytest.raises(ValueError, match="numeric or ordinal mechanism"):
        ldp.score_regression(np.array([0, 1, 2]), np.ones((3, 1)), grr)


def test_score_regression_refuses_an_unknown_hc_type():
    with pytest.raises(ValueError, match="hc is 'HC3'"):
        ldp.score_regression([1.0, 2.0, 3.0], np.ones((3, 1)), hc="HC3")


def test_score_regression_refuses_a_rank_deficient_design():
    x = np.column_stack([np.ones(4), np.ones(4)])
    with pytest.raises(ValueError, match="rank-deficient"):
        ldp.score_regression([1.0, 2.0, 3.0, 4.0], x)


def test_design_matrix_dummy_codes_against_the_named_reference():
    design = ldp.design_matrix(
        {"region": ["n", "s", "e", "s"], "age": [20, 30, 40, 50]},
        numeric=["age"],
        categorical={"region": "s"},
    )
    assert design.names == ("(Intercept)", "age", "region[e]", "region[n]")
    np.testing.assert_array_equal(design.matrix[:, 2], [0, 0, 1, 0])
    np.testing.assert_array_equal(design.matrix[:, 3], [1, 0, 0, 0])
    assert design.reference == {"region": "s"}


@pytest.mark.parametrize(
    ("columns", "kinds", "problem"),
    [
        (
            {"region": ["n", "s"]},
            {"categorical": {"region": "w"}},
            "reference level 'w' of 'region'",
        ),
        (
            {"age": ["old", "young"]},
            {"numeric": ["age"]},
            "numeric column 'age' has non-numeric",
        ),
        ({"a": [1, 2], "b": [1]}, {"numeric": ["a", "b"]}, "unequal lengths"),
        ({"g": ["x", "x"]}, {"categorical": {"g": None}}, "single level"),
    ],
    ids=[
        "absent-reference-level",
        "non-numeric-numeric-column",
        "unequal-lengths",
        "single-level-category",
    ],
)
def test_design_matrix_refuses_columns_it_cannot_use_and_names_the_problem(
    columns, kinds, problem
):
    with pytest.raises(ValueError, match=problem):
        ldp.design_matrix(columns, **kinds)


def test_regression_table_prints_aligned_columns():
    table = ldp.RegressionTable(("term", "estimate"), (("a", 1.5), ("long", -2.0)))
    assert str(table).splitlines() == [
        "term  estimate",
        "   a       1.5",
        "long        -2",
    ]
