"""Privacy accounting: exact ε, δ(ε), trade-off curves, composition, wording."""

from __future__ import annotations

import itertools
import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

from ldp.accounting import (
    advanced_composition,
    compose_pld,
    describe_epsilon,
    describe_epsilon_short,
    dominating_pair,
    epsilon_dp_tradeoff,
    float_up,
    gaussian_dp_mu,
    gdp_composition,
    gdp_delta,
    gdp_mu_from_sigma,
    gdp_tradeoff,
    group_epsilon,
    group_mu,
    heterogeneous_advanced_composition,
    pld_epsilon,
    privacy_loss_distribution,
    privacy_profile,
    pure_epsilon,
    pure_epsilon_exact,
    sequential_composition,
    survey_privacy,
    tradeoff_curve,
)

LN3 = math.log(3)
COIN = [[3 / 4, 1 / 4], [1 / 4, 3 / 4]]  # flip a coin; tails: truth; heads: flip again


def rr(epsilon: float) -> np.ndarray:
    """Binary symmetric randomized response at ε."""
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    return np.array([[p, 1 - p], [1 - p, p]])


def grr(k: int, epsilon: float) -> np.ndarray:
    """k-ary randomized response at ε."""
    q = 1 / (math.exp(epsilon) + k - 1)
    return np.full((k, k), q) + np.eye(k) * (math.exp(epsilon) * q - q)


def product_channel(channels: list[np.ndarray]) -> np.ndarray:
    """Joint channel of independent questions: Kronecker product."""
    joint = np.ones((1, 1))
    for channel in channels:
        joint = np.kron(joint, channel)
    return joint


def exact_ln(numerator: int, denominator: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 90
        return (Decimal(numerator) / Decimal(denominator)).ln()


# --- pure ε -------------------------------------------------------------------


def test_coin_design_channel_has_epsilon_ln3():
    assert pure_epsilon(COIN) == pytest.approx(LN3, rel=1e-15)


def test_exact_epsilon_of_coin_weights_is_ln3_rounded_up_to_60_digits():
    value = pure_epsilon_exact([[3, 1], [1, 3]])
    truth = exact_ln(3, 1)
    assert value >= truth
    assert value - truth < Decimal("1e-58")
    assert len(value.as_tuple().digits) == 60


def test_exact_epsilon_of_small_integer_channel_uses_the_worst_column():
    # rows [3, 1]/4 and [1, 1]/2: column ratios 0.75/0.5 = 1.5 and 0.5/0.25 = 2
    value = pure_epsilon_exact([[3, 1], [1, 1]])
    assert value >= exact_ln(2, 1)
    assert value - exact_ln(2, 1) < Decimal("1e-58")


def test_exact_epsilon_of_unequal_rows_with_three_outputs():
    # rows /8: col0 5/1, col1 4/2, col2 4/1 -> ln 5
    weights = np.array([[5, 2, 1], [1, 4, 3], [2, 2, 4]])
    value = pure_epsilon_exact(weights)
    assert Decimal(0) <= value - exact_ln(5, 1) < Decimal("1e-58")
    assert pure_epsilon(weights / 8) == pytest.approx(math.log(5), rel=1e-14)


def test_exact_epsilon_converted_to_float_is_never_below_it():
    for weights in ([[3, 1], [1, 3]], [[7, 2, 1], [1, 5, 4]], [[2**31, 1], [1, 2**31]]):
        value = pure_epsilon_exact(weights)
        assert Decimal(float_up(value)) >= value
        assert float_up(value) - float(value) <= math.ulp(float(value))


def test_identical_rows_have_exact_epsilon_zero():
    assert pure_epsilon_exact([[2, 5], [4, 10]]) == 0
    assert pure_epsilon([[0.3, 0.7], [0.3, 0.7]]) == 0


def test_hole_gives_infinite_epsilon():
    hole = [[1 / 2, 1 / 2], [1, 0]]
    assert pure_epsilon(hole) == math.inf
    assert pure_epsilon_exact([[1, 1], [2, 0]]) == Decimal("Infinity")


def test_column_of_zeros_is_not_a_hole():
    assert pure_epsilon([[3 / 4, 1 / 4, 0], [1 / 4, 3 / 4, 0]]) == pytest.approx(LN3)


def test_rejects_a_channel_whose_rows_do_not_sum_to_one():
    with pytest.raises(ValueError, match="sum to 1"):
        pure_epsilon([[0.5, 0.4], [0.5, 0.5]])


def test_rejects_float_weights_for_exact_epsilon():
    with pytest.raises(ValueError, match="integers"):
        pure_epsilon_exact([[0.5, 1], [1, 1]])


# --- composition --------------------------------------------------------------


def test_sequential_composition_sums_the_question_epsilons():
    assert sequential_composition([LN3, 0.5, 1.0]) == pytest.approx(LN3 + 1.5)
    assert sequential_composition([0.1] * 10) == 1.0
    assert sequential_composition([]) == 0.0
    assert sequential_composition([1.0, math.inf]) == math.inf


def test_sequential_composition_is_tight_for_the_product_of_rr_channels():
    assert pure_epsilon(product_channel([rr(LN3), rr(0.5)])) == pytest.approx(
        sequential_composition([LN3, 0.5])
    )


def test_advanced_composition_matches_the_formula_at_sample_values():
    # ε = 0.1, m = 100, δ' = 1e-6:
    # ln(1/δ') = 13.815510557964274; sqrt(2·100·13.8155...) = 52.56521769756932
    # ε·52.565... = 5.256521769756932; m ε (e^ε − 1) = 10·0.10517... = 1.05170918
    assert advanced_composition(0.1, 100, 1e-6) == pytest.approx(6.308230950513408)
    # ε = 0.5, m = 10, δ' = 1e-5: 0.5·15.174271293851463 + 5·0.6487212707001282
    assert advanced_composition(0.5, 10, 1e-5) == pytest.approx(10.830742000426373)
    assert advanced_composition(1.0, 0, 1e-6) == 0.0


def test_heterogeneous_advanced_composition_matches_kov_at_sample_values():
    # 100 × ε = 0.1: D = 100·0.1·tanh(0.05) = 0.49958374957879975, V = 1,
    # D + sqrt(2·1·ln(1e6)) = 0.4995837... + 5.256521769756932
    assert heterogeneous_advanced_composition([0.1] * 100, 1e-6) == pytest.approx(
        5.756105519335732
    )
    assert heterogeneous_advanced_composition([0.1] * 100, 1e-6) < (
        advanced_composition(0.1, 100, 1e-6)
    )


def test_heterogeneous_advanced_composition_never_exceeds_the_sum():
    epsilons = [LN3, 2.0, 0.5]
    assert heterogeneous_advanced_composition(epsilons, 1e-6) == pytest.approx(
        sequential_composition(epsilons)
    )


def test_group_privacy_multiplies_by_group_size():
    assert group_epsilon(0.5, 3) == pytest.approx(1.5)
    assert group_mu(0.5, 4) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="group size"):
        group_epsilon(0.5, 0)


# --- privacy profile ----------------------------------------------------------

SMALL = [[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]]


def test_privacy_profile_of_small_channel_matches_hand_computation():
    # e^ε = 2, Σ_y max(0, Q[x,y] − 2 Q[x',y]) per ordered pair:
    #   (0,1): .5−.4=.1, .3−.6<0, .2−1.0<0 -> .1     (1,0): .5−.4=.1 in y2 -> .1
    #   (0,2): .5−.8, .3−.8, .2−.4 all <0 -> 0       (2,0): .4−1, .4−.6, .2−.4 -> 0
    #   (1,2): .5−.4 = .1 -> .1                      (2,1): .4−.4 = 0 -> 0
    # δ(ln 2) = .1
    # e^ε = 1.25:
    #   (0,1): .5−.25 = .25 -> .25                   (1,0): .5−.25 = .25 -> .25
    #   (0,2): .5−.5 = 0 -> 0                        (2,0): .4−.375 = .025 -> .025
    #   (1,2): .5−.25 = .25 -> .25                   (2,1): .15 + .025 = .175
    # δ(ln 1.25) = .25
    # e^ε = 1: largest total-variation distance, TV(0,1) = (.3+0+.3)/2 = .3
    # e^ε = 2.5 = ε(Q) (columns .5/.2, .4/.3, .5/.2): δ = 0
    got = privacy_profile(SMALL, [math.log(2), math.log(1.25), 0.0, math.log(2.5)])
    assert got == pytest.approx([0.1, 0.25, 0.3, 0.0], abs=1e-12)


def total_variation(channel: np.ndarray) -> float:
    rows = np.asarray(channel)
    return max(0.5 * np.abs(a - b).sum() for a, b in itertools.combinations(rows, 2))


@pytest.mark.parametrize(
    "channel", [COIN, SMALL, grr(5, 1.0), [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]]
)
def test_delta_is_zero_at_pure_epsilon_and_total_variation_at_zero(channel):
    eps = pure_epsilon(channel)
    assert privacy_profile(channel, eps)[()] == pytest.approx(0.0, abs=1e-12)
    assert privacy_profile(channel, 0.0)[()] == pytest.approx(total_variation(channel))


def test_privacy_profile_of_hole_stays_positive_at_infinity():
    # output 1 is impossible under answer 1: P(y=1 | x=0) = 1/2 is never hidden
    assert privacy_profile([[1 / 2, 1 / 2], [1, 0]], [5.0, math.inf]) == (
        pytest.approx([0.5, 0.5])
    )


def test_privacy_profile_keeps_the_shape_of_epsilons():
    assert privacy_profile(COIN, np.zeros((2, 3))).shape == (2, 3)


# --- trade-off curves ---------------------------------------------------------

ALPHAS = np.array([0.0, 0.01, 0.1, 0.2, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0])


@pytest.mark.parametrize("epsilon", [0.25, 1.0, LN3, 3.0])
def test_tradeoff_curve_of_binary_rr_equals_epsilon_dp_tradeoff(epsilon):
    expected = np.maximum(
        0, np.maximum(1 - math.exp(epsilon) * ALPHAS, math.exp(-epsilon) * (1 - ALPHAS))
    )
    assert tradeoff_curve(rr(epsilon), ALPHAS) == pytest.approx(expected, abs=1e-12)
    assert epsilon_dp_tradeoff(epsilon, ALPHAS) == pytest.approx(expected, abs=1e-15)


def test_tradeoff_curve_of_coin_design_by_neyman_pearson():
    # reject on the report favoured by x': type I 1/4, type II 1/4; randomize in
    # between: T(α) = 1 − 3α on [0, 1/4], (1 − α)/3 on [1/4, 1]
    assert tradeoff_curve(COIN, [0.1, 0.25, 0.4]) == pytest.approx([0.7, 0.25, 0.2])


def test_tradeoff_curve_of_a_hole_starts_below_one():
    # answer 1 never reports output 1: seeing it rejects x = 1 at no type-I cost.
    # null x = 0: (0, 1) -> (1/2, 0) -> (1, 0); null x = 1: (0, 1/2) -> (1, 0)
    hole = [[1 / 2, 1 / 2], [1, 0]]
    assert tradeoff_curve(hole, [0, 0.25, 0.5, 1]) == pytest.approx([0.5, 0.25, 0, 0])
    assert tradeoff_curve(hole, [0.25], convex=False) == pytest.approx([0.375])


def test_pointwise_minimum_over_pairs_can_be_non_convex_while_envelope_is_convex():
    weights = np.array([[3, 3, 4], [5, 1, 1], [5, 5, 2]], dtype=float)
    channel = weights / weights.sum(axis=1, keepdims=True)
    grid = np.linspace(0, 1, 1001)
    minimum = tradeoff_curve(channel, grid, convex=False)
    envelope = tradeoff_curve(channel, grid)
    assert np.min(np.diff(minimum, 2)) < -1e-6
    assert np.min(np.diff(envelope, 2)) > -1e-12
    assert np.all(envelope <= minimum + 1e-12)


def test_dominating_pair_has_the_privacy_profile_of_its_channel():
    for channel in (SMALL, grr(4, 0.7), [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]]):
        pair = dominating_pair(channel)
        eps = np.linspace(-1.0, 3.0, 17)
        hockey = [
            np.maximum(0, pair.alternative - math.exp(e) * pair.null).sum() for e in eps
        ]
        assert hockey == pytest.approx(privacy_profile(channel, eps), abs=1e-12)


# --- Gaussian DP --------------------------------------------------------------


def test_gdp_tradeoff_is_the_gaussian_formula():
    assert gdp_tradeoff(0.0, ALPHAS) == pytest.approx(1 - ALPHAS)
    expected = norm.cdf(norm.ppf(1 - ALPHAS) - 1.5)
    assert gdp_tradeoff(1.5, ALPHAS) == pytest.approx(expected, abs=1e-15)


def hockey_stick_of_gaussians(mu: float, epsilon: float) -> float:
    """∫ max(0, φ(x − μ) − e^ε φ(x)) dx by quadrature."""
    crossing = epsilon / mu + mu / 2

    def integrand(x: float) -> float:
        return max(0.0, norm.pdf(x - mu) - math.exp(epsilon) * norm.pdf(x))

    value, _ = integrate.quad(integrand, crossing, crossing + 40, epsabs=1e-14)
    return value


@pytest.mark.parametrize(
    ("mu", "epsilon"), [(0.5, 0.0), (1.0, 0.5), (1.0, 2.0), (2.0, 1.0), (3.0, 5.0)]
)
def test_gdp_delta_matches_numerical_integration_of_gaussian_densities(mu, epsilon):
    assert gdp_delta(mu, epsilon)[()] == pytest.approx(
        hockey_stick_of_gaussians(mu, epsilon), rel=1e-7, abs=1e-13
    )


def test_gdp_delta_at_zero_is_total_variation_of_two_gaussians():
    # TV(N(0,1), N(μ,1)) = 2Φ(μ/2) − 1
    assert gdp_delta(1.0, 0.0)[()] == pytest.approx(2 * norm.cdf(0.5) - 1)
    assert gdp_delta(0.0, [0.0, 1.0]) == pytest.approx([0.0, 0.0])


def test_gdp_mu_from_sigma_is_sensitivity_over_sigma():
    assert gdp_mu_from_sigma(2.0, 4.0) == 0.5


def test_gdp_composition_is_root_sum_of_squares():
    assert gdp_composition([3.0, 4.0]) == pytest.approx(5.0)
    assert gdp_composition([0.5] * 16) == pytest.approx(2.0)
    assert gdp_composition([]) == 0.0


@pytest.mark.parametrize("epsilon", [0.5, LN3, 2.0])
def test_gaussian_dp_mu_of_rr_is_the_closed_form(epsilon):
    mu = gaussian_dp_mu(rr(epsilon))
    assert mu == pytest.approx(
        2 * norm.ppf(math.exp(epsilon) / (1 + math.exp(epsilon)))
    )
    grid = np.linspace(0, 1, 2001)
    curve = tradeoff_curve(rr(epsilon), grid)
    assert np.all(curve >= gdp_tradeoff(mu, grid) - 1e-12)
    assert np.any(curve < gdp_tradeoff(mu * 0.999, grid))


def test_gaussian_dp_mu_is_infinite_for_a_hole_and_zero_for_identical_rows():
    assert gaussian_dp_mu([[1 / 2, 1 / 2], [1, 0]]) == math.inf
    assert gaussian_dp_mu([[0.3, 0.7], [0.3, 0.7]]) == pytest.approx(0.0, abs=1e-12)


# --- privacy loss distributions -------------------------------------------------

EPS_GRID = np.array([0.0, 0.3, 0.8, 1.5, 2.5, 3.5])


@pytest.mark.parametrize("m", [1, 2, 3, 5])
@pytest.mark.parametrize("epsilon", [0.5, LN3])
def test_pld_composition_of_rr_brackets_the_exact_product_channel(m, epsilon):
    step = 1e-3
    joint = product_channel([rr(epsilon)] * m)
    got = compose_pld([rr(epsilon)] * m, EPS_GRID, grid_step=step)
    exact = privacy_profile(joint, EPS_GRID)
    shifted = privacy_profile(joint, EPS_GRID - m * step * (1 + 1e-9))
    assert np.all(got >= exact - 1e-12)
    assert np.all(got <= shifted + 1e-12)


def test_pld_composition_of_mixed_channels_brackets_the_exact_product_channel():
    channels = [rr(LN3), grr(3, 1.0), rr(0.5)]
    step = 1e-3
    joint = product_channel(channels)
    got = compose_pld(channels, EPS_GRID, grid_step=step)
    assert np.all(got >= privacy_profile(joint, EPS_GRID) - 1e-12)
    assert np.all(got <= privacy_profile(joint, EPS_GRID - 3 * step * 1.000001) + 1e-12)


def test_pld_accepts_a_number_as_the_worst_mechanism_with_that_epsilon():
    assert compose_pld([LN3, LN3], EPS_GRID) == pytest.approx(
        compose_pld([COIN, COIN], EPS_GRID)
    )


def test_pld_epsilon_is_an_upper_bound_at_its_delta():
    channels = [rr(0.5)] * 6
    epsilon = pld_epsilon(channels, 1e-3, grid_step=1e-3)
    assert privacy_profile(product_channel(channels), epsilon)[()] <= 1e-3
    assert epsilon < sequential_composition([0.5] * 6)


def test_pld_of_a_hole_carries_infinite_loss_mass():
    pld = privacy_loss_distribution([[1 / 2, 1 / 2], [1, 0]])
    assert pld.infinity_mass == pytest.approx(0.5)
    assert pld_epsilon([[[1 / 2, 1 / 2], [1, 0]]], 1e-6) == math.inf


# --- a respondent's whole survey ------------------------------------------------


def test_survey_of_few_questions_keeps_the_sequential_total():
    result = survey_privacy([COIN, COIN, COIN])
    assert result.question_epsilons == pytest.approx((LN3,) * 3)
    assert result.sequential_epsilon == pytest.approx(3 * LN3)
    assert result.epsilon == result.sequential_epsilon
    assert result.method == "sequential"


def test_survey_of_many_small_questions_is_tighter_by_pld():
    result = survey_privacy([0.1] * 100, delta=1e-6)
    assert result.sequential_epsilon == pytest.approx(10.0)
    assert result.advanced_epsilon == pytest.approx(5.756105519335732)
    assert result.method == "pld"
    assert result.epsilon == result.pld_epsilon < result.advanced_epsilon


def test_survey_accounts_a_huge_channel_by_its_pure_epsilon(monkeypatch):
    monkeypatch.setattr("ldp.accounting.composition.PLD_CHANNEL_LIMIT", 1)
    by_channel = survey_privacy([grr(3, 0.3)] * 30)
    by_epsilon = survey_privacy([pure_epsilon(grr(3, 0.3))] * 30)
    assert by_channel.pld_epsilon == pytest.approx(by_epsilon.pld_epsilon)


def test_survey_of_many_grr_questions_uses_their_channels_not_just_epsilon():
    # a GRR channel is less leaky than the worst ε-DP mechanism with its ε
    by_channel = survey_privacy([grr(3, 0.3)] * 30)
    by_epsilon = survey_privacy([pure_epsilon(grr(3, 0.3))] * 30)
    assert by_channel.pld_epsilon <= by_epsilon.pld_epsilon


def test_survey_with_a_hole_has_infinite_epsilon():
    result = survey_privacy([COIN, [[1 / 2, 1 / 2], [1, 0]]])
    assert result.sequential_epsilon == math.inf
    assert result.epsilon == math.inf


def test_survey_rejects_delta_outside_unit_interval():
    with pytest.raises(ValueError, match="δ must lie in"):
        survey_privacy([1.0], delta=0.0)


# --- plain language -------------------------------------------------------------

PREFIX = "Someone who sees your report can at most multiply their odds on your "


@pytest.mark.parametrize(
    ("epsilon", "sentence"),
    [
        (0.1, PREFIX + "true answer by about 1.11: from 50% to at most 53%."),
        (0.5, PREFIX + "true answer by about 1.65: from 50% to at most 63%."),
        (1.0, PREFIX + "true answer by about 2.72: from 50% to at most 74%."),
        (LN3, PREFIX + "true answer by 3: from 50% to at most 75%."),
        (2.0, PREFIX + "true answer by about 7.39: from 50% to at most 89%."),
        (5.0, PREFIX + "true answer by about 148: from 50% to at most 99.4%."),
        (10.0, PREFIX + "true answer by about 22,026: from 50% to more than 99.9%."),
        (0.05, PREFIX + "true answer by about 1.05: from 50% to at most 52%."),
        (0.001, PREFIX + "true answer by about 1.001: from 50% to at most 50.1%."),
        (
            20.0,
            PREFIX + "true answer by more than 1,000,000: from 50% to more than 99.9%.",
        ),
        (math.inf, "Someone who sees your report can learn your true answer."),
        (0.0, "Someone who sees your report learns nothing about your true answer."),
    ],
)
def test_describe_epsilon_gives_the_exact_sentence(epsilon, sentence):
    assert describe_epsilon(epsilon) == sentence


def test_describe_epsilon_uses_the_prior():
    # 3·0.1 / (0.9 + 3·0.1) = 0.25
    assert describe_epsilon(LN3, prior=0.1) == (
        PREFIX + "true answer by 3: from 10% to at most 25%."
    )


@given(
    epsilon=st.floats(min_value=1e-6, max_value=6.9),
    prior=st.floats(min_value=0.01, max_value=0.99),
)
def test_describe_epsilon_never_understates_the_posterior(epsilon, prior):
    sentence = describe_epsilon(epsilon, prior=prior)
    posterior = (
        100 * math.exp(epsilon) * prior / (1 - prior + math.exp(epsilon) * prior)
    )
    shown = sentence.rsplit(" ", 1)[1].rstrip("%.")
    if "more than" in sentence.rsplit(":", 1)[1]:
        assert posterior > float(shown)
    else:
        assert float(shown) >= posterior - 1e-9


@pytest.mark.parametrize(
    ("epsilon", "label"),
    [
        (0.0, "strong protection"),
        (1.0, "strong protection"),
        (LN3, "moderate protection"),
        (3.0, "moderate protection"),
        (3.01, "weak protection"),
        (10.0, "weak protection"),
        (math.inf, "no protection"),
    ],
)
def test_describe_epsilon_short_labels_by_documented_thresholds(epsilon, label):
    assert describe_epsilon_short(epsilon) == label


# --- properties -----------------------------------------------------------------


@st.composite
def channels(draw: st.DrawFn) -> np.ndarray:
    k = draw(st.integers(min_value=2, max_value=4))
    m = draw(st.integers(min_value=2, max_value=5))
    row = st.lists(st.integers(0, 20), min_size=m, max_size=m).filter(any)
    weights = np.array(draw(st.lists(row, min_size=k, max_size=k)), dtype=float)
    return weights / weights.sum(axis=1, keepdims=True)


@settings(deadline=None, max_examples=60)
@given(channel=channels())
def test_privacy_profile_is_non_increasing_and_within_unit_interval(channel):
    eps = np.linspace(-2.0, 8.0, 81)
    delta = privacy_profile(channel, eps)
    assert np.all((delta >= 0) & (delta <= 1))
    assert np.all(np.diff(delta) <= 1e-12)


@settings(deadline=None, max_examples=60)
@given(channel=channels())
def test_tradeoff_curve_is_convex_non_increasing_and_below_the_diagonal(channel):
    grid = np.linspace(0, 1, 201)
    curve = tradeoff_curve(channel, grid)
    assert np.all(np.diff(curve) <= 1e-12)
    assert np.all(np.diff(curve, 2) >= -1e-12)
    assert np.all(curve <= 1 - grid + 1e-12)


@settings(deadline=None, max_examples=40)
@given(channel=channels())
def test_tradeoff_curve_lies_above_epsilon_dp_tradeoff_of_its_pure_epsilon(channel):
    epsilon = pure_epsilon(channel)
    grid = np.linspace(0, 1, 101)
    if math.isfinite(epsilon):
        bound = epsilon_dp_tradeoff(epsilon, grid)
        assert np.all(tradeoff_curve(channel, grid) >= bound - 1e-12)
    else:
        assert privacy_profile(channel, 50.0)[()] > 0


@settings(deadline=None, max_examples=30)
@given(first=channels(), second=channels())
def test_pld_composition_never_understates_the_exact_product_channel(first, second):
    eps = np.array([0.0, 0.5, 1.0, 2.0, 4.0])
    exact = privacy_profile(product_channel([first, second]), eps)
    assert np.all(compose_pld([first, second], eps, grid_step=1e-3) >= exact - 1e-12)
