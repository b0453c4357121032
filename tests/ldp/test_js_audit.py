"""Statistical privacy audit of the shipped browser randomizer, run in Node.

For each audit spec and each input x, Node draws N = 10^6 reports with real
``crypto.getRandomValues`` randomness through ``ldp/js/randomizer.js``
(``tests/js/audit.mjs`` around the shared counting code
``tests/js/audit_counts.mjs``), and ``tests/ldp/js_audit.py`` turns the counts
into ε lower bounds

    ε_lb = max ln( CP_lower(count_x(S), N) / CP_upper(count_x'(S), N) )

over ordered input pairs (x, x') and events S fixed in advance from the claimed
spec, with one-sided Clopper–Pearson bounds at α = 0.05 split by Bonferroni
over every test of the run (a valid lower bound on the module's true ε), and
judges four gates: ``over-claim`` (ε_lb <= delivered ε), ``tight``
(ε_lb >= 0.9 × delivered ε), ``fit`` (chi-square against the exact channel,
p >= 1e-6 for every input) and ``runs`` (no error, every report in the output
domain).  The events, inputs and the channel are described in
``tests/ldp/js_audit.py``; the same estimator audits the module as the app
serves it, in headless Chromium
(``tests/surveys/collection/test_browser_audit.py``).

Mutants of the module (test plan, section 2), each one string replacement on
its source, must fail at least one gate.  Run as a script to print the figures:
``python -m tests.ldp.test_js_audit``.

References: Arcolezi & Gambs, "LDP-Auditor", PETS 2024; Clopper & Pearson,
Biometrika 1934; docs/maths.md, sections 1, 3 and 9; docs/testing.md, section 2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ldp
from tests.ldp.js_audit import (
    AUDIT_SPECS,
    NEW_MECHANISMS,
    TIGHTNESS,
    N,
    audit_inputs,
    compiled,
    contract_row,
    evaluate,
    figure_line,
)

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "ldp" / "js" / "randomizer.js"
AUDIT_SCRIPT = ROOT / "tests" / "js" / "audit.mjs"

# name -> (text in the module, its replacement). Each must occur in the source.
MUTANTS: dict[str, tuple[str, str]] = {
    # One random byte mod S instead of rejection sampling a whole word.
    "byte-mod-k": ("if (u < limit) return u % S;", "return (u & 255) % S;"),
    # Warner keeps the truth with probability (P + F/2)/S instead of P/S.
    "truth kept with wrong probability": (
        "return v < w.keep ? x : 1 - x;",
        "return v < w.keep + (w.flip >>> 1) ? x : 1 - x;",
    ),
    # Unary encodings use q for the answer's bit and p for the others.
    "p and q swapped": (
        "(i === x ? w.one_if_one : w.one_if_zero)",
        "(i === x ? w.one_if_zero : w.one_if_one)",
    ),
    # Forced response treats the forced-"yes" weight as 0: a hole in the channel.
    "zero weight": (
        "const T = w.truthful, A = w.forced_yes;",
        "const T = w.truthful, A = 0;",
    ),
    # Unary bit i compares the loop index, not the random draw, to the weight.
    "index instead of random value": (
        "const v = below(w.total);",
        "const v = (below(w.total), i);",
    ),
    # Geometric/Gaussian: kernel index j read as offset j - m, not j - (m-1).
    "kernel offset off by one": (
        "const y = x + cumulative(w.kernel, below(w.total)) - (k - 1);",
        "const y = x + cumulative(w.kernel, below(w.total)) - k;",
    ),
    # Geometric/Gaussian: reports off the grid are not clamped to its ends.
    "clamping dropped": (
        "return Math.min(Math.max(y, 0), k - 1);",
        "return y;",
    ),
    # Piecewise: the high-probability band always starts at output 0.
    "band start ignored": (
        "if (v < band) return start + quotient(v, H);",
        "if (v < band) return quotient(v, H);",
    ),
    # Duchi: P(+B) uses the next level's weight (x + 1 instead of x).
    "duchi level off by one": (
        "return below(w.total) < w.base + x * w.slope ? 1 : 0;",
        "return below(w.total) < w.base + (x + 1) * w.slope ? 1 : 0;",
    ),
    # Padding-and-sampling: always a padding item, whatever was selected.
    "selection never sampled": (
        "const t = j < sorted.length ? sorted[j] : k + j;",
        "const t = k + j;",
    ),
}

# Specs each mutant runs on (default: the original seven mechanisms' specs).
MUTANT_SPECS: dict[str, list[str]] = {
    "kernel offset off by one": [
        "geometric 0..10 eps=3",
        "gaussian 0..5 step 0.5 eps=3",
    ],
    "clamping dropped": ["geometric 0..10 eps=3"],
    "band start ignored": ["piecewise 0..10 eps=2"],
    "duchi level off by one": ["duchi 0..100 step 5 eps=1"],
    "selection never sampled": ["padding_sampling k=4 ell=2 eps=1"],
}


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "node (Node.js 20+) is required to audit the browser randomizer "
            "ldp/js/randomizer.js; install it and put it on PATH"
        )
    return path


def specs_for(variant: str) -> list[str]:
    if variant in MUTANT_SPECS:
        return MUTANT_SPECS[variant]
    if variant == "shipped":
        return list(AUDIT_SPECS)
    return [
        name
        for name, request in AUDIT_SPECS.items()
        if request["mechanism"] not in NEW_MECHANISMS
    ]


# --------------------------------------------------------------- Node runs


def run_node(
    module: Path, spec: dict[str, Any], inputs: list[Any], n: int
) -> dict[str, Any]:
    """Counts for the given inputs of one spec, from ``tests/js/audit.mjs``."""
    result = subprocess.run(
        [node(), str(AUDIT_SCRIPT), str(module), str(n)],
        input=json.dumps([{"spec": spec, "inputs": inputs}]),
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if result.returncode != 0:
        return {"error": result.stderr.strip()[-500:]}
    return json.loads(result.stdout)[0]


def mutant_source(name: str) -> str:
    source = MODULE.read_text(encoding="utf-8")
    old, new = MUTANTS[name]
    assert source.count(old) >= 1, f"mutant {name!r}: {old!r} not in the module"
    return source.replace(old, new)


def run_audits(variants: list[str], n: int = N) -> dict[str, dict[str, Any]]:
    """Counts per variant ("shipped" or a mutant name) and spec, in parallel."""
    specs = {name: mechanism.spec for name, mechanism in compiled().items()}
    with tempfile.TemporaryDirectory() as tmp:
        modules = {}
        for variant in variants:
            if variant == "shipped":
                modules[variant] = MODULE
            else:
                path = Path(tmp) / f"mutant-{len(modules)}.mjs"
                path.write_text(mutant_source(variant), encoding="utf-8")
                modules[variant] = path
        jobs = [(v, s) for v in variants for s in specs_for(v)]
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            counts = pool.map(
                lambda job: run_node(
                    modules[job[0]], specs[job[1]], audit_inputs(job[1]), n
                ),
                jobs,
            )
            out: dict[str, dict[str, Any]] = {v: {} for v in variants}
            for (variant, spec_name), result in zip(jobs, counts, strict=True):
                out[variant][spec_name] = result
    return out


@pytest.fixture(scope="module")
def audits() -> dict[str, dict[str, dict]]:
    raw = run_audits(["shipped", *MUTANTS])
    return {variant: evaluate(counts) for variant, counts in raw.items()}


def test_audit_specs_cover_every_mechanism() -> None:
    mechanisms = {m.spec["mechanism"] for m in compiled().values()}
    assert mechanisms == set(ldp.MECHANISMS)
    assert set(NEW_MECHANISMS) <= mechanisms


def test_contract_channel_matches_the_python_reference() -> None:
    """The audit's channel (from the contract) is the reference's, exactly.

    Integer rows equal ``channel_weights()`` for every input, and the
    delivered ε is the contract channel's: the largest column ratio for
    finite channels; ``k·ln`` of the per-bit ratio for ``multi_rr``; the
    slot mixture's ``ln((P + (ℓ − 1)Q)/(ℓQ))`` for ``padding_sampling``.
    """
    for name, mechanism in compiled().items():
        spec, w = mechanism.spec, mechanism.spec["weights"]
        if spec["mechanism"] == "multi_rr":
            a1, a0, total = w["one_if_one"], w["one_if_zero"], w["total"]
            per_bit = max(np.log(a1 / a0), np.log((total - a0) / (total - a1)))
            assert np.isclose(spec["k"] * per_bit, mechanism.epsilon, atol=1e-9)
        elif spec["mechanism"] == "padding_sampling":
            rows = np.asarray(
                [contract_row(spec, x) for x in ([], [0], [0, 1], [2, 3])]
            )
            keep, other, ell = w["keep"], w["other"], spec["ell"]
            assert rows.max() == keep + (ell - 1) * other
            assert rows.min() == ell * other
            eps = np.log(rows.max() / rows.min())
            assert np.isclose(eps, mechanism.epsilon, atol=1e-9), name
        elif spec["mechanism"] in NEW_MECHANISMS:
            weights = np.asarray(mechanism.channel_weights(), dtype=np.int64)
            rows = np.asarray([contract_row(spec, x) for x in range(len(weights))])
            assert np.array_equal(rows, weights), name
            eps = np.max(np.log(rows.max(axis=0) / rows.min(axis=0)))
            assert np.isclose(eps, mechanism.epsilon, atol=1e-9), name


def test_shipped_randomizer_passes_every_gate(audits: dict) -> None:
    failures = {
        name: verdict
        for name, verdict in audits["shipped"].items()
        if verdict["failed"]
    }
    assert not failures, failures
    for name, verdict in audits["shipped"].items():
        assert (
            TIGHTNESS * verdict["epsilon"] <= verdict["eps_lb"] <= verdict["epsilon"]
        ), name


# The gate each mutant is expected to fail (on some spec); all fit as well.
EXPECTED_GATE = {
    "byte-mod-k": "over-claim",  # a byte is < 256 < keep weight: always truthful
    "truth kept with wrong probability": "over-claim",  # ln(2P/F + 1) = 1.86 > 1
    "p and q swapped": "fit",  # still ε-LDP, but not the channel claimed
    "zero weight": "over-claim",  # a hole: P(yes | no) = 0
    "index instead of random value": "tight",  # deterministic bits: ε_lb = 0
    "kernel offset off by one": "fit",  # every report shifted down one level
    "clamping dropped": "runs",  # reports off the grid
    "band start ignored": "over-claim",  # outputs of the band never reported
    "duchi level off by one": "over-claim",  # P(-B | top level) too small
    "selection never sampled": "tight",  # the report ignores the answer
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_fails_a_gate(audits: dict, mutant: str) -> None:
    caught = {name: v["failed"] for name, v in audits[mutant].items() if v["failed"]}
    assert caught, f"mutant {mutant!r} passed every gate: {audits[mutant]}"
    gates = {gate for failed in caught.values() for gate in failed}
    assert EXPECTED_GATE[mutant] in gates, (mutant, caught)


def main() -> None:
    """Print the audit figures for the shipped module and each mutant."""
    raw = run_audits(["shipped", *MUTANTS])
    for variant, counts in raw.items():
        print(f"\n== {variant}")
        for name, verdict in evaluate(counts).items():
            print(figure_line(name, verdict))


if __name__ == "__main__":
    main()
