"""Kind → spec mapping: defaults, availability, and preview figures from ldp."""

import math
from decimal import Decimal
from fractions import Fraction

import pytest

import ldp
from ldp.exact import display_epsilon_significant as epsilon_text
from ldp.recommendation import recommend_multiselect
from surveys.authoring import mechanisms, previews
from surveys.authoring.mechanisms import PrivacyConfig

FOUR = ("Never", "Monthly", "Weekly", "Daily")


def test_yes_no_defaults_to_warner_at_the_requested_epsilon():
    mechanism = mechanisms.build(PrivacyConfig(kind="yes_no"))
    assert mechanism.name == "warner"
    assert mechanism.spec == ldp.build({"mechanism": "warner", "epsilon": 1.0}).spec


def test_single_choice_of_two_options_recommends_randomized_response_it_offers():
    config = PrivacyConfig(kind="single_choice", options=("Yes", "No"), epsilon=1.0)
    mechanism = mechanisms.build(config)
    assert mechanism.name == "grr"
    warner = ldp.build({"mechanism": "warner", "epsilon": 1.0})
    assert mechanism.epsilon_exact == warner.epsilon_exact


def test_forced_response_design_never_delivers_more_than_the_requested_epsilon():
    for epsilon in (0.1, 0.5, 1.0, 1.0986, 2.0, 5.0):
        config = PrivacyConfig(
            kind="yes_no", epsilon=epsilon, mechanism="forced_response"
        )
        mechanism = mechanisms.build(config)
        assert mechanism.name == "forced_response"
        assert mechanism.epsilon_exact <= Decimal(epsilon)
        design = mechanism.spec["design"]
        assert sum(Fraction(v) for v in design.values()) == 1


def test_forced_response_refuses_an_epsilon_too_small_for_a_design():
    config = PrivacyConfig(kind="yes_no", epsilon=0.001, mechanism="forced_response")
    with pytest.raises(mechanisms.MechanismError, match="too small"):
        mechanisms.build(config)


def test_single_choice_recommended_is_ldp_recommend():
    for k, epsilon in ((4, 1.0), (40, 0.5), (3, 4.0)):
        options = tuple(f"option {i}" for i in range(k))
        config = PrivacyConfig(kind="single_choice", options=options, epsilon=epsilon)
        assert mechanisms.build(config).spec == ldp.recommend(k=k, epsilon=epsilon).spec


def test_single_choice_honours_an_explicit_mechanism():
    config = PrivacyConfig(kind="single_choice", options=FOUR, mechanism="olh")
    assert mechanisms.build(config).name == "olh"


def test_mechanism_not_offered_for_the_kind_is_refused():
    config = PrivacyConfig(kind="single_choice", options=FOUR, mechanism="warner")
    with pytest.raises(mechanisms.MechanismError, match="not offered"):
        mechanisms.requested_spec(config)


def test_ordinal_recommended_is_the_order_aware_mechanism():
    config = PrivacyConfig(kind="ordinal", options=FOUR)
    assert (
        mechanisms.build(config).spec
        == ldp.build({"mechanism": "ordinal", "k": 4, "epsilon": 1.0}).spec
    )


def test_ordinal_randomized_as_categories_says_the_order_is_not_used():
    config = PrivacyConfig(kind="ordinal", options=FOUR, mechanism="grr")
    assert "order is not used" in previews.preview(config, n=100).plain_words


def test_numeric_recommended_is_ldp_recommend_numeric():
    config = PrivacyConfig(
        kind="numeric", low=Decimal(0), high=Decimal(100), step=Decimal(5)
    )
    expected = ldp.recommend_numeric(low="0", high="100", step="5", epsilon=1.0)
    assert mechanisms.build(config).spec == expected.spec


def test_numeric_preview_gives_ldps_margin_of_the_mean():
    config = PrivacyConfig(
        kind="numeric", low=Decimal(0), high=Decimal(100), step=Decimal(5)
    )
    mechanism = mechanisms.build(config)
    shown = previews.preview(config, n=500)
    assert shown.margin == ldp.mean_margin_of_error(mechanism, 500, 0.95)
    assert shown.n_for_five_points == ldp.mean_sample_size(mechanism, 5.0, 0.95)
    assert shown.margin_display.endswith("on the mean answer")


def test_preview_reports_ldp_delivered_epsilon_and_margin():
    config = PrivacyConfig(kind="single_choice", options=FOUR, epsilon=1.5)
    preview = previews.preview(config, n=800)
    mechanism = ldp.build(ldp.recommend(k=4, epsilon=1.5).spec)
    assert preview.epsilon == mechanism.epsilon
    assert preview.epsilon_display == epsilon_text(mechanism.epsilon_exact)
    assert preview.margin == ldp.margin_of_error(mechanism, 800, 0.95)


def test_preview_of_a_plain_question_has_no_epsilon_and_the_direct_margin():
    preview = previews.preview(PrivacyConfig(kind="yes_no", is_private=False), n=400)
    assert preview.is_private is False
    assert preview.epsilon == 0
    assert preview.margin == ldp.margin_of_error(None, 400, 0.95)


def test_margin_display_rounds_up():
    preview = previews.Preview(is_private=False, n=1, margin=0.04901)
    assert preview.margin_display == "±5.0 percentage points"


def test_preview_carries_the_compiled_spec_the_device_words():
    config = PrivacyConfig(kind="yes_no", epsilon=1.0986122886681098)  # ln 3
    preview = previews.preview(config, n=100)
    assert preview.spec == mechanisms.build(config).spec
    assert preview.as_json()["spec"] == preview.spec
    assert "respondent_sentence" not in preview.as_json()


def test_total_epsilon_is_the_exact_sum_rounded_up():
    total, display, exact = previews.total_epsilon([Decimal("0.1"), Decimal("0.2")])
    assert exact == Decimal("0.3")
    assert total >= 0.3
    assert display == "0.300"


def test_multi_select_recommended_is_ldp_recommend_multiselect():
    options = tuple(f"option {i}" for i in range(12))
    config = PrivacyConfig(
        kind="multi_select", options=options, epsilon=2.0, max_selections=3
    )
    expected = recommend_multiselect(k=12, epsilon=2.0, max_selections=3)
    assert mechanisms.build(config).spec == expected.spec


def test_multi_select_without_a_limit_pads_to_every_option():
    config = PrivacyConfig(
        kind="multi_select", options=FOUR, mechanism="padding_sampling"
    )
    assert mechanisms.build(config).spec["ell"] == 4


def test_multi_select_margin_uses_the_mechanisms_scaled_variance():
    options = tuple(f"option {i}" for i in range(30))
    config = PrivacyConfig(
        kind="multi_select",
        options=options,
        epsilon=2.0,
        max_selections=3,
        mechanism="padding_sampling",
    )
    mechanism = mechanisms.build(config)
    preview = previews.preview(config, n=1000)
    z = 1.959963984540054
    expected = z * math.sqrt(mechanism.worst_case_variance() / 1000)
    assert preview.margin == pytest.approx(expected, rel=1e-12)
    assert preview.epsilon == mechanism.epsilon


def test_per_option_rr_for_too_many_options_is_refused_with_ldps_reason():
    options = tuple(f"option {i}" for i in range(80))
    config = PrivacyConfig(kind="multi_select", options=options, mechanism="multi_rr")
    with pytest.raises(mechanisms.MechanismError, match="cannot be compiled"):
        mechanisms.build(config)
