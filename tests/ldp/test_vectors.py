"""Python and the browser randomizer give identical reports for identical words.

Runs without Django (``-p no:django``).  Node 20 is required: the browser
module is part of the privacy claim, so a missing ``node`` fails loudly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ldp
from ldp.spec import vector_cases, vectors

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = ROOT / "tests" / "js"
WORD_RANGE = 2**32

DIFFERENTIAL_REPORTS = 100_000
DIFFERENTIAL_SPECS = {
    "forced_response coin": {
        "mechanism": "forced_response",
        "design": {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"},
    },
    "warner": {"mechanism": "warner", "epsilon": 1.0},
    "grr k=5": {"mechanism": "grr", "k": 5, "epsilon": 1.0},
    "grr k=100": {"mechanism": "grr", "k": 100, "epsilon": 0.5},
    "sue k=6": {"mechanism": "sue", "k": 6, "epsilon": 2.0},
    "oue k=16": {"mechanism": "oue", "k": 16, "epsilon": 1.0},
    "olh k=4096": {"mechanism": "olh", "k": 4096, "epsilon": 1.5},
    "hadamard k=16": {"mechanism": "hadamard", "k": 16, "epsilon": 1.0},
    "ordinal k=7": {"mechanism": "ordinal", "k": 7, "epsilon": 1.5},
    "geometric m=1001": {
        "mechanism": "geometric",
        **vector_cases.grid("0", "1000", "1"),
        "epsilon": 9.0,
    },
    "geometric m=41": {
        "mechanism": "geometric",
        **vector_cases.grid("-10", "10", "0.5"),
        "epsilon": 3.0,
    },
    "gaussian m=21": {
        "mechanism": "gaussian",
        **vector_cases.grid("0", "100", "5"),
        "epsilon": 4.0,
    },
    "duchi m=11": {
        "mechanism": "duchi",
        **vector_cases.grid("0", "1", "0.1"),
        "epsilon": 1.0,
    },
    "piecewise m=21": {
        "mechanism": "piecewise",
        **vector_cases.grid("0", "20", "1"),
        "epsilon": 2.0,
    },
    "multi_rr k=8": {"mechanism": "multi_rr", "k": 8, "epsilon": 4.0},
    "padding_sampling k=20 ell=4": {
        "mechanism": "padding_sampling",
        "k": 20,
        "ell": 4,
        "epsilon": 2.0,
    },
}
MULTI_SELECT = ("multi_rr", "padding_sampling")


def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "node (Node.js 20+) is required to test the browser randomizer "
            "ldp/js/randomizer.js; install it and put it on PATH"
        )
    return path


def load_vectors() -> dict[str, Any]:
    return json.loads(vectors.PATH.read_text(encoding="utf-8"))


def test_vectors_cover_every_mechanism() -> None:
    groups = load_vectors()["groups"]
    assert {g["spec"]["mechanism"] for g in groups} == set(ldp.MECHANISMS)
    designs = [g["spec"].get("design") for g in groups]
    assert vector_cases.COIN in designs
    assert sum(len(g["vectors"]) for g in groups) >= 500


def test_vectors_match_the_python_reference() -> None:
    for group in load_vectors()["groups"]:
        mechanism = ldp.build(group["spec"])  # compiled spec: weights must match
        assert mechanism.spec == group["spec"]
        assert mechanism.epsilon == group["epsilon"]
        for vector in group["vectors"]:
            draw = vectors.CountingWords(vector["words"])
            report = mechanism.randomize_one(vector["answer"], draw)
            assert (report, draw.used) == (vector["report"], vector["used"]), (
                group["name"],
                vector,
            )
            mechanism.validate_report(report)


def test_every_served_spec_delivers_a_positive_epsilon_on_both_sides() -> None:
    # The device accepts any ratio R >= 1 (ε' = 0 hides everything), so the
    # server is what keeps ε' = 0 from being served: ldp.build refuses it,
    # and every vector's spec went through ldp.build.  Both sides agree on R.
    for group in load_vectors()["groups"]:
        mechanism = ldp.build(group["spec"])
        numerator, denominator = map(int, group["check"]["likelihood_ratio"].split("/"))
        assert numerator > denominator, group["name"]
        assert mechanism.epsilon_exact > 0
        device = ldp.exact.log_ratio(numerator, denominator)
        assert abs(device - mechanism.epsilon_exact) < Decimal("1e-50"), group["name"]


def test_vectors_file_has_not_drifted() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ldp.spec.vectors", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_fails_when_the_file_drifted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    document = load_vectors()
    document["groups"][0]["vectors"][0]["report"] = "tampered"
    drifted = tmp_path / "vectors.json"
    drifted.write_text(json.dumps(document), encoding="utf-8")
    monkeypatch.setattr(vectors, "PATH", drifted)
    assert vectors.main(["--check"]) == 1
    assert document["groups"][0]["name"] in capsys.readouterr().err
    monkeypatch.setattr(vectors, "PATH", tmp_path / "missing.json")
    assert vectors.main(["--check"]) == 1


@pytest.mark.slow  # every 16-bit word of every draw, in Node
def test_node_test_suite_passes() -> None:
    result = subprocess.run(
        [node(), "--test", str(JS_TESTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout


def word_stream(rng: np.random.Generator, size: int) -> np.ndarray:
    """Uniform words, 10% of them replaced by words at the top of the range.

    Top words are rejected by every bound that does not divide 2^32 (and the
    compiled bounds reject many uniform words too), so rejection is exercised
    constantly.
    """
    words = rng.integers(0, WORD_RANGE, size=size, dtype=np.uint64)
    top = rng.random(size) < 0.1
    words[top] = WORD_RANGE - 1 - rng.integers(0, 64, size=int(top.sum()))
    return words.astype("<u4")


def random_answers(
    mechanism: ldp.Mechanism, rng: np.random.Generator, n: int
) -> list[Any]:
    """Uniform answers, or for multi-select selections of every allowed size."""
    spec = mechanism.spec
    if spec["mechanism"] not in MULTI_SELECT:
        return rng.integers(0, mechanism.k, size=n).tolist()
    k = spec["k"]
    most = spec.get("ell", k)
    sizes = rng.integers(0, most + 1, size=n)
    return [rng.permutation(k)[:size].tolist() for size in sizes]


def expected_lines(
    mechanism: ldp.Mechanism, answers: list[Any], words: np.ndarray
) -> list[str]:
    stream = iter(words.tolist())
    lines = []
    used = 0

    def serve() -> int:
        nonlocal used
        used += 1
        return next(stream)

    for answer in answers:
        before = used
        report = mechanism.randomize_one(answer, serve)
        lines.append(f"{json.dumps(report, separators=(',', ':'))} {used - before}")
    return lines


@pytest.mark.slow  # 100,000 reports per mechanism on both sides
@pytest.mark.parametrize("name", sorted(DIFFERENTIAL_SPECS))
def test_python_and_js_agree_on_random_words(name: str, tmp_path: Path) -> None:
    mechanism = ldp.build({"version": 1, **DIFFERENTIAL_SPECS[name]})
    seed = int.from_bytes(name.encode(), "little") % 2**32
    rng = np.random.default_rng(seed)
    bounds = [bound for bound, _ in vectors.draw_bounds(mechanism.spec)]
    draws = len(bounds)
    n = DIFFERENTIAL_REPORTS
    answers = random_answers(mechanism, rng, n)
    words = word_stream(rng, 2 * draws * n + 1000)
    spec_path, words_path, answers_path = (
        tmp_path / "spec.json",
        tmp_path / "words.bin",
        tmp_path / "answers.json",
    )
    spec_path.write_text(json.dumps(mechanism.spec), encoding="utf-8")
    words_path.write_bytes(words.tobytes())
    answers_path.write_text(json.dumps(answers), encoding="utf-8")
    # Node works while Python computes the expected reports.
    process = subprocess.Popen(
        [node(), JS_TESTS / "differential.mjs", spec_path, words_path, answers_path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    want = expected_lines(mechanism, answers, words)
    stdout, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr[-2000:]
    got = stdout.splitlines()
    assert len(got) == len(want) == n
    mismatches = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
    assert not mismatches, (
        f"{len(mismatches)} of {n} reports differ; first at {mismatches[0]}: "
        f"JS {got[mismatches[0]]!r} vs Python {want[mismatches[0]]!r}"
    )
    if any(WORD_RANGE % bound for bound in bounds):  # else nothing can reject
        rejected = sum(int(line.rsplit(" ", 1)[1]) for line in want) - draws * n
        assert rejected > 0, "the stream exercised rejection"
