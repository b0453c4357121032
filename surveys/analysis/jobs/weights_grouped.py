"""Weighted estimates from a snapshot's pattern tallies, not from reports.

Post-stratification and raking on unprotected answers give every respondent
with the same pattern of answers the same weight, so the weighted estimators
need per pattern only its respondents and its reports' moments
(``ldp.estimators.grouped``), which the snapshot holds at its watermark
(``tallies.cells``).  The table equals the one computed from the reports
(``weights.weighted_result``) to rounding, at a cost proportional to the
number of patterns whatever the number of reports.  A snapshot without them
(stored before they existed, or with more patterns than are kept) falls back
to the reports.
"""

from __future__ import annotations

from typing import Any

import ldp
from ldp.estimators.grouped import (
    grouped_design_effect,
    weighted_estimate_grouped,
    weighted_mean_grouped,
)
from ldp.mechanisms.oracle import SupportMechanism
from surveys.analysis.jobs import weighted_rows, weights
from surveys.analysis.results import selectors
from surveys.analysis.results.cells import PatternCell, pattern_cells, snapshot_cells
from surveys.authoring.models import Question, Survey


def _inputs(
    mechanism: ldp.Mechanism,
    groups: list[tuple[float, Any]],
    strata: list[str] | None,
) -> weighted_rows.WeightedInputs:
    """One question's weighted inputs from its (weight, (stat, moments))
    groups, each in its post-stratum ``strata`` (None: raked)."""
    moments = [(w, m) for w, (_, m) in groups]
    total = None
    for _, (stat, _) in groups:
        total = stat if total is None else total + stat
    n = int(total.n) if total is not None else 0
    shares_ready = isinstance(mechanism, SupportMechanism) and all(
        m.cross is not None for _, m in moments
    )

    def shares() -> Any:
        if not shares_ready:
            raise ValueError("no cross products kept for this mechanism")
        return weighted_estimate_grouped(mechanism, moments, strata)

    return weighted_rows.WeightedInputs(
        n=n,
        weighted=any(w > 0 and m.n > 0 for w, m in moments),
        plain=lambda: total,
        shares=shares,
        mean=lambda: weighted_mean_grouped(mechanism, moments, strata),
        mean_design_effect=lambda: grouped_design_effect(moments),
    )


def _grouped_ready(cells: list[PatternCell], question: Question) -> bool:
    """Whether every pattern holds what this question's estimator needs."""
    mechanism = question.compiled_mechanism()
    if mechanism is None:
        return False
    for cell in cells:
        found = cell.stats.get(question.pk)
        if found is None:
            continue
        moments = found[1]
        if isinstance(mechanism, SupportMechanism) and moments.cross is None:
            return False
        if hasattr(mechanism, "scores") and moments.score is None:
            return False
    return True


def weighted_result(
    survey: Survey, params: dict[str, Any], *, upto: int, progress: weights.Progress
) -> dict[str, Any]:
    """The weighted-estimates table (``weights.weighted_result``), from the
    pattern tallies of the snapshot at ``upto`` when it holds them."""
    questions = [
        q for q in selectors.survey_questions(survey) if q.compiled_mechanism()
    ]
    cells = snapshot_cells(survey_id=survey.pk, watermark=upto)
    found = (
        pattern_cells(
            cells,
            {q.pk: (q.spec_revision, q.compiled_mechanism().spec) for q in questions},
        )
        if cells is not None
        else None
    )
    if found is None or not all(_grouped_ready(found, q) for q in questions):
        return weights.weighted_result(survey, params, upto=upto, progress=progress)
    units = [
        (
            index,
            {int(pk): answer for pk, answer in cell.pattern.items()},
            cell.respondents,
        )
        for index, cell in enumerate(found)
    ]
    calibration = weights.calibrate_units(survey, params, units)
    progress(0.4)
    weight = dict(zip(calibration.kept, calibration.weights, strict=True))
    stratum = (
        None
        if calibration.cells is None
        else dict(zip(calibration.kept, calibration.cells, strict=True))
    )
    entries = []
    for question in questions:
        held = [
            index
            for index, cell in enumerate(found)
            if index in weight and question.pk in cell.stats
        ]
        groups = [(float(weight[i]), found[i].stats[question.pk]) for i in held]
        strata = None if stratum is None else [str(stratum[i]) for i in held]
        inputs = _inputs(question.compiled_mechanism(), groups, strata)
        entries.append(weighted_rows.question_entry(question, inputs))
    progress(0.95)
    return weights.result_table(calibration, entries)
