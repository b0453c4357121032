"""The statistical ε audit of the browser randomizer, shared by every runtime.

The audit runs in two places: Node (``tests/ldp/test_js_audit.py``, the
module from disk, and its mutants) and headless Chromium
(``tests/surveys/collection/test_browser_audit.py``, the module exactly as the
app serves it).  Both draw reports with the same counting code,
``tests/js/audit_counts.mjs``, from the same specs and inputs below, and both
judge the counts with :func:`evaluate` here, so a figure from one runtime means
the same as a figure from the other.

For each audit spec and each input x, the runtime draws N reports with real
``crypto.getRandomValues`` randomness and returns outcome counts.  For every
ordered input pair (x, x') and event S fixed in advance from the claimed spec,

    ε_lb = max ln( CP_lower(count_x(S), N) / CP_upper(count_x'(S), N) )

with one-sided Clopper–Pearson bounds (the exact binomial interval: the lower
bound is the α-quantile of Beta(c, N − c + 1), the upper bound the
(1 − α)-quantile of Beta(c + 1, N − c)), α = 0.05 split by Bonferroni over
every test of the run, is a valid lower bound on the module's true ε: with
probability at least 1 − α every interval holds at once, and then
P(S | x)/P(S | x') ≥ CP_lower/CP_upper ≤ e^ε for an ε-LDP channel.  Gates:

- ``over-claim``: ε_lb <= delivered ε (the module never leaks more than shown);
- ``tight``: ε_lb >= ``tightness`` × delivered ε, 0.9 at N = 10^6 (the events
  reach the full ε, so a sampler that loses its randomness or misuses the
  weights shows up);
- ``fit``: chi-square goodness of fit against the exact channel, p >= 1e-6 for
  every input;
- ``runs``: no error and every report in the output domain.

Events reach the full ε: single outputs for binary and GRR; for unary
encodings the joint events {bit a = α, bit b = β} (two answers differ in two
bits); for Hadamard single (j, bit) outcomes and the union over rows where the
two answers' signs differ; for OLH "y = h(x) and h(x) ≠ h(x')" (the hash seed
is independent of the answer, so the ratio is keep/other).

Ordinal, numeric and multi-select specs are audited on chosen inputs: the
grid ends (where the clamped tails and the piecewise bands are furthest
apart) and the middle; selections of every size for multi-select.  Events
are single reports and the output tails {y ≤ t}, {y ≥ t} (a tail such as
{y = 0} ∪ … reaches the full ratio with many more reports than one far
output).  For ``multi_rr`` the events are the joint bit patterns over all k
options, so ε_lb is compared with the question's full ε = k × per-option ε
(the all-ones pattern for "all selected" against "none selected" attains it);
the per-option ε is not audited separately.  For ``padding_sampling`` the
delivered ε is the mixture's, ln((P + (ℓ − 1)Q)/(ℓQ)), attained by disjoint
selections of size ℓ on one of their items.

References: Arcolezi & Gambs, "LDP-Auditor", PETS 2024; Clopper & Pearson,
Biometrika 1934; docs/maths.md, sections 1, 3 and 9; docs/testing.md,
section 2.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, permutations, product
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

import ldp
from ldp.spec.vector_cases import grid

ROOT = Path(__file__).resolve().parents[2]
# The counting half of the audit, run next to the randomizer (Node or a page).
AUDIT_COUNTS = ROOT / "tests" / "js" / "audit_counts.mjs"

N = 1_000_000
ALPHA = 0.05
TIGHTNESS = 0.9
FIT_P_MIN = 1e-6

AUDIT_SPECS: dict[str, dict[str, Any]] = {
    "warner eps=1": {"mechanism": "warner", "epsilon": 1.0},
    "forced_response coin": {
        "mechanism": "forced_response",
        "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
    },
    "grr k=5 eps=1": {"mechanism": "grr", "k": 5, "epsilon": 1.0},
    "oue k=4 eps=1": {"mechanism": "oue", "k": 4, "epsilon": 1.0},
    "sue k=4 eps=2": {"mechanism": "sue", "k": 4, "epsilon": 2.0},
    "olh k=8 eps=1.5": {"mechanism": "olh", "k": 8, "epsilon": 1.5},
    "hadamard k=8 eps=1": {"mechanism": "hadamard", "k": 8, "epsilon": 1.0},
    "ordinal k=5 eps=1": {"mechanism": "ordinal", "k": 5, "epsilon": 1.0},
    "ordinal k=7 eps=2": {"mechanism": "ordinal", "k": 7, "epsilon": 2.0},
    "geometric 0..10 eps=3": {
        "mechanism": "geometric",
        **grid("0", "10", "1"),
        "epsilon": 3.0,
    },
    "geometric 0..1000 eps=9": {
        "mechanism": "geometric",
        **grid("0", "1000", "1"),
        "epsilon": 9.0,
    },
    "gaussian 0..5 step 0.5 eps=3": {
        "mechanism": "gaussian",
        **grid("0", "5", "0.5"),
        "epsilon": 3.0,
    },
    "duchi 0..100 step 5 eps=1": {
        "mechanism": "duchi",
        **grid("0", "100", "5"),
        "epsilon": 1.0,
    },
    "piecewise 0..10 eps=2": {
        "mechanism": "piecewise",
        **grid("0", "10", "1"),
        "epsilon": 2.0,
    },
    "multi_rr k=4 eps=2": {"mechanism": "multi_rr", "k": 4, "epsilon": 2.0},
    "padding_sampling k=4 ell=2 eps=1": {
        "mechanism": "padding_sampling",
        "k": 4,
        "ell": 2,
        "epsilon": 1.0,
    },
}

# Inputs audited per spec (default: every answer 0 … k-1): grid ends and
# middle for numeric grids; selections of every size for multi-select.
AUDIT_INPUTS: dict[str, list[Any]] = {
    "ordinal k=7 eps=2": [0, 3, 6],
    "geometric 0..10 eps=3": [0, 5, 10],
    "geometric 0..1000 eps=9": [0, 1000],
    "gaussian 0..5 step 0.5 eps=3": [0, 5, 10],
    "duchi 0..100 step 5 eps=1": [0, 10, 20],
    "piecewise 0..10 eps=2": [0, 5, 10],
    "multi_rr k=4 eps=2": [[], [0, 1, 2, 3], [2], [3, 0]],
    "padding_sampling k=4 ell=2 eps=1": [[], [1], [0, 1], [2, 3]],
}
NEW_MECHANISMS = (
    "ordinal",
    "geometric",
    "gaussian",
    "duchi",
    "piecewise",
    "multi_rr",
    "padding_sampling",
)


@cache
def compiled() -> dict[str, ldp.Mechanism]:
    return {
        name: ldp.build({"version": 1, **request})
        for name, request in AUDIT_SPECS.items()
    }


def audit_inputs(name: str) -> list[Any]:
    return AUDIT_INPUTS.get(name, list(range(compiled()[name].spec.get("k", 2))))


# ------------------------------------------------- events and the channel


def parity(t: int) -> int:
    return bin(t).count("1") & 1


def contract_row(spec: dict[str, Any], x: Any) -> np.ndarray:
    """Integer weights of each report for input ``x``, from the contract.

    Written from ``ldp/spec/README.md`` and the compiled integer weights
    alone (not from the Python reference), for the new single-report
    mechanisms.
    """
    mechanism, w = spec["mechanism"], spec["weights"]
    if mechanism == "ordinal":
        return np.asarray(w["rows"][x], dtype=np.int64)
    if mechanism in ("geometric", "gaussian"):
        kernel = np.asarray(w["kernel"], dtype=np.int64)
        m = (len(kernel) + 1) // 2
        levels = np.clip(x + np.arange(2 * m - 1) - (m - 1), 0, m - 1)
        row = np.zeros(m, dtype=np.int64)
        np.add.at(row, levels, kernel)
        return row
    if mechanism == "duchi":
        one = w["base"] + x * w["slope"]
        return np.asarray([w["total"] - one, one], dtype=np.int64)
    if mechanism == "piecewise":
        row = np.full(w["outputs"], w["low"], dtype=np.int64)
        start = w["starts"][x]
        row[start : start + w["width"]] = w["high"]
        return row
    if mechanism == "padding_sampling":  # ℓ × the mixture over slots
        k, ell = spec["k"], spec["ell"]
        chosen = sorted(x)
        row = np.full(k + ell, ell * w["other"], dtype=np.int64)
        for j in range(ell):
            row[chosen[j] if j < len(chosen) else k + j] += w["keep"] - w["other"]
        return row
    raise ValueError(mechanism)


def output_probabilities(spec: dict[str, Any], x: Any) -> np.ndarray:
    """Exact report distribution of input ``x``, from the contract's sampling."""
    w = spec["weights"]
    if spec["mechanism"] == "multi_rr":
        k = spec["k"]
        one = np.full(k, w["one_if_zero"] / w["total"])
        one[list(x)] = w["one_if_one"] / w["total"]
        bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
        return np.prod(np.where(bits == 1, one, 1 - one), axis=1)
    row = contract_row(spec, x).astype(float)
    return row / row.sum()


def event_counts(spec: dict[str, Any], inputs: list[dict[str, Any]]) -> np.ndarray:
    """Matrix ``C[x, e]``: reports of input x in event e (events fixed by spec)."""
    mechanism, k = spec["mechanism"], spec.get("k", 2)
    rows = []
    for counts in inputs:
        if mechanism == "multi_rr":
            rows.append(counts["hist"])  # joint patterns over all k bits
        elif mechanism in NEW_MECHANISMS:
            hist = np.asarray(counts["hist"])
            below, above = np.cumsum(hist), np.cumsum(hist[::-1])[::-1]
            rows.append([*hist, *below[:-1], *above[1:]])  # y, {y <= t}, {y >= t}
        elif mechanism in ("forced_response", "warner", "grr"):
            rows.append(counts["hist"])
        elif mechanism in ("sue", "oue"):
            hist = np.asarray(counts["hist"])
            bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1  # pattern, bit
            row = [
                hist[bits[:, a] == value].sum() for a in range(k) for value in (0, 1)
            ]
            for a, b in combinations(range(k), 2):
                for va, vb in product((0, 1), repeat=2):
                    row.append(hist[(bits[:, a] == va) & (bits[:, b] == vb)].sum())
            rows.append(row)
        elif mechanism == "hadamard":
            K = spec["weights"]["K"]
            hist = counts["hist"]
            row = list(hist)
            for x, x2 in permutations(range(k), 2):
                row.append(
                    sum(
                        hist[2 * j + 1 - parity(j & x)]
                        for j in range(K)
                        if parity(j & x) != parity(j & x2)
                    )
                )
            rows.append(row)
        elif mechanism == "olh":
            joint = counts["joint"]
            row = list(counts["support"])
            row += [joint[v * k + w] for v, w in permutations(range(k), 2)]
            rows.append(row)
        else:
            raise ValueError(mechanism)
    return np.asarray(rows, dtype=float)


def fit_categories(spec: dict[str, Any], x: Any) -> tuple[str, np.ndarray]:
    """Which count list to test for input x, and its exact probabilities."""
    mechanism, k, w = spec["mechanism"], spec.get("k", 2), spec["weights"]
    if mechanism in NEW_MECHANISMS:
        return "hist", output_probabilities(spec, x)
    if mechanism in ("forced_response", "warner", "grr"):
        mech = ldp.build(spec)
        row = mech.channel_weights()[x].astype(float)
        return "hist", row / row.sum()
    if mechanism in ("sue", "oue"):
        one = np.full(k, w["one_if_zero"] / w["total"])
        one[x] = w["one_if_one"] / w["total"]
        bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
        return "hist", np.prod(np.where(bits == 1, one, 1 - one), axis=1)
    if mechanism == "hadamard":
        K, keep, flip = w["K"], w["keep"], w["flip"]
        probs = np.empty(2 * K)
        for j in range(K):
            sign = 1 - parity(j & x)  # the bit kept with weight keep
            probs[2 * j + sign] = keep / (keep + flip) / K
            probs[2 * j + 1 - sign] = flip / (keep + flip) / K
        return "hist", probs
    if mechanism == "olh":
        g, keep, other = w["g"], w["keep"], w["other"]
        probs = np.full(g, float(other))
        probs[0] = keep
        return "offset", probs / probs.sum()
    raise ValueError(mechanism)


# ------------------------------------------------------------------ gates


def chi_square_p(observed: np.ndarray, probs: np.ndarray) -> float:
    """Goodness-of-fit p-value, cells expecting fewer than 5 reports pooled.

    A report in a cell of probability 0 gives p = 0.
    """
    expected = probs * observed.sum()
    if np.any(observed[probs == 0] > 0):
        return 0.0
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
        if expected[-1] == 0:
            observed, expected = observed[:-1], expected[:-1]
    if len(observed) < 2:
        return 1.0
    return float(stats.chisquare(observed, expected).pvalue)


def evaluate(
    counts: dict[str, dict[str, Any]], n: int = N, tightness: float = TIGHTNESS
) -> dict[str, dict]:
    """ε_lb, fit and gate verdicts per spec for one run's counts.

    ``counts`` maps audit spec names to the counting code's entries for N = n
    reports per input; the ``tight`` gate asks ε_lb >= tightness × ε.
    """
    mechanisms = {name: compiled()[name] for name in counts}
    matrices = {}
    for name, result in counts.items():
        if "error" not in result:
            matrices[name] = event_counts(mechanisms[name].spec, result["inputs"])
    tests = sum(c.shape[0] * (c.shape[0] - 1) * c.shape[1] for c in matrices.values())
    level = ALPHA / (2 * max(tests, 1))  # per one-sided bound
    verdicts = {}
    for name, mechanism in mechanisms.items():
        epsilon = mechanism.epsilon
        result = counts[name]
        if "error" in result:
            verdicts[name] = {"epsilon": epsilon, "failed": ["runs"], **result}
            continue
        c = matrices[name]
        with np.errstate(divide="ignore"):
            lower = np.where(c > 0, stats.beta.ppf(level, c, n - c + 1), 0.0)
            upper = np.where(c < n, stats.beta.ppf(1 - level, c + 1, n - c), 1.0)
            log_lower, log_upper = np.log(lower), np.log(upper)
        eps_lb = max(
            float(np.max(log_lower[x] - log_upper[x2]))
            for x, x2 in permutations(range(c.shape[0]), 2)
        )
        invalid = sum(row["invalid"] for row in result["inputs"])
        fit_p = 1.0
        for x, row in zip(audit_inputs(name), result["inputs"], strict=True):
            key, probs = fit_categories(mechanism.spec, x)
            observed = np.asarray(row[key], dtype=float)
            fit_p = min(fit_p, chi_square_p(observed, probs))
        failed = []
        if invalid:
            failed.append("runs")
        if eps_lb > epsilon:
            failed.append("over-claim")
        if eps_lb < tightness * epsilon:
            failed.append("tight")
        if fit_p < FIT_P_MIN:
            failed.append("fit")
        verdicts[name] = {
            "epsilon": epsilon,
            "eps_lb": eps_lb,
            "fit_p": fit_p,
            "invalid": invalid,
            "failed": failed,
        }
    return verdicts


def audit_items(names: list[str] | None = None) -> list[dict[str, Any]]:
    """What the counting code takes: each spec with the inputs audited on it."""
    specs = compiled()
    return [
        {"spec": specs[name].spec, "inputs": audit_inputs(name)}
        for name in (list(AUDIT_SPECS) if names is None else names)
    ]


def figure_line(name: str, verdict: dict[str, Any]) -> str:
    """One line of audit figures for a spec's verdict."""
    if "eps_lb" not in verdict:
        return f"  {name:32} error={verdict.get('error')} failed={verdict['failed']}"
    return (
        f"  {name:32} eps={verdict['epsilon']:.4f} eps_lb={verdict['eps_lb']:.4f} "
        f"ratio={verdict['eps_lb'] / verdict['epsilon']:.3f} "
        f"fit_p={verdict['fit_p']:.2e} invalid={verdict['invalid']} "
        f"failed={','.join(verdict['failed']) or '-'}"
    )
