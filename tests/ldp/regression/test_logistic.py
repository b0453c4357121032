"""Logistic regression through a randomized outcome's channel: exact checks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import ldp
from ldp.regression.logistic import loglik_gradient_hessian

COIN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}


def _data(rng: np.random.Generator, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    x = np.column_stack([np.ones(n), rng.normal(size=n), rng.integers(0, 2, n)])
    y = rng.integers(0, 2, n)
    return x, y


@pytest.mark.parametrize("p, q", [(0.75, 0.25), (0.9, 0.3), (0.2, 0.7)])
def test_gradient_matches_finite_differences_of_the_loglik(p, q):
    rng = np.random.default_rng(1)
    x, y = _data(rng)
    beta = np.array([0.3, -0.7, 1.1])
    _, gradient, _ = loglik_gradient_hessian(beta, x, y, p, q)
    h = 1e-6
    numeric = np.array(
        [
            (
                loglik_gradient_hessian(beta + h * e, x, y, p, q)[0]
                - loglik_gradient_hessian(beta - h * e, x, y, p, q)[0]
            )
            / (2 * h)
            for e in np.eye(3)
        ]
    )
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("p, q", [(0.75, 0.25), (0.9, 0.3), (0.2, 0.7)])
def test_hessian_matches_finite_differences_of_the_gradient(p, q):
    rng = np.random.default_rng(2)
    x, y = _data(rng)
    beta = np.array([-0.2, 0.5, -1.4])
    _, _, hessian = loglik_gradient_hessian(beta, x, y, p, q)
    h = 1e-6
    numeric = np.column_stack(
        [
            (
                loglik_gradient_hessian(beta + h * e, x, y, p, q)[1]
                - loglik_gradient_hessian(beta - h * e, x, y, p, q)[1]
            )
            / (2 * h)
            for e in np.eye(3)
        ]
    )
    np.testing.assert_allclose(hessian, numeric, rtol=1e-5, atol=1e-5)


def test_saturated_two_group_fit_reproduces_the_hand_computed_debiased_shares():
    # Design (t, a, b) = (3/5, 1/5, 1/5): p = 4/5, q = 1/5.  Group 0 says yes
    # 2 times in 4, group 1 3 times in 4, so the debiased shares are
    # (1/2 − 1/5)/(3/5) = 1/2 and (3/4 − 1/5)/(3/5) = 11/12.
    mechanism = ldp.build(
        {
            "mechanism": "forced_response",
            "design": {"truthful": "3/5", "forced_yes": "1/5", "forced_no": "1/5"},
        }
    )
    design = ldp.design_matrix(
        {"g": ["a", "a", "a", "a", "b", "b", "b", "b"]}, categorical={"g": "a"}
    )
    fit = ldp.logistic_regression([1, 0, 0, 1, 1, 1, 1, 0], design, mechanism)
    assert fit.names == ("(Intercept)", "g[b]")
    np.testing.assert_allclose(fit.coef, [0.0, np.log(11)], atol=1e-8)
    # Saturated: I = Σ_g n_g d_g²/(λ_g(1 − λ_g)) per group, d_g = (p − q)σ(1 − σ).
    var0 = 0.5 * 0.5 / (4 * (0.6 * 0.25) ** 2)
    s1 = 11 / 12
    var1 = 0.75 * 0.25 / (4 * (0.6 * s1 * (1 - s1)) ** 2)
    np.testing.assert_allclose(
        fit.standard_error, np.sqrt([var0, var0 + var1]), rtol=1e-6
    )
    assert fit.odds_ratios().column("odds_ratio")[1] == pytest.approx(11.0)


def test_intercept_only_fit_is_the_logit_of_the_debiased_share():
    y = np.array([1] * 60 + [0] * 40)
    fit = ldp.logistic_regression(y, np.ones((100, 1)), p=0.75, q=0.25)
    share = (0.6 - 0.25) / 0.5
    assert fit.coef[0] == pytest.approx(special.logit(share), abs=1e-8)
    delta_se = np.sqrt(0.6 * 0.4 / (100 * 0.25)) / (share * (1 - share))
    assert fit.standard_error[0] == pytest.approx(delta_se, rel=1e-6)


def test_p_one_q_zero_is_ordinary_logistic_regression():
    rng = np.random.default_rng(4)
    x = np.column_stack([np.ones(500), rng.normal(size=500)])
    y = (rng.random(500) < special.expit(x @ [0.2, 1.0])).astype(int)
    fit = ldp.logistic_regression(y, x, p=1.0, q=0.0)
    # Newton's method on the ordinary logit score equations, written out here.
    beta = np.zeros(2)
    for _ in range(50):
        mu = special.expit(x @ beta)
        beta = beta + np.linalg.solve(
            x.T @ (x * (mu * (1 - mu))[:, None]), x.T @ (y - mu)
        )
    np.testing.assert_allclose(fit.coef, beta, atol=1e-7)
    mu = special.expit(x @ beta)
    se = np.sqrt(np.diag(np.linalg.inv(x.T @ (x * (mu * (1 - mu))[:, None]))))
    np.testing.assert_allclose(fit.standard_error, se, rtol=1e-6)


def test_likelihood_ratio_test_compares_with_the_closed_form_null_model():
    rng = np.random.default_rng(5)
    coin = ldp.build({"mechanism": "forced_response", "design": COIN})
    z = rng.normal(size=3000)
    truth = (rng.random(3000) < special.expit(-0.3 + 0.8 * z)).astype(int)
    reports = coin.randomize(truth, rng)
    fit = ldp.logistic_regression(
        reports, ldp.design_matrix({"z": z}, numeric=["z"]), coin
    )
    null = ldp.logistic_regression(reports, np.ones((3000, 1)), coin)
    test = fit.likelihood_ratio_test()
    assert test.df == 1
    assert fit.null_loglik == pytest.approx(null.loglik, abs=1e-8)
    assert test.statistic == pytest.approx(2 * (fit.loglik - null.loglik))
    assert test.pvalue < 1e-6


def test_warner_mechanism_supplies_its_channel():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    rng = np.random.default_rng(6)
    reports = warner.randomize(rng.integers(0, 2, 200), rng)
    fit = ldp.logistic_regression(reports, np.ones((200, 1)), warner)
    assert (fit.p, fit.q) == (float(warner.p_star[1]), float(warner.q_star[1]))
    assert fit.mechanism == "warner"


def test_summary_and_to_dict_carry_every_coefficient_and_diagnostic():
    design = np.column_stack([np.ones(8), [0, 0, 0, 0, 1, 1, 1, 1]])
    fit = ldp.logistic_regression(
        [1, 0, 0, 1, 1, 1, 1, 0], design, p=0.8, q=0.2, names=["(Intercept)", "g"]
    )
    table = fit.summary(0.9)
    assert table.column("term") == ["(Intercept)", "g"]
    ci = fit.confidence_interval(0.9)
    assert table.column("ci_low") == pytest.approx(list(ci.low))
    assert table.column("or_high") == pytest.approx(list(np.exp(ci.high)))
    record = fit.to_dict(0.9)
    assert record["coefficients"] == table.to_records()
    assert record["lr_test"]["df"] == 1
    assert record["gradient_norm"] < 1e-8
    assert record["min_information_eigenvalue"] > 0


def test_equal_p_and_q_is_refused_as_not_identifiable():
    with pytest.raises(ldp.NotIdentifiable, match="p = q"):
        ldp.logistic_regression([0, 1, 1], np.ones((3, 1)), p=0.4, q=0.4)


def test_rank_deficient_design_names_the_redundant_column():
    design = ldp.DesignMatrix(
        np.column_stack([np.ones(6), [0, 1, 0, 1, 0, 1], [0, 2, 0, 2, 0, 2]]),
        ("(Intercept)", "a", "twice_a"),
    )
    with pytest.raises(ValueError, match="column 'twice_a' is a linear combination"):
        ldp.logistic_regression([0, 1, 1, 0, 1, 0], design, p=0.75, q=0.25)


def test_group_whose_debiased_share_is_below_zero_is_not_identifiable():
    # Group b says yes 1 time in 8 < q = 1/4: its share is negative, β → −∞.
    design = ldp.design_matrix({"g": ["a"] * 8 + ["b"] * 8}, categorical={"g": "a"})
    group_a = [1, 0, 1, 1, 0, 1, 0, 1]
    group_b = [1, 0, 0, 0, 0, 0, 0, 0]
    reports = [*group_a, *group_b]
    with pytest.raises(ldp.NotIdentifiable, match="exactly 0 or 1"):
        ldp.logistic_regression(reports, design, p=0.75, q=0.25)


def test_reports_other_than_zero_or_one_are_refused():
    with pytest.raises(ValueError, match="0 \\(no\\) or 1 \\(yes\\)"):
        ldp.logistic_regression([0, 2, 1], np.ones((3, 1)), p=0.75, q=0.25)


def test_reports_of_another_length_than_the_design_are_refused():
    with pytest.raises(ValueError, match="one 0/1 value per design row"):
        ldp.logistic_regression([0, 1], np.ones((3, 1)), p=0.75, q=0.25)


def test_a_mechanism_that_is_not_binary_is_refused():
    grr = ldp.build({"mechanism": "grr", "k": 3, "epsilon": 1.0})
    with pytest.raises(ValueError, match="allowed: a binary mechanism"):
        ldp.logistic_regression([0, 1, 1], np.ones((3, 1)), grr)


def test_giving_both_a_mechanism_and_p_q_is_refused():
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    with pytest.raises(ValueError, match="not both"):
        ldp.logistic_regression([0, 1, 1], np.ones((3, 1)), warner, p=0.7, q=0.3)


def test_a_fit_that_runs_out_of_iterations_raises_a_convergence_error(monkeypatch):
    monkeypatch.setattr("ldp.regression.logistic.ITERATIONS_MAX", 1)
    rng = np.random.default_rng(8)
    x = np.column_stack([np.ones(2000), rng.normal(size=2000)])
    y = (rng.random(2000) < special.expit(x @ [1.5, 2.5])).astype(int)
    with pytest.raises(ldp.ConvergenceError, match="did not converge after 1"):
        ldp.logistic_regression(y, x, p=0.9, q=0.1)
