"""Tallies: each private question's additive sufficient statistic, kept current.

A Tally holds, per (question, spec revision), the mechanism's aggregate of
every report folded in so far (``stat.to_dict()`` of ldp).  A survey's
TallyWatermark says which reports those are: every report of the survey with
``id <= watermark``.  Estimates are computed from tallies, never from raw
reports at request time.
"""

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from django.db import IntegrityError, models, transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from surveys.analysis import wording
from surveys.authoring.models import Question, Survey


class TallyWatermark(models.Model):
    """The highest Report.id folded into a survey's tallies (never decreases)."""

    survey = models.OneToOneField(
        Survey, on_delete=models.CASCADE, primary_key=True, related_name="watermark"
    )
    last_report_id = models.BigIntegerField(default=0)
    # Submissions with a report at or below ``last_report_id`` (counted as the
    # tallies advance, ``answer_tallies``): the n of results at this watermark.
    responses = models.BigIntegerField(default=0)
    # The largest submission id the tallies cover: every counted submission
    # of the survey with an id at or below it is in them (a survey's
    # submissions and reports take their ids in the same order, under the
    # survey's lock), so a release is this bound, copied to its snapshot.
    last_submission_id = models.BigIntegerField(default=0)
    # When the tallies last advanced (None: never).
    refreshed_at = models.DateTimeField(null=True, blank=True)
    # Whether the joint and pattern tallies (``tallies.cells``) hold every
    # report up to the watermark: False for surveys tallied before they
    # existed, until the next refresh counts them once.
    cells_counted = models.BooleanField(default=True)

    def __str__(self) -> str:
        return f"survey {self.survey_id} tallied to report {self.last_report_id}"


class Tally(models.Model):
    """One question's aggregate under one spec revision."""

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="tallies"
    )
    spec_revision = models.PositiveIntegerField()
    n = models.BigIntegerField(default=0)
    # ``ldp`` SupportCounts.to_dict(): {"n", "counts", "spec"}.
    stat = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question", "spec_revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["question", "spec_revision"], name="one_tally_per_revision"
            ),
        ]

    def __str__(self) -> str:
        return f"tally of question {self.question_id} r{self.spec_revision}: n={self.n}"


class PlainAnswerTally(models.Model):
    """How many tallied submissions gave one answer to an unprotected question.

    Kept beside the report tallies, by the same worker path and under the same
    watermark (``answer_tallies``): a submission counts once its first report
    is at or below the survey's watermark, so these counts describe exactly
    the submissions whose reports the tallies hold.  ``value_key`` is
    ``answer_tallies.value_key(value)`` (the canonical JSON of the answer,
    hashed so that a long answer still fits a unique index).
    """

    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="plain_tallies"
    )
    value_key = models.CharField(max_length=64)
    value = models.JSONField()  # the answer as it was sent
    count = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["question", "value_key"]
        constraints = [
            models.UniqueConstraint(
                fields=["question", "value_key"], name="one_plain_tally_per_answer"
            ),
        ]

    def __str__(self) -> str:
        return f"plain tally of question {self.question_id}: {self.count}"


class SkipTally(models.Model):
    """How many tallied submissions left one shown optional question
    unanswered (item non-response), by how (``collection.missing``): declined
    ("Prefer not to answer"), left blank, or unknown (one of the two, stored
    before the device told them apart); kept as :class:`PlainAnswerTally` is."""

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, primary_key=True, related_name="skip_tally"
    )
    declined = models.BigIntegerField(default=0)
    blank = models.BigIntegerField(default=0)
    unknown = models.BigIntegerField(default=0)

    # The columns, by the reason a skip is stored with (``SkippedAnswer.reason``).
    REASONS = ("declined", "blank", "unknown")

    def __str__(self) -> str:
        return (
            f"skips of question {self.question_id}: declined {self.declined}, "
            f"blank {self.blank}, unknown {self.unknown}"
        )


class JointTally(models.Model):
    """A protected question's aggregate within one answer of an unprotected
    choice question (``by``): what a breakdown by ``by`` estimates from.

    Kept by the worker path that folds reports (``tallies.cells``), under the
    survey's watermark: the report of every tallied submission that gave
    ``by_value`` to ``by``.  One row per (question, revision, by, answer), so
    a breakdown reads a few rows whatever n.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    spec_revision = models.PositiveIntegerField()
    by = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    by_value = models.IntegerField()
    n = models.BigIntegerField(default=0)
    # ``ldp`` SupportCounts.to_dict() of those reports.
    stat = models.JSONField()

    class Meta:
        ordering = ["survey_id", "question_id", "spec_revision", "by_id", "by_value"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "question", "spec_revision", "by", "by_value"],
                name="one_joint_tally_per_cell",
            ),
        ]

    def __str__(self) -> str:
        return f"joint tally of question {self.question_id} by {self.by_id}: {self.n}"


class PatternTally(models.Model):
    """Tallied submissions, and their reports' moments, per pattern of
    answers to the survey's unprotected choice questions.

    ``pattern`` maps each such question answered to its answer (a skipped
    one is absent).  A row without ``question`` counts the pattern's
    submissions; a row with one holds its reports' SupportCounts and
    ``ldp.estimators.grouped.GroupMoments`` under one revision, which is
    what weights chosen after fielding (one weight per pattern) need.
    """

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="+")
    pattern_key = models.CharField(max_length=64)
    pattern = models.JSONField()  # {question id (text): answer}
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    spec_revision = models.PositiveIntegerField(default=0)
    n = models.BigIntegerField(default=0)
    stat = models.JSONField(null=True, blank=True)
    moments = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["survey_id", "pattern_key", "question_id", "spec_revision"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "pattern_key", "question", "spec_revision"],
                name="one_pattern_tally_per_cell",
                nulls_distinct=False,
            ),
        ]

    def __str__(self) -> str:
        return f"pattern tally {self.pattern_key[:8]} of survey {self.survey_id}"


class ResultSnapshot(models.Model):
    """A survey's computed results, as of one tally watermark: only the latest.

    The row is never edited: a newer snapshot replaces it (delete and insert
    in one short transaction, ``services.snapshot_refresh``), so a reader sees
    either the previous snapshot or the next one, never a half-computed state.
    ``document`` is ``results.results_to_document`` of the SurveyResults the
    worker computed from the tallies; ``definition`` fingerprints the question
    texts and spec revisions it was computed under (a change makes it stale).
    """

    survey = models.OneToOneField(
        Survey, on_delete=models.CASCADE, related_name="result_snapshot"
    )
    version = models.PositiveIntegerField()
    # Every report of the survey with id <= watermark is in these results.
    watermark = models.BigIntegerField()
    # Submissions whose reports are in these results.
    responses = models.BigIntegerField()
    # The tallies' ``last_submission_id`` at ``watermark``: the submissions
    # of this release are the survey's counted ones with an id at or below it.
    last_submission_id = models.BigIntegerField(default=0)
    spec_revisions = models.JSONField()  # {question id: spec revision}
    definition = models.CharField(max_length=64)
    document = models.JSONField()
    computed_at = models.DateTimeField()
    # The joint and pattern tallies at ``watermark`` (``tallies.cells``), so
    # breakdowns and weights agree with these results without reading reports.
    cells = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return (
            f"snapshot v{self.version} of survey {self.survey_id} "
            f"at report {self.watermark}"
        )


class ExportStorage(FileSystemStorage):
    """Files under ``settings.EXPORT_ROOT``, read when used (not at import)."""

    @property  # type: ignore[override]
    def base_location(self) -> str:
        return str(settings.EXPORT_ROOT)

    @property  # type: ignore[override]
    def location(self) -> str:
        return os.path.abspath(self.base_location)


def export_storage() -> FileSystemStorage:
    """Where export jobs' files live (``settings.EXPORT_ROOT``), never served as
    static or media files: only the download view reads them, for the owner."""
    return ExportStorage()


class AnalysisJob(models.Model):
    """A researcher-chosen analysis (a cross-tab, a breakdown, a regression,
    weighted estimates, an export) run by a worker.

    A cross-tab or breakdown is computed on the reports up to the survey's
    results snapshot (``watermark``), so it advances in the same batches as the
    results; an identical request finds the stored job until the snapshot moves
    on.  An export writes a file (``file``, under ``settings.EXPORT_ROOT``) of
    the raw data as it stood when it was asked for: its ``watermark`` is the
    survey's latest submission id then, and ``params["definition"]`` the
    questions' fingerprint, so an identical request reuses the file until a
    new submission or an edit changes the data.
    """

    class Kind(models.TextChoices):
        CROSSTAB = "crosstab", _("cross-tab")
        BREAKDOWN = "breakdown", _("breakdown")
        EXPORT = "export", _("export")
        PILOT = "pilot", _("simulated pilot")
        REGRESSION = "regression", _("regression")
        WEIGHTED = "weighted", _("weighted estimates")

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("job status", "queued")
        RUNNING = "running", pgettext_lazy("job status", "running")
        DONE = "done", pgettext_lazy("job status", "done")
        FAILED = (
            "failed",
            pgettext_lazy("job status", "failed"),
        )  # the analysis is not possible; ``error`` says why

    survey = models.ForeignKey(
        Survey, on_delete=models.CASCADE, related_name="analysis_jobs"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # {"a": id, "b": id}, {"q": id, "by": id}, or {"export": name, "definition": …}
    params = models.JSONField()
    watermark = models.BigIntegerField()
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.QUEUED
    )
    progress = models.FloatField(default=0.0)  # 0 to 1
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)  # why it failed, in English (plain text)
    # Why it failed as a note (``wording``: a code and its values), worded in
    # each reader's language on a page; None for a job stored before notes.
    failure = models.JSONField(null=True, blank=True)
    # An export's file, written whole before the job is marked done.
    file = models.FileField(storage=export_storage, max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "kind", "params", "watermark"],
                name="one_job_per_request_and_data",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} of survey {self.survey_id}: {self.status}"

    @property
    def failure_shown(self) -> str:
        """Why the job failed, in the active language (a job stored before
        failures were notes: its English ``error`` as stored)."""
        if self.failure:
            return wording.shown(self.failure)
        return self.error


class QuestionBins(models.Model):
    """A researcher's cut points for one number question's binned distribution.

    ``cuts`` are answer values, increasing, within the question's range (the
    range's ends are added); without a row the results use five equal-width
    bins with round cut points.  Saving a row changes the survey's results
    definition (``selectors.survey_definition``), so the snapshot is stale and
    the workers recompute it.
    """

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, primary_key=True, related_name="bins"
    )
    cuts = models.JSONField()  # list of floats
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"bins of question {self.question_id}: {self.cuts}"


class ResultsSettings(models.Model):
    """A survey's choices of how its results are computed (no row: the defaults).

    ``consistent_method`` names the ldp post-processing that turns the
    unbiased shares into a distribution (docs/maths.md, section 6.2): the
    Euclidean projection onto the simplex, or the maximum-likelihood estimate
    through the mechanism's channel.  Changing it changes the survey's results
    definition (``selectors.survey_definition``), so the snapshot is stale and
    the workers recompute it.
    """

    class Consistent(models.TextChoices):
        PROJECTION = "norm-sub", _("Projection onto the simplex (Norm-Sub)")
        MLE = "mle", _("Maximum likelihood through the randomization (EM)")

    survey = models.OneToOneField(
        Survey,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="results_settings",
    )
    consistent_method = models.CharField(
        max_length=16, choices=Consistent.choices, default=Consistent.PROJECTION
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"results settings of survey {self.survey_id}: {self.consistent_method}"


def job_find_or_create(lookup: dict) -> tuple[AnalysisJob, bool]:
    """(the job ``lookup`` names, created): an identical request made at the
    same moment finds the one the other created (the unique constraint)."""
    job = AnalysisJob.objects.filter(**lookup).first()
    if job is not None:
        return job, False
    try:
        with transaction.atomic():
            return AnalysisJob.objects.create(**lookup), True
    except IntegrityError:  # an identical request made it first
        return AnalysisJob.objects.get(**lookup), False
