"""Privacy accounting: exact ε, privacy profiles, trade-off curves, composition.

Everything operates on finite channels ``Q[x, y] = P(report y | true answer x)``
(rows sum to 1) or on the integer weights the browser samples from, with
numpy and scipy only.

Modules
-------
channels
    Pure ε (float and exact), privacy profile δ(ε).
tradeoff
    Trade-off functions (f-DP) and the dominating pair of a channel.
gaussian
    Gaussian DP: ``G_μ``, δ(ε) of μ-GDP, μ of a channel, composition.
pld
    Numerical composition of privacy loss distributions (upper bounds).
composition
    Sequential, advanced and heterogeneous composition; a survey's total.
wording
    ε in plain language for respondents.
"""

from ldp.accounting.channels import (
    float_up,
    privacy_profile,
    pure_epsilon,
    pure_epsilon_exact,
)
from ldp.accounting.composition import (
    SurveyPrivacy,
    advanced_composition,
    group_epsilon,
    heterogeneous_advanced_composition,
    sequential_composition,
    survey_privacy,
)
from ldp.accounting.gaussian import (
    gaussian_dp_mu,
    gdp_composition,
    gdp_delta,
    gdp_mu_from_sigma,
    gdp_tradeoff,
    group_mu,
)
from ldp.accounting.pld import (
    PrivacyLossDistribution,
    compose_pld,
    pld_epsilon,
    privacy_loss_distribution,
)
from ldp.accounting.tradeoff import (
    DominatingPair,
    dominating_pair,
    epsilon_dp_tradeoff,
    tradeoff_curve,
)
from ldp.accounting.wording import describe_epsilon, describe_epsilon_short

__all__ = [
    "DominatingPair",
    "PrivacyLossDistribution",
    "SurveyPrivacy",
    "advanced_composition",
    "compose_pld",
    "describe_epsilon",
    "describe_epsilon_short",
    "dominating_pair",
    "epsilon_dp_tradeoff",
    "float_up",
    "gaussian_dp_mu",
    "gdp_composition",
    "gdp_delta",
    "gdp_mu_from_sigma",
    "gdp_tradeoff",
    "group_epsilon",
    "group_mu",
    "heterogeneous_advanced_composition",
    "pld_epsilon",
    "privacy_loss_distribution",
    "privacy_profile",
    "pure_epsilon",
    "pure_epsilon_exact",
    "sequential_composition",
    "survey_privacy",
    "tradeoff_curve",
]
