"""Post-stratification, raking, Kish's deff and weighted shares: exact checks."""

from __future__ import annotations

import numpy as np
import pytest

import ldp
from ldp.estimators.weighted import support_rows
from tests.ldp.conftest import SPECS, supports


def test_post_stratified_weights_give_each_cell_its_population_share():
    cells = ["a"] * 6 + ["b"] * 2 + ["c"] * 2
    fit = ldp.post_stratify(cells, {"a": 2, "b": 1, "c": 1})
    w = fit.weights
    assert w.mean() == pytest.approx(1.0)
    for cell, share in (("a", 0.5), ("b", 0.25), ("c", 0.25)):
        mask = np.array(cells) == cell
        assert w[mask].sum() / w.sum() == pytest.approx(share)
    assert fit.max_margin_error < 1e-12


def test_post_stratification_adjusts_given_base_weights_within_cells():
    fit = ldp.post_stratify(["a", "a", "b"], {"a": 0.5, "b": 0.5}, [1, 3, 1])
    # Within a the 1:3 ratio stays; a and b each get half of the total.
    np.testing.assert_allclose(fit.weights, [0.375, 1.125, 1.5])


def test_post_stratification_refuses_a_cell_the_population_does_not_give():
    with pytest.raises(ValueError, match="levels \\['z'\\] that its margin"):
        ldp.post_stratify(["a", "z"], {"a": 1})


def test_post_stratification_refuses_an_empty_cell_with_a_positive_share():
    with pytest.raises(ldp.CalibrationError, match="no respondent has level"):
        ldp.post_stratify(["a", "a"], {"a": 0.5, "b": 0.5})


def test_negative_population_shares_are_refused():
    with pytest.raises(ValueError, match="allowed: a number >= 0"):
        ldp.post_stratify(["a", "b"], {"a": 1.5, "b": -0.5})


def test_raking_meets_every_margin():
    rng = np.random.default_rng(1)
    sex = rng.choice(["f", "m"], 500, p=[0.7, 0.3])
    age = rng.choice(["18-34", "35-64", "65+"], 500, p=[0.5, 0.3, 0.2])
    margins = {
        "sex": {"f": 0.5, "m": 0.5},
        "age": {"18-34": 0.3, "35-64": 0.45, "65+": 0.25},
    }
    fit = ldp.rake({"sex": sex, "age": age}, margins)
    w = fit.weights
    for name, labels in (("sex", sex), ("age", age)):
        for level, share in margins[name].items():
            assert w[labels == level].sum() / w.sum() == pytest.approx(share, abs=1e-9)
    assert fit.method == "raking"
    assert fit.iterations >= 2


def test_raking_with_one_margin_is_post_stratification():
    cells = ["a", "a", "a", "b", "c"]
    population = {"a": 1, "b": 1, "c": 2}
    raked = ldp.rake({"x": cells}, {"x": population})
    np.testing.assert_allclose(
        raked.weights, ldp.post_stratify(cells, population).weights
    )


def test_raking_refuses_margins_it_cannot_meet():
    # Everyone female is young and everyone male old: sex and age cannot be
    # set to independent margins that disagree.
    variables = {"sex": ["f", "f", "m"], "age": ["young", "young", "old"]}
    margins = {"sex": {"f": 0.5, "m": 0.5}, "age": {"young": 0.2, "old": 0.8}}
    with pytest.raises(ldp.CalibrationError, match="did not meet the margins"):
        ldp.rake(variables, margins, max_iterations=50)


def test_raking_refuses_variables_without_margins():
    with pytest.raises(ValueError, match="must name the same questions"):
        ldp.rake({"sex": ["f"], "age": ["old"]}, {"sex": {"f": 1}})


def test_kish_design_effect_is_one_plus_the_squared_cv():
    w = np.array([1.0, 2.0, 3.0, 6.0])
    cv2 = w.var() / w.mean() ** 2
    assert ldp.kish_design_effect(w) == pytest.approx(1 + cv2)
    fit = ldp.post_stratify(["a", "a", "a", "b"], {"a": 0.5, "b": 0.5})
    assert fit.effective_sample_size == pytest.approx(4 / fit.design_effect)


def test_negative_weights_are_refused():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError, match="finite and >= 0"):
        ldp.weighted_estimate(warner, [0, 1], [1, -1])


def test_weights_of_the_wrong_length_are_refused():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError, match="3 weights for 2 reports"):
        ldp.weighted_estimate(warner, [0, 1], [1, 1, 1])


def test_weighted_shares_refuse_a_numeric_mechanism():
    duchi = ldp.build(
        {"mechanism": "duchi", "low": "0", "high": "1", "step": "1", "epsilon": 1.0}
    )
    with pytest.raises(ValueError, match="frequency oracles and multi-select"):
        ldp.weighted_estimate(duchi, np.array([0, 1]), [1, 1])


def test_support_rows_agree_with_the_naive_definition(mechanism, rng):
    reports = mechanism.randomize(rng.integers(0, mechanism.k, 300), rng)
    rows = support_rows(mechanism, reports)
    spec = mechanism.spec
    naive = np.array(
        [
            [supports(spec, report.tolist(), v) for v in range(mechanism.k)]
            for report in reports
        ]
    )
    np.testing.assert_array_equal(rows, naive)
    np.testing.assert_array_equal(rows.sum(axis=0), mechanism.aggregate(reports).counts)


def test_equal_weights_give_the_unweighted_estimate(mechanism, rng):
    reports = mechanism.randomize(rng.integers(0, mechanism.k, 400), rng)
    plain = mechanism.estimate(mechanism.aggregate(reports))
    weighted = ldp.weighted_estimate(mechanism, reports, np.full(400, 2.5))
    np.testing.assert_allclose(weighted.estimate, plain.estimate, atol=1e-12)
    # The linearized variance is the plug-in one times n/(n − 1).
    np.testing.assert_allclose(
        weighted.standard_error, plain.standard_error * np.sqrt(400 / 399)
    )
    assert weighted.design_effect == pytest.approx(1.0)


def test_integer_weights_equal_repeating_each_report():
    grr = ldp.build(SPECS["grr"])
    reports = np.array([0, 1, 4, 4, 2, 0, 3])
    weights = np.array([1, 2, 3, 1, 1, 2, 1])
    weighted = ldp.weighted_estimate(grr, reports, weights)
    repeated = grr.estimate(grr.aggregate(np.repeat(reports, weights)))
    np.testing.assert_allclose(weighted.estimate, repeated.estimate)


def test_weighted_covariance_matches_the_linearization_formula_by_hand():
    coin = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
        }
    )
    reports, w = np.array([1, 1, 0, 1]), np.array([1.0, 1.0, 2.0, 2.0])
    est = ldp.weighted_estimate(coin, reports, w)
    lam = (1 + 1 + 2) / 6  # weighted share of "yes" reports
    z = w * ((reports == 1) - lam) / w.sum()
    var = 4 / 3 * np.sum(z**2)
    assert est.support[1] == pytest.approx(lam)
    assert est.estimate[1] == pytest.approx((lam - 0.25) / 0.5)
    assert est.standard_error[1] == pytest.approx(np.sqrt(var) / 0.5)
    assert est.covariance[0, 1] == pytest.approx(-var / 0.25)


def test_weighted_estimate_to_dict_is_json_able():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    record = ldp.weighted_estimate(warner, [0, 1, 1], [1, 2, 1]).to_dict()
    assert record["mechanism"] == "warner"
    assert record["design_effect"] == pytest.approx(3 * 6 / 16)
    assert all(isinstance(x, float) for x in record["estimate"])


@pytest.mark.parametrize(
    "spec",
    [
        {"mechanism": "multi_rr", "k": 4, "epsilon": 2.0},
        {"mechanism": "padding_sampling", "k": 4, "ell": 2, "epsilon": 1.0},
    ],
    ids=["multi_rr", "padding_sampling"],
)
def test_equal_weights_give_the_unweighted_multiselect_shares(spec, rng):
    mechanism = ldp.build(spec)
    selections = [
        sorted(rng.choice(4, size=rng.integers(0, 3), replace=False).tolist())
        for _ in range(300)
    ]
    reports = mechanism.randomize(selections, rng)
    plain = mechanism.estimate(mechanism.aggregate(reports))
    weighted = ldp.weighted_estimate(mechanism, reports, np.full(300, 0.5))
    np.testing.assert_allclose(weighted.estimate, plain.estimate, atol=1e-12)
    np.testing.assert_allclose(
        weighted.standard_error, plain.standard_error * np.sqrt(300 / 299)
    )
    assert not weighted.sums_to_one
    assert np.all((weighted.consistent() >= 0) & (weighted.consistent() <= 1))


NUMERIC = {
    "mechanism": "geometric",
    "low": "0",
    "high": "20",
    "step": "2",
    "epsilon": 2,
}


def test_equal_weights_give_the_unweighted_score_mean(rng):
    mechanism = ldp.build(NUMERIC)
    reports = mechanism.randomize(rng.integers(0, 11, 400), rng)
    plain = mechanism.estimate_mean(mechanism.aggregate(reports))
    weighted = ldp.weighted_mean(mechanism, reports, np.full(400, 3.0))
    assert weighted.estimate == pytest.approx(plain.estimate)
    assert weighted.standard_error == pytest.approx(plain.standard_error)


def test_integer_weights_in_the_mean_equal_repeating_each_report():
    mechanism = ldp.build(NUMERIC)
    reports = np.array([0, 3, 10, 4, 4, 7])
    weights = np.array([2, 1, 3, 1, 1, 2])
    weighted = ldp.weighted_mean(mechanism, reports, weights)
    repeated = mechanism.estimate_mean(mechanism.aggregate(np.repeat(reports, weights)))
    assert weighted.estimate == pytest.approx(repeated.estimate)


def test_weighted_mean_refuses_a_mechanism_without_scores():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError, match="numeric and ordinal mechanisms"):
        ldp.weighted_mean(warner, [0, 1], [1, 1])
