"""What each mechanism means to researchers, in one place.

One ``MechanismInfo`` per mechanism name of the ldp spec keeps together what the
builder, the dashboard and the exports say about it: its label, the question
kinds that may use it, what its headline estimate is (shares of answers or the
mean answer) and its plain-words description, written from the compiled
integer weights.  The order of ``CATALOGUE`` is the order mechanisms are
offered in.  What respondents are told lives on the respondent side
(``surveys.collection.respondent_words``), never here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

# Labels are marked for the catalogs (gettext_noop) and kept in English: what
# exports and the API carry; a page shows them translated (mechanism_label_shown).
from django.utils.translation import gettext, gettext_noop

import ldp

SHARE, MEAN = "share", "mean"
Estimate = Literal["share", "mean"]

YES_NO, SINGLE_CHOICE, ORDINAL = "yes_no", "single_choice", "ordinal"
NUMERIC, MULTI_SELECT = "numeric", "multi_select"


@dataclass(frozen=True)
class MechanismInfo:
    """One mechanism as researchers see it."""

    name: str
    label: str
    kinds: tuple[str, ...]
    describe: Callable[[ldp.Mechanism], str]
    # SHARE: the estimate is each answer's share; MEAN: the mean answer.
    estimate: Estimate = SHARE
    # True when the reports identify the mean answer and nothing else about the
    # answers' distribution (no median, no shares in bins): Duchi et al.'s.
    mean_only: bool = False


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _words(text: str) -> Callable[[ldp.Mechanism], str]:
    """A description that does not depend on the compiled weights."""

    def describe(mechanism: ldp.Mechanism) -> str:
        return text

    return describe


def _warner(mechanism: ldp.Mechanism) -> str:
    w = mechanism.weights
    keep = w["keep"] / (w["keep"] + w["flip"])
    return (
        f"Each respondent's device keeps the true answer with probability "
        f"{_percent(keep)} and reports the opposite otherwise (Warner's "
        "randomized response)."
    )


def _forced_response(mechanism: ldp.Mechanism) -> str:
    w = mechanism.weights
    total = w["truthful"] + w["forced_yes"] + w["forced_no"]
    return (
        f"The device sends the true answer with probability "
        f'{_percent(w["truthful"] / total)}, a forced "yes" with '
        f'{_percent(w["forced_yes"] / total)} and a forced "no" with '
        f"{_percent(w['forced_no'] / total)} (forced response)."
    )


def _grr(mechanism: ldp.Mechanism) -> str:
    p = float(mechanism.p_star[0])
    return (
        f"The device reports the true option with probability {_percent(p)}, "
        f"otherwise one of the other {mechanism.k - 1} options at random "
        "(generalized randomized response)."
    )


def _unary(mechanism: ldp.Mechanism) -> str:
    p, q = float(mechanism.p_star[0]), float(mechanism.q_star[0])
    return (
        f"The device sends one randomly flipped bit per option: the chosen "
        f"option's bit is on with probability {_percent(p)}, every other "
        f"option's bit with {_percent(q)} "
        f"({mechanism_label(mechanism.name).lower()})."
    )


def _olh(mechanism: ldp.Mechanism) -> str:
    return (
        f"The device hashes the answer into {mechanism.weights['g']} buckets with "
        "a random hash and reports a randomized bucket (optimized local hashing: "
        "short reports for many options)."
    )


def _multi_rr(mechanism: ldp.Mechanism) -> str:
    return (
        f"The device randomizes the tick of each of the {mechanism.k} options "
        f"separately, spending 1/{mechanism.k} of the question's ε on each "
        "(randomized response per option)."
    )


def _padding_sampling(mechanism: ldp.Mechanism) -> str:
    ell = mechanism.spec["ell"]
    return (
        f"The device pads the ticked options to {ell} slots, picks one slot at "
        f"random and reports it with randomized response over {mechanism.k + ell} "
        "items (padding and sampling: one short report)."
    )


CHOICE = (SINGLE_CHOICE, ORDINAL)  # a scale's levels may be treated as categories

CATALOGUE: dict[str, MechanismInfo] = {
    info.name: info
    for info in (
        MechanismInfo(
            "warner", gettext_noop("Warner randomized response"), (YES_NO,), _warner
        ),
        MechanismInfo(
            "forced_response",
            gettext_noop("Forced response"),
            (YES_NO,),
            _forced_response,
        ),
        MechanismInfo(
            "ordinal",
            gettext_noop("Order-aware exponential mechanism"),
            (ORDINAL,),
            _words(
                "The device reports a level near the true one, nearer levels being "
                "more likely (order-aware exponential mechanism)."
            ),
            estimate=MEAN,
        ),
        MechanismInfo(
            "grr", gettext_noop("Generalized randomized response"), CHOICE, _grr
        ),
        MechanismInfo("oue", gettext_noop("Optimized unary encoding"), CHOICE, _unary),
        MechanismInfo("olh", gettext_noop("Optimized local hashing"), CHOICE, _olh),
        MechanismInfo(
            "hadamard",
            gettext_noop("Hadamard response"),
            CHOICE,
            _words(
                "The device reports one randomized bit of a Hadamard code of the "
                "answer (Hadamard response: fastest to analyse for many options)."
            ),
        ),
        MechanismInfo(
            "sue",
            gettext_noop("Symmetric unary encoding (basic RAPPOR)"),
            CHOICE,
            _unary,
        ),
        MechanismInfo(
            "geometric",
            gettext_noop("Discrete Laplace (geometric)"),
            (NUMERIC,),
            _words(
                "The device shifts the number by a random number of steps, small "
                "shifts being more likely, and keeps it within the range (discrete "
                "Laplace)."
            ),
            estimate=MEAN,
        ),
        MechanismInfo(
            "piecewise",
            gettext_noop("Piecewise mechanism"),
            (NUMERIC,),
            _words(
                "The device usually reports a value close to the true number and "
                "otherwise one anywhere in a wider range (piecewise mechanism)."
            ),
            estimate=MEAN,
        ),
        MechanismInfo(
            "duchi",
            gettext_noop("Duchi et al. (binary output)"),
            (NUMERIC,),
            _words(
                "The device reports only “high” or “low”, leaning towards the end "
                "of the range nearer the true number, so the results estimate the "
                "mean only: no median and no distribution in bins, which discrete "
                "Laplace (geometric) or the piecewise mechanism would give "
                "(Duchi et al.)."
            ),
            estimate=MEAN,
            mean_only=True,
        ),
        MechanismInfo(
            "gaussian",
            gettext_noop("Discrete Gaussian"),
            (NUMERIC,),
            _words(
                "The device shifts the number by bell-shaped random noise on the "
                "grid and keeps it within the range (discrete Gaussian)."
            ),
            estimate=MEAN,
        ),
        MechanismInfo(
            "padding_sampling",
            gettext_noop("Padding and sampling"),
            (MULTI_SELECT,),
            _padding_sampling,
        ),
        MechanismInfo(
            "multi_rr",
            gettext_noop("Randomized response per option"),
            (MULTI_SELECT,),
            _multi_rr,
        ),
    )
}


def mechanism_label(name: str) -> str:
    """The mechanism's label in English (its spec name when the catalogue lacks
    it): what exports and the API carry."""
    info = CATALOGUE.get(name)
    return info.label if info else name


def mechanism_label_shown(name: str) -> str:
    """The mechanism's label in the active language, for a page (the spec name
    when the catalogue lacks it)."""
    info = CATALOGUE.get(name)
    return gettext(info.label) if info else name


def stored_label_shown(label: str) -> str:
    """A mechanism label stored in English (by a background job) in the active
    language; any other text as it is."""
    known = any(info.label == label for info in CATALOGUE.values())
    return gettext(label) if known else label


def mechanisms_for_kind(kind: str) -> tuple[str, ...]:
    """Names of the mechanisms a question of ``kind`` may use, in offer order."""
    return tuple(name for name, info in CATALOGUE.items() if kind in info.kinds)


def estimate_of(name: str) -> Estimate:
    """What the mechanism's headline estimate is: SHARE or MEAN."""
    info = CATALOGUE.get(name)
    return info.estimate if info else SHARE


# Why a mean-only mechanism's results have no distribution, and what to choose
# instead (docs/maths.md, section 11.1): the results card and the bins page.
MEAN_ONLY_REASON = (
    "How the answers are spread cannot be estimated from this question's "
    "reports. Each device sends only “high” or “low”, and how often “high” "
    "comes back depends on the mean answer alone: any two spreads of answers "
    "with the same mean give reports with exactly the same chances. So the "
    "reports estimate the mean, but no median and no shares in bins, however "
    "many people answer."
)
BINS_ALTERNATIVE = (
    "For a distribution in bins, protect the number with discrete Laplace "
    "(geometric) noise or the piecewise mechanism (the question's privacy "
    "settings). Changed after responses arrive, the question starts a new "
    "version and its results use only the reports made under the new mechanism."
)


def identifies_only_the_mean(name: str) -> bool:
    """Whether the mechanism's reports identify the mean answer and nothing else."""
    info = CATALOGUE.get(name)
    return info is not None and info.mean_only


def describe_mechanism(mechanism: ldp.Mechanism) -> str:
    """The compiled mechanism in plain words, for researchers."""
    info = CATALOGUE.get(mechanism.name)
    if info is None:
        return f"{mechanism_label(mechanism.name)}."
    return info.describe(mechanism)
