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

Mutants of the module (docs/testing.md, section 2), each one string
replacement on its source, must fail the gate they break.  A mutant is audited
only on the specs whose reports it changes (``MUTANT_SPECS``, checked against
the reports of the shipped module and the mutant for the same seeded words),
at the sample size its gate needs (``MUTANT_N``): a failed ``over-claim``,
``fit`` or ``runs`` gate is evidence at any N (ε_lb is a valid lower bound and
the chi-square test is exact in its level at every N; fewer reports only make
them harder to fail), so those mutants run at N = 10^4 or 10^5 with the
``tight`` gate not judged; a mutant caught by ``tight`` runs at the shipped
module's N = 10^6, where the shipped module passes that gate.  One Node
process per core answers every request of a run (``tests/js/audit.mjs``).
Run as a script to print the figures: ``python -m tests.ldp.test_js_audit``.

References: Arcolezi & Gambs, "LDP-Auditor", PETS 2024; Clopper & Pearson,
Biometrika 1934; docs/maths.md, sections 1, 3 and 9; docs/testing.md,
section 2.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import threading
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
    audit_items,
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
    "byte-mod-k": (
        "if (u < limit) return remainder(u, S);",
        "return remainder(u & 255, S);",
    ),
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
        "const v = uniformBelow(w.total, nextWord);",
        "const v = (uniformBelow(w.total, nextWord), i);",
    ),
    # Geometric/Gaussian: kernel index j read as offset j - m, not j - (m-1).
    "kernel offset off by one": (
        "cumulative(tables.kernel, uniformBelow(w.total, nextWord)) - (k - 1);",
        "cumulative(tables.kernel, uniformBelow(w.total, nextWord)) - k;",
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
        "return uniformBelow(w.total, nextWord) < w.base + x * w.slope ? 1 : 0;",
        "return uniformBelow(w.total, nextWord) < w.base + (x + 1) * w.slope ? 1 : 0;",
    ),
    # Padding-and-sampling: always a padding item, whatever was selected.
    "selection never sampled": (
        "const t = j < sorted.length ? sorted[j] : k + j;",
        "const t = k + j;",
    ),
}

# The specs each mutant changes the reports of (checked by
# test_each_mutant_is_audited_on_exactly_the_specs_it_changes).
MUTANT_SPECS: dict[str, list[str]] = {
    # Every draw goes through it, but a byte mod 4 is a word mod 4: the coin
    # design's weights sum to 4.
    "byte-mod-k": [name for name in AUDIT_SPECS if name != "forced_response coin"],
    "truth kept with wrong probability": ["warner eps=1"],
    "p and q swapped": ["oue k=4 eps=1", "sue k=4 eps=2"],
    "zero weight": ["forced_response coin"],
    "index instead of random value": [
        "oue k=4 eps=1",
        "sue k=4 eps=2",
        "multi_rr k=4 eps=2",
    ],
    "kernel offset off by one": [
        "geometric 0..10 eps=3",
        "geometric 0..1000 eps=9",
        "gaussian 0..5 step 0.5 eps=3",
    ],
    "clamping dropped": [
        "geometric 0..10 eps=3",
        "geometric 0..1000 eps=9",
        "gaussian 0..5 step 0.5 eps=3",
    ],
    "band start ignored": ["piecewise 0..10 eps=2"],
    "duchi level off by one": ["duchi 0..100 step 5 eps=1"],
    "selection never sampled": ["padding_sampling k=4 ell=2 eps=1"],
}

# The gate each mutant is expected to fail (on some spec).
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

# Reports per input for each mutant: the shipped module's N where the gate is
# ``tight`` (only there does the shipped module pass it); 10^4 where the gate
# fails by a wide margin there (ε_lb at least 1.7 ε' for over-claim, p below
# 1e-100 for fit, thousands of reports off the grid); the full N for Duchi,
# whose ε_lb is only 1.04 ε' at 10^5 (figures in docs/testing.md, section 2).
MUTANT_N: dict[str, int] = {
    name: N if gate == "tight" else 10_000 for name, gate in EXPECTED_GATE.items()
}
MUTANT_N["duchi level off by one"] = N

# Reports per input (and seed) compared to find the specs a mutant changes.
TRACE_REPORTS = 500
TRACE_SEED = 20261123


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "node (Node.js 20+) is required to audit the browser randomizer "
            "ldp/js/randomizer.js; install it and put it on PATH"
        )
    return path


def specs_for(variant: str) -> list[str]:
    return list(AUDIT_SPECS) if variant == "shipped" else MUTANT_SPECS[variant]


def sample_size(variant: str) -> int:
    return N if variant == "shipped" else MUTANT_N[variant]


# --------------------------------------------------------------- Node runs


class NodeAuditor:
    """One long-lived ``node tests/js/audit.mjs`` answering requests in order."""

    def __init__(self, timeout: float = 900):
        self.timeout = timeout
        self.process = subprocess.Popen(
            [node(), str(AUDIT_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; its reply (``{"error": ...}`` if Node failed)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return {"error": self.stderr()}
        ready, _, _ = select.select([self.process.stdout], [], [], self.timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.close()
            return {"error": f"no reply within {self.timeout} s: {self.stderr()}"}
        return json.loads(line)

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return "node is still running"
        if self.process.stderr.closed:
            return "node exited"
        return self.process.stderr.read().strip()[-500:]

    def close(self) -> None:
        """End the process (closing its input ends it) and its pipes."""
        if self.process.poll() is None:
            self.process.stdin.close()  # type: ignore[union-attr]
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


class NodePool:
    """One :class:`NodeAuditor` per thread of a pool (one per core by default)."""

    def __init__(self, processes: int | None = None):
        self.processes = processes or audit_processes()
        self._local = threading.local()
        self._auditors: list[NodeAuditor] = []
        self._lock = threading.Lock()

    def auditor(self) -> NodeAuditor:
        if getattr(self._local, "auditor", None) is None:
            self._local.auditor = NodeAuditor()
            with self._lock:
                self._auditors.append(self._local.auditor)
        return self._local.auditor

    def map(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Replies to ``requests``, in order, spread over the pool's processes."""
        with ThreadPoolExecutor(max_workers=self.processes) as pool:
            return list(pool.map(lambda r: self.auditor().ask(r), requests))

    def close(self) -> None:
        for auditor in self._auditors:
            auditor.close()

    def __enter__(self) -> NodePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def audit_processes() -> int:
    """Node processes for an audit: the cores this test process may use.

    Under pytest-xdist every worker already keeps a core busy, so one.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def mutant_source(name: str) -> str:
    source = MODULE.read_text(encoding="utf-8")
    old, new = MUTANTS[name]
    assert source.count(old) >= 1, f"mutant {name!r}: {old!r} not in the module"
    return source.replace(old, new)


def write_variants(variants: list[str], directory: Path) -> dict[str, Path]:
    """The module file of each variant: the shipped file, or a mutant's copy."""
    modules = {}
    for variant in variants:
        if variant == "shipped":
            modules[variant] = MODULE
        else:
            path = directory / f"mutant-{len(modules)}.mjs"
            path.write_text(mutant_source(variant), encoding="utf-8")
            modules[variant] = path
    return modules


def run_audits(variants: list[str], n: int | None = None) -> dict[str, dict[str, Any]]:
    """Counts per variant ("shipped" or a mutant name) and spec.

    Each variant runs on ``specs_for`` it at ``sample_size`` (or ``n``); one
    request per input, spread over the Node pool, so the largest spec does not
    hold up the rest.
    """
    specs = {name: mechanism.spec for name, mechanism in compiled().items()}
    with tempfile.TemporaryDirectory() as tmp, NodePool() as pool:
        modules = write_variants(variants, Path(tmp))
        jobs = [
            (variant, spec_name, x)
            for variant in variants
            for spec_name in specs_for(variant)
            for x in audit_inputs(spec_name)
        ]
        replies = pool.map(
            [
                {
                    "op": "counts",
                    "module": str(modules[variant]),
                    "n": n or sample_size(variant),
                    "items": [{"spec": specs[spec_name], "inputs": [x]}],
                }
                for variant, spec_name, x in jobs
            ]
        )
    out: dict[str, dict[str, Any]] = {
        v: {name: {"inputs": []} for name in specs_for(v)} for v in variants
    }
    for (variant, spec_name, _), reply in zip(jobs, replies, strict=True):
        entry = out[variant][spec_name]
        result = reply["results"][0] if "results" in reply else reply
        if "error" in result:
            entry["error"] = result["error"]
        elif "error" not in entry:
            entry["inputs"].extend(result["inputs"])
    for counts in out.values():
        for name, entry in counts.items():
            if "error" in entry:
                counts[name] = {"error": entry["error"]}
    return out


def changed_specs(mutant: str) -> list[str]:
    """The audit specs whose reports ``mutant`` changes, for the same seeded words."""
    with tempfile.TemporaryDirectory() as tmp, NodePool(1) as pool:
        modules = write_variants([mutant], Path(tmp))
        (reply,) = pool.map(
            [
                {
                    "op": "differs",
                    "module": str(modules[mutant]),
                    "reference": str(MODULE),
                    "items": audit_items(),
                    "reports": TRACE_REPORTS,
                    "seed": TRACE_SEED,
                }
            ]
        )
    assert "differs" in reply, reply
    return [
        name
        for name, changed in zip(AUDIT_SPECS, reply["differs"], strict=True)
        if changed
    ]


def evaluate_variant(variant: str, counts: dict[str, Any]) -> dict[str, dict]:
    """Gate verdicts; ``tight`` is judged only at the shipped module's N."""
    n = sample_size(variant)
    return evaluate(counts, n, TIGHTNESS if n == N else 0.0)


@pytest.fixture(scope="module")
def audits() -> dict[str, dict[str, dict]]:
    raw = run_audits(["shipped", *MUTANTS])
    return {
        variant: evaluate_variant(variant, counts) for variant, counts in raw.items()
    }


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


@pytest.mark.statistical
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


@pytest.mark.statistical
@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_fails_a_gate(audits: dict, mutant: str) -> None:
    caught = {name: v["failed"] for name, v in audits[mutant].items() if v["failed"]}
    assert caught, f"mutant {mutant!r} passed every gate: {audits[mutant]}"
    gates = {gate for failed in caught.values() for gate in failed}
    assert EXPECTED_GATE[mutant] in gates, (mutant, caught)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_mutant_is_audited_on_exactly_the_specs_it_changes(mutant: str) -> None:
    assert changed_specs(mutant) == MUTANT_SPECS[mutant]


def test_a_mutant_caught_by_the_tight_gate_runs_at_the_shipped_sample_size() -> None:
    for mutant, gate in EXPECTED_GATE.items():
        assert MUTANT_N[mutant] <= N
        assert gate != "tight" or MUTANT_N[mutant] == N, mutant


def main() -> None:
    """Print the audit figures for the shipped module and each mutant."""
    raw = run_audits(["shipped", *MUTANTS])
    for variant, counts in raw.items():
        print(f"\n== {variant} (N = {sample_size(variant)})")
        for name, verdict in evaluate_variant(variant, counts).items():
            print(figure_line(name, verdict))


if __name__ == "__main__":
    main()
