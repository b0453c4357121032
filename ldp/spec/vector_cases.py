"""The cases the shared test vectors are made from.

:data:`CASES` are the honest specs and answers each mechanism's vectors run
through; :func:`device_check_cases` and :func:`survey_check_cases` are what a
hostile server might send and the verdict the device must reach.
:mod:`ldp.spec.vectors` turns them into ``vectors.json``.
"""

from __future__ import annotations

import json
from typing import Any

import ldp

COIN = {"truthful": "1/2", "forced_yes": "1/4", "forced_no": "1/4"}


def grid(low: str, high: str, step: str) -> dict[str, str]:
    """The grid fields of a numeric spec."""
    return {"low": low, "high": high, "step": step}


# (name, requested spec, answers); multi-select answers are lists of options.
CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("forced_response coin", {"mechanism": "forced_response", "design": COIN}, [0, 1]),
    (
        "forced_response 7/10 1/5 1/10",
        {
            "mechanism": "forced_response",
            "design": {"truthful": "7/10", "forced_yes": "1/5", "forced_no": "1/10"},
        },
        [0, 1],
    ),
    ("warner eps=1", {"mechanism": "warner", "epsilon": 1.0}, [0, 1]),
    ("warner eps=0.5", {"mechanism": "warner", "epsilon": 0.5}, [0, 1]),
    ("grr k=2 eps=1", {"mechanism": "grr", "k": 2, "epsilon": 1.0}, [0, 1]),
    ("grr k=5 eps=1", {"mechanism": "grr", "k": 5, "epsilon": 1.0}, [0, 2, 4]),
    ("grr k=100 eps=2", {"mechanism": "grr", "k": 100, "epsilon": 2.0}, [0, 57, 99]),
    ("sue k=4 eps=2", {"mechanism": "sue", "k": 4, "epsilon": 2.0}, [0, 3]),
    ("oue k=3 eps=1", {"mechanism": "oue", "k": 3, "epsilon": 1.0}, [0, 1, 2]),
    ("oue k=16 eps=1", {"mechanism": "oue", "k": 16, "epsilon": 1.0}, [0, 9, 15]),
    ("olh k=8 eps=1.5", {"mechanism": "olh", "k": 8, "epsilon": 1.5}, [0, 5, 7]),
    (
        "olh k=4096 eps=3 g=7",
        {"mechanism": "olh", "k": 4096, "epsilon": 3.0, "g": 7},
        [0, 1, 4095],
    ),
    (
        "hadamard k=5 eps=1",
        {"mechanism": "hadamard", "k": 5, "epsilon": 1.0},
        [0, 3, 4],
    ),
    (
        "hadamard k=16 eps=2",
        {"mechanism": "hadamard", "k": 16, "epsilon": 2.0},
        [0, 7, 15],
    ),
    ("ordinal k=5 eps=1", {"mechanism": "ordinal", "k": 5, "epsilon": 1.0}, [0, 2, 4]),
    ("ordinal k=7 eps=2", {"mechanism": "ordinal", "k": 7, "epsilon": 2.0}, [0, 3, 6]),
    (
        "geometric 0..10 step 1 eps=4",
        {"mechanism": "geometric", **grid("0", "10", "1"), "epsilon": 4.0},
        [0, 5, 10],
    ),
    (
        "geometric 0..1000 step 1 eps=9",
        {"mechanism": "geometric", **grid("0", "1000", "1"), "epsilon": 9.0},
        [0, 1, 500, 1000],
    ),
    (
        "geometric -1..1 step 0.25 eps=3",
        {"mechanism": "geometric", **grid("-1", "1", "0.25"), "epsilon": 3.0},
        [0, 4, 8],
    ),
    (
        "gaussian 0..20 step 2 eps=3",
        {"mechanism": "gaussian", **grid("0", "20", "2"), "epsilon": 3.0},
        [0, 5, 10],
    ),
    (
        "duchi 0..100 step 5 eps=1",
        {"mechanism": "duchi", **grid("0", "100", "5"), "epsilon": 1.0},
        [0, 1, 10, 20],
    ),
    (
        "piecewise 0..10 step 1 eps=2",
        {"mechanism": "piecewise", **grid("0", "10", "1"), "epsilon": 2.0},
        [0, 5, 10],
    ),
    (
        "multi_rr k=3 eps=1.5",
        {"mechanism": "multi_rr", "k": 3, "epsilon": 1.5},
        [[], [1], [2, 0], [0, 1, 2]],
    ),
    (
        "multi_rr k=8 eps=4",
        {"mechanism": "multi_rr", "k": 8, "epsilon": 4.0},
        [[], [7], [5, 0, 3], list(range(8))],
    ),
    (
        "padding_sampling k=6 ell=2 eps=1",
        {"mechanism": "padding_sampling", "k": 6, "ell": 2, "epsilon": 1.0},
        [[], [4], [5, 1]],
    ),
    (
        "padding_sampling k=10 ell=3 eps=2",
        {"mechanism": "padding_sampling", "k": 10, "ell": 3, "epsilon": 2.0},
        [[9], [3, 0], [9, 0, 4]],
    ),
]


def _tampered(name: str, requested: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A compiled spec with fields or weights replaced (a hostile server's)."""
    spec: dict[str, Any] = json.loads(
        json.dumps(ldp.build({"version": 1, **requested}).spec)
    )
    for key, value in changes.items():
        if key.startswith("w_"):
            spec["weights"][key[2:]] = value
        elif value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return spec


def _warner_check_cases() -> list[tuple[str, dict[str, Any], str]]:
    """Warner specs a hostile server might send, with the device's verdict."""
    warner = {"mechanism": "warner", "epsilon": 1.0}
    return [
        (
            "warner degenerate: keep 2^32-1, flip 1",
            _tampered("w", warner, w_keep=2**32 - 1, w_flip=1),
            "declared_mismatch",
        ),
        (
            "warner degenerate, declared epsilon 10",
            _tampered("w", warner, w_keep=2**32 - 1, w_flip=1, epsilon=10.0),
            "declared_mismatch",
        ),
        (
            "warner honest eps=6: above the question ceiling",
            ldp.build({"version": 1, "mechanism": "warner", "epsilon": 6.0}).spec,
            "above_question_ceiling",
        ),
        (
            "warner keep and flip swapped (same channel, relabelled)",
            _tampered(
                "w",
                warner,
                w_keep=ldp.build({"version": 1, **warner}).spec["weights"]["flip"],
                w_flip=ldp.build({"version": 1, **warner}).spec["weights"]["keep"],
            ),
            "ok",
        ),
    ]


def device_check_cases() -> list[tuple[str, dict[str, Any], str]]:
    """Specs a hostile server might send, with the verdict the device must reach.

    Verdicts are the randomizer's refusal codes, or ``ok``.
    """
    grr5 = {"mechanism": "grr", "k": 5, "epsilon": 1.0}
    grr5_strong = ldp.build({"version": 1, "mechanism": "grr", "k": 5, "epsilon": 2.0})
    multi = {"mechanism": "multi_rr", "k": 3, "epsilon": 1.5}
    ordinal = {"mechanism": "ordinal", "k": 5, "epsilon": 1.0}
    rows = ldp.build({"version": 1, **ordinal}).spec["weights"]["rows"]
    skewed = [list(row) for row in rows]
    skewed[0][0] += skewed[0][4] - 1
    skewed[0][4] = 1
    return [
        *_warner_check_cases(),
        (
            "grr weights of eps=2 declared as eps=1",
            _tampered(
                "g",
                grr5,
                w_keep=grr5_strong.spec["weights"]["keep"],
                w_other=grr5_strong.spec["weights"]["other"],
            ),
            "declared_mismatch",
        ),
        (
            "grr with no declared epsilon",
            _tampered("g", grr5, epsilon=None),
            "unverifiable",
        ),
        (
            "grr with an extra field",
            _tampered("g", grr5, note="trust me"),
            "unverifiable",
        ),
        (
            "unknown mechanism",
            {"version": 1, "mechanism": "laplace", "epsilon": 1.0, "weights": {}},
            "unknown_mechanism",
        ),
        (
            "forced_response design that disagrees with its weights",
            _tampered(
                "f",
                {"mechanism": "forced_response", "design": COIN},
                w_truthful=98,
                w_forced_yes=1,
                w_forced_no=1,
            ),
            "declared_mismatch",
        ),
        (
            "multi_rr per-option epsilon that disagrees with its weights",
            _tampered("m", multi, epsilon_per_option=0.25),
            "declared_mismatch",
        ),
        (
            "ordinal row with a near-zero weight",
            _tampered("o", ordinal, w_rows=skewed),
            "declared_mismatch",
        ),
    ]


def survey_check_cases() -> list[tuple[str, list[str], str]]:
    """Whole surveys (names of vector groups) and the device's verdict."""
    return [
        (
            "three questions of eps=4: above the survey ceiling",
            ["multi_rr k=8 eps=4"] * 3,
            "above_survey_ceiling",
        ),
        (
            "coin, warner, grr: within the ceilings",
            ["forced_response coin", "warner eps=1", "grr k=5 eps=1"],
            "ok",
        ),
    ]
