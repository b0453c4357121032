"""Reads for collection: what respondents see and what the server holds."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.formats import number_format

from surveys.authoring.kinds import facts
from surveys.authoring.models import Question, SpecRevision, Survey
from surveys.collection import report_codec
from surveys.collection.models import Invitation, Report, Submission
from surveys.collection.questions import shown_label
from surveys.collection.respondent_words import (
    describe_report,
    receipt_why,
)
from surveys.collection.tokens import (
    HASH_HMAC,
    HASH_LEGACY_SHA256,
    RECEIPT_MAX_AGE,
    invitation_token_hashes,
    legacy_invitation_token_hash,
    receipt_code_hash,
)


def survey_records_language(survey: Survey) -> bool:
    """Whether the survey's exports carry each response's language: while it
    records them (``Survey.record_language``), or once any was stored (kept and
    exported even after the researcher stops recording; nothing stored is lost).
    """
    return survey.record_language or (
        Submission.objects.filter(survey=survey).exclude(language="").exists()
    )


def submission_languages(survey: Survey, public_ids: Iterable[str]) -> dict[str, str]:
    """The recorded language of each of these submissions (public id -> code)."""
    return dict(
        Submission.objects.filter(
            survey=survey, public_id__in=list(public_ids)
        ).values_list("public_id", "language")
    )


def surveys_answerable() -> QuerySet[Survey]:
    """Surveys respondents may open (published: open or closed)."""
    return Survey.objects.filter(
        status__in=[Survey.Status.OPEN, Survey.Status.CLOSED]
    ).prefetch_related("questions")


def answerable_survey(public_token: str) -> Survey | None:
    """The answerable survey with this public token, its questions already
    loaded (``survey.questions.all()`` queries nothing more), or None."""
    return surveys_answerable().filter(public_token=public_token).first()


def invitation_by_token(
    token: str, *, survey: Survey | None = None
) -> Invitation | None:
    """The invitation a raw token names, found by its keyed hash (or None).

    Also finds rows hashed under one of ``SECRET_KEY_FALLBACKS`` and rows made
    before hashes were keyed (``hash_scheme = "sha256"``); using the invitation
    re-keys them (``services.submission_ingest``).
    """
    keyed = invitation_token_hashes(token)
    legacy = legacy_invitation_token_hash(token)
    rows = Invitation.objects.select_related("survey").filter(
        token_hash__in=[*keyed, legacy]
    )
    if survey is not None:
        rows = rows.filter(survey=survey)
    for invitation in rows:
        if invitation.hash_scheme == HASH_HMAC and invitation.token_hash in keyed:
            return invitation
        if (
            invitation.hash_scheme == HASH_LEGACY_SHA256
            and invitation.token_hash == legacy
        ):
            return invitation
    return None


def invited_responses_held(*, survey: Survey) -> int:
    """Responses that came through an invitation link and are not released
    yet (``analysis.results.release``): their links are not shown as used."""
    # The release's submission bound (0: nothing released yet), through
    # analysis's reverse relation ``Survey.result_snapshot``.
    bound = (
        Survey.objects.filter(pk=survey.pk)
        .values_list("result_snapshot__last_submission_id", flat=True)
        .first()
    ) or 0
    # One with no protected report too: it waits for its batch like any.
    return Submission.objects.filter(
        survey=survey, invited=True, is_test=False, pk__gt=bound
    ).count()


def invitation_counts(*, survey: Survey) -> dict[str, int]:
    """How many invitations a survey has, and how many were used as
    researchers may see it: a link counts as used only once the release that
    holds its response is out, so the count moves by whole batches and never
    tells when one person answered.  (``Invitation.used`` itself is the
    server's own state, read live for the one-use check and reminders.)"""
    counts = survey.invitations.aggregate(
        total=Count("id"), used=Count("id", filter=Q(used=True))
    )
    counts["used"] = max(0, counts["used"] - invited_responses_held(survey=survey))
    return counts


@dataclass(frozen=True)
class ReceiptLine:
    question: Question
    protected: bool
    sent: str
    # The spec the report was randomized under (its SpecRevision's).
    spec: dict[str, Any] | None = None
    # An optional question the respondent skipped: only that was sent.
    skipped: bool = False

    @property
    def why(self) -> str:
        """Why this line protects the respondent, for the kinds that need it."""
        if not self.protected:
            return ""
        spec = self.question.spec if self.spec is None else self.spec
        return receipt_why((spec or {}).get("mechanism", ""))


def report_specs(
    wanted: Iterable[tuple[int, int]],
) -> dict[tuple[int, int], dict[str, Any]]:
    """The spec reports were made under, per (question id, spec revision) asked
    for: its recorded ``SpecRevision``, else the question's spec if that
    revision is still the question's current one (pairs with neither are left
    out)."""
    wanted = set(wanted)
    specs = {
        (r.question_id, r.revision): r.spec
        for r in SpecRevision.objects.filter(
            question_id__in={q for q, _ in wanted},
            revision__in={revision for _, revision in wanted},
        )
        if (r.question_id, r.revision) in wanted
    }
    missing = {q for q, revision in wanted if (q, revision) not in specs}
    for question in Question.objects.filter(pk__in=missing, spec__isnull=False):
        if (question.pk, question.spec_revision) in wanted:
            specs[(question.pk, question.spec_revision)] = question.spec
    return specs


def stored_payloads(submission: Submission) -> dict[int, tuple[int, Any]]:
    """question id → (spec revision, the JSON report as sent) of a stored
    submission, decoded from its compact columns (``report_codec``)."""
    reports = list(submission.reports.filter(survey_id=submission.survey_id))
    specs = report_specs((r.question_id, r.spec_revision) for r in reports)
    return {
        r.question_id: (
            r.spec_revision,
            report_codec.decode(
                specs[(r.question_id, r.spec_revision)], r.value, r.bits
            ),
        )
        for r in reports
    }


def submission_receipt(*, submission: Submission) -> list[ReceiptLine]:
    """What the server holds for one submission, question by question.

    Built only from stored rows, so a receipt cannot reveal more than the
    server already holds.
    """
    reports = {r.question_id: r for r in submission.reports.all()}
    plain = {a.question_id: a.value for a in submission.plain_answers.all()}
    skipped = {s.question_id for s in submission.skipped_answers.all()}
    # Each report is described under the spec it was made with, which may not
    # be the question's current one (a later revision changes the mechanism).
    specs = {
        (r.question_id, r.revision): r.spec
        for r in SpecRevision.objects.filter(
            question_id__in=list(reports),
            revision__in={report.spec_revision for report in reports.values()},
        )
    }
    lines = []
    for question in submission.survey.questions.all():
        if question.pk in reports:
            report = reports[question.pk]
            spec = specs.get((question.pk, report.spec_revision))
            if spec is None:  # no record of that revision: say only the code
                same = report.spec_revision == question.spec_revision
                spec = (question.spec or {}) if same else {}
            sent = describe_report(question, _stored_report(report, spec), spec)
            lines.append(ReceiptLine(question, protected=True, sent=sent, spec=spec))
        elif question.pk in plain:
            value = plain[question.pk]
            if isinstance(value, list):
                sent = ", ".join(shown_label(question, v) for v in value)
            elif isinstance(value, int):
                sent = shown_label(question, value)
            elif facts(question.kind).grid:
                # Stored in the C locale; read in the page's (a decimal comma).
                sent = number_format(str(value))
            else:
                sent = str(value)
            lines.append(ReceiptLine(question, protected=False, sent=sent))
        elif question.pk in skipped:
            lines.append(
                ReceiptLine(
                    question, protected=question.is_private, sent="", skipped=True
                )
            )
    return lines


def submission_by_receipt(code: str) -> Submission | None:
    """The submission a receipt code names (by the code's hash), or None.

    None also once ``RECEIPT_MAX_AGE`` has passed since the (coarse) arrival
    time, so a link works for that long and at most one granularity unit less.
    """
    oldest = timezone.now() - timedelta(seconds=RECEIPT_MAX_AGE)
    return (
        Submission.objects.select_related("survey")
        .prefetch_related("reports", "plain_answers", "survey__questions")
        .filter(receipt_hash=receipt_code_hash(code), received_at__gte=oldest)
        .first()
    )


def _stored_report(report: Report, spec: dict[str, Any]) -> Any:
    """A stored report as sent (decoded under ``spec``), or, without a spec to
    decode it, its stored code as it is (an integer, or the bytes in hex)."""
    if report_codec.has_stored_form(spec):
        return report_codec.decode(spec, report.value, report.bits)
    return report.value if report.bits is None else bytes(report.bits).hex()
