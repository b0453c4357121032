"""Cross-tabs of two randomized questions and breakdowns by a plain question.

Reads the stored (already private) reports and hands the maths to
``ldp.estimators.crosstab`` and the mechanisms' own estimators.  Only reports
made under each question's current spec revision are used: one channel per
question is what makes the joint channel a Kronecker product.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.utils.translation import gettext_noop

import ldp
from ldp.estimators.crosstab import (
    CELLS_MAX,
    CrossTabEstimate,
    crosstab_estimate,
    joint_histogram,
)
from surveys.analysis import wording
from surveys.analysis.results.cells import joint_groups
from surveys.authoring import kinds
from surveys.authoring.compiled import compiled_mechanism
from surveys.authoring.models import Question, Survey
from surveys.collection import report_codec
from surveys.collection.models import PlainAnswer, Report
from surveys.collection.questions import CHOICE_KINDS, value_label

CROSSTAB_KINDS = CHOICE_KINDS  # yes/no, single choice, ordinal
FINITE_CHANNEL_MESSAGE = gettext_noop(
    "Cross-tabs need a finite-channel mechanism (randomized response, "
    "generalized randomized response or the order-aware scale mechanism); "
    "“%(text)s” uses %(mechanism)s."
)
CHUNK = 5000


class CrossTabUnavailable(wording.Refusal):
    """The pair cannot be cross-tabulated; the message says why (worded in
    each reader's language when shown, ``wording.Refusal``)."""


def labels(question: Question) -> list[str]:
    """Answer labels in value order (value = index ldp randomizes)."""
    mechanism = compiled_mechanism(question.spec) if question.spec else None
    k = mechanism.k if mechanism is not None else len(question.options or ())
    if fixed := kinds.facts(question.kind).fixed_options:
        k = len(fixed)
    return [value_label(question, v) for v in range(k)]


def finite_channel(question: Question) -> np.ndarray:
    """The question's channel Q[x, y], or CrossTabUnavailable saying why not."""
    if not question.is_private or not question.spec:
        raise CrossTabUnavailable(
            gettext_noop(
                "“%(text)s” is not randomized; use it as a breakdown instead."
            ),
            text=question.text,
        )
    mechanism = compiled_mechanism(question.spec)
    name = question.spec.get("mechanism", "")
    if question.kind not in CROSSTAB_KINDS or not mechanism.one_answer_reports:
        raise CrossTabUnavailable(
            FINITE_CHANNEL_MESSAGE, text=question.text, mechanism=name
        )
    try:
        return mechanism.channel_matrix()
    except NotImplementedError:
        raise CrossTabUnavailable(
            FINITE_CHANNEL_MESSAGE, text=question.text, mechanism=name
        ) from None


def crosstab_candidates(survey: Survey) -> list[Question]:
    """Randomized questions whose mechanism is a finite channel."""
    found = []
    for question in survey.questions.filter(is_private=True):
        try:
            finite_channel(question)
        except (CrossTabUnavailable, ValueError):
            continue
        found.append(question)
    return found


def _current_reports(question: Question, upto: int | None = None) -> dict[int, object]:
    """submission id → report, for reports under the current spec revision
    (with ``upto``: only reports with ``id <= upto``)."""
    reports = Report.objects.filter(
        survey_id=question.survey_id,
        question=question,
        spec_revision=question.spec_revision,
    )
    if upto is not None:
        reports = reports.filter(id__lte=upto)
    rows = reports.order_by("id").values_list("submission_id", "value", "bits")
    return dict(report_codec.decode_rows(question.spec, rows.iterator(CHUNK)))


@dataclass(frozen=True)
class CrossTab:
    question_a: Question
    question_b: Question
    labels_a: list[str]
    labels_b: list[str]
    result: CrossTabEstimate
    low: np.ndarray
    high: np.ndarray
    consistent: np.ndarray
    excluded: int  # submissions with a report for only one of the two (or old spec)


def crosstab(
    question_a: Question,
    question_b: Question,
    *,
    upto: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> CrossTab:
    """Joint debiasing of two randomized questions of one survey.

    ``upto``: only reports with ``id <= upto`` (a snapshot's watermark);
    ``progress`` is called with the share of the work done.
    """
    report = progress or (lambda share: None)
    if question_a.pk == question_b.pk:
        raise CrossTabUnavailable(gettext_noop("Pick two different questions."))
    if question_a.survey_id != question_b.survey_id:
        raise CrossTabUnavailable(
            gettext_noop("Both questions must belong to the same survey.")
        )
    qa, qb = finite_channel(question_a), finite_channel(question_b)
    cells = qa.shape[0] * qb.shape[0]
    if cells > CELLS_MAX:
        raise CrossTabUnavailable(
            gettext_noop(
                "That cross-tab would have %(cells)s cells; at most %(most)s are "
                "estimated."
            ),
            cells=cells,
            most=CELLS_MAX,
        )
    reports_a = _current_reports(question_a, upto)
    report(0.4)
    reports_b = _current_reports(question_b, upto)
    report(0.8)
    both = sorted(set(reports_a) & set(reports_b))
    excluded = len(set(reports_a) ^ set(reports_b))
    if len(both) < 2:
        raise CrossTabUnavailable(
            gettext_noop(
                "Fewer than 2 respondents answered both questions under their "
                "current settings, so there is nothing to estimate yet."
            )
        )
    mech_a, mech_b = (
        compiled_mechanism(question_a.spec),
        compiled_mechanism(question_b.spec),
    )
    y_a = mech_a.reports_to_array([reports_a[s] for s in both])
    y_b = mech_b.reports_to_array([reports_b[s] for s in both])
    counts = joint_histogram(y_a, y_b, qa.shape[1], qb.shape[1])
    result = crosstab_estimate(counts, qa, qb)
    interval = result.confidence_interval(0.95)
    return CrossTab(
        question_a=question_a,
        question_b=question_b,
        labels_a=labels(question_a),
        labels_b=labels(question_b),
        result=result,
        low=interval.low,
        high=interval.high,
        consistent=result.consistent(),
        excluded=excluded,
    )


# --- breakdown by a plain (not protected) question ---------------------------------
@dataclass(frozen=True)
class Stratum:
    label: str
    n: int
    estimate: list[float] = field(default_factory=list)
    low: list[float] = field(default_factory=list)
    high: list[float] = field(default_factory=list)
    consistent: list[float] = field(default_factory=list)
    mean: float | None = None
    mean_low: float | None = None
    mean_high: float | None = None
    note: str = ""
    minimum: int | None = None


@dataclass(frozen=True)
class Breakdown:
    question: Question
    by: Question
    labels: list[str]
    strata: list[Stratum]


SMALL_GROUP_NOTE = gettext_noop(
    "Fewer than %(minimum)s reports in this group, the smallest group the "
    "results estimate: not shown, because so few randomized reports can put "
    "a share far below 0 or above 100 percent and give an interval that "
    "means nothing."
)

# The note of a group of fewer than 2 reports in breakdowns stored before the
# minimum group size: still worded when such a result is shown.
EARLIER_SMALL_GROUP_NOTE = gettext_noop("Too few reports to estimate.")


def breakdown_candidates(survey: Survey) -> list[Question]:
    """Plain questions with one answer from a list (they define strata)."""
    return list(survey.questions.filter(is_private=False, kind__in=CROSSTAB_KINDS))


def _stratum(
    mechanism: ldp.Mechanism,
    label: str,
    stat: ldp.SupportCounts | None,
    *,
    shares: bool,
) -> Stratum:
    """One group's estimate from its reports' aggregate: its shares (when
    listed) and its mean (if any).

    A group with fewer reports than ``settings.BREAKDOWN_MIN_GROUP`` is not
    estimated: its note says why (docs/maths.md, section 6.8).
    """
    minimum = max(int(settings.BREAKDOWN_MIN_GROUP), mechanism.minimum_reports, 2)
    n = stat.n if stat is not None else 0
    if stat is None or n < minimum:
        note = SMALL_GROUP_NOTE  # worded when shown, with the minimum
        return Stratum(label, n, note=note, minimum=minimum)
    estimate = mechanism.estimate(stat)
    fields: dict = {}
    if shares and estimate.identifiable:
        interval = estimate.confidence_interval(0.95)
        fields.update(
            estimate=[float(v) for v in estimate.estimate],
            low=[float(v) for v in interval.low],
            high=[float(v) for v in interval.high],
            consistent=[float(v) for v in estimate.consistent()],
        )
    mean = estimate.mean()
    if mean is not None:
        mean_interval = mean.confidence_interval(0.95)
        fields.update(
            mean=float(mean.estimate),
            mean_low=float(mean_interval.low),
            mean_high=float(mean_interval.high),
        )
    return Stratum(label, estimate.n, **fields)


def breakdown(
    question: Question,
    by: Question,
    *,
    upto: int | None = None,
    progress: Callable[[float], None] | None = None,
    cells: dict | None = None,
) -> Breakdown:
    """Debias ``question`` within each answer of the plain question ``by``.

    ``upto`` and ``progress`` as for :func:`crosstab`.  ``cells``: the joint
    tallies of the snapshot at ``upto`` (``results.cells.snapshot_cells``);
    each group's aggregate is then read from them, not from the reports.
    """
    report = progress or (lambda share: None)
    if not question.is_private or not question.spec:
        raise CrossTabUnavailable(
            gettext_noop("“%(text)s” is not randomized."), text=question.text
        )
    if by.is_private or by.kind not in CROSSTAB_KINDS:
        raise CrossTabUnavailable(
            gettext_noop(
                "“%(text)s” is not a plain one-answer question, so it cannot "
                "define groups."
            ),
            text=by.text,
        )
    if question.survey_id != by.survey_id:
        raise CrossTabUnavailable(
            gettext_noop("Both questions must belong to the same survey.")
        )
    mechanism = compiled_mechanism(question.spec)
    if cells is not None:
        groups = joint_groups(
            cells,
            question_id=question.pk,
            revision=question.spec_revision,
            by=by.pk,
            spec=mechanism.spec,
        )
    else:
        groups = _groups_from_reports(question, by, mechanism, upto, report)
    report(0.8)
    item_labels = labels(question) if not kinds.facts(question.kind).grid else []
    strata = [
        _stratum(mechanism, label, groups.get(value), shares=bool(item_labels))
        for value, label in enumerate(labels(by))
    ]
    return Breakdown(question=question, by=by, labels=item_labels, strata=strata)


def _groups_from_reports(
    question: Question,
    by: Question,
    mechanism: ldp.Mechanism,
    upto: int | None,
    report: Callable[[float], None],
) -> dict[int, ldp.SupportCounts]:
    """Each answer of ``by`` → the aggregate of ``question``'s current
    reports of the submissions that gave it, read from the reports (a
    snapshot stored before it held joint tallies)."""
    reports = _current_reports(question, upto)
    report(0.4)
    groups: dict[int, list] = defaultdict(list)
    answers = (
        PlainAnswer.objects.filter(question=by)
        .order_by("id")
        .values_list("submission_id", "value")
    )
    for submission_id, value in answers.iterator(chunk_size=CHUNK):
        if submission_id in reports:
            groups[value].append(reports[submission_id])
    return {value: mechanism.aggregate(found) for value, found in groups.items()}
