"""Writes for collection: invitations and the ingestion of submissions.

A submission is stored whole in one transaction (invitation consumed,
Submission, Reports, PlainAnswers) or not at all.  Every report is checked to
be a possible output of its question's compiled mechanism, so nothing stored
here can be a private question's true answer.  Once a submission commits,
``signals.reports_committed`` tells whoever listens (analysis refreshes its
tallies).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils.translation import gettext

from surveys.authoring import lifecycle
from surveys.authoring.models import Survey
from surveys.collection import missing
from surveys.collection.answer_checks import AnswerChecker
from surveys.collection.models import (
    LINK_VALUE_MAX,
    Invitation,
    LinkValue,
    PlainAnswer,
    Report,
    SkippedAnswer,
    Submission,
)
from surveys.collection.responses import (
    IngestOutcome,
    ResponseIn,
    SentReport,
    SubmissionRejected,
)
from surveys.collection.selectors import (
    invitation_by_token,
    stored_payloads,
)
from surveys.collection.signals import (
    announce_reports_on_commit,
    announce_withdrawal_on_commit,
    reports_withdrawing,
)
from surveys.collection.tokens import (
    HASH_HMAC,
    invitation_token_hash,
    new_invitation_token,
    new_receipt_code,
    receipt_code_hash,
)

MAX_INVITATIONS_PER_BATCH = 10_000


# --- invitations -----------------------------------------------------------------
@transaction.atomic
def invitations_create(*, survey: Survey, count: int) -> list[str]:
    """Create ``count`` one-response invitations and return their tokens.

    The tokens are returned once and never stored: the database keeps only
    their keyed hashes (``tokens.invitation_token_hash``).  They come back in
    random order, unrelated to the order of the rows.
    """
    if not 1 <= count <= MAX_INVITATIONS_PER_BATCH:
        raise ValueError(
            f"count is {count!r}; allowed: 1 to {MAX_INVITATIONS_PER_BATCH}"
        )
    tokens = [new_invitation_token() for _ in range(count)]
    Invitation.objects.bulk_create(
        Invitation(survey=survey, token_hash=invitation_token_hash(t)) for t in tokens
    )
    # Rows are numbered in creation order; the list handed out is not.
    random.SystemRandom().shuffle(tokens)
    return tokens


def _lock_and_recheck(
    checker: AnswerChecker,
    response: ResponseIn | None = None,
    *,
    within_grace: bool = False,
    is_test: bool = False,
) -> None:
    """Inside the storing transaction: lock the survey row and re-check it.

    Re-publishing (and editing a published survey) locks the same row, so once
    this returns no re-publish can commit until the reports are stored; and a
    re-publish that committed after the reports were validated is seen here.
    A report randomized under an old spec can therefore never be stored.
    """
    survey, current = _locked_survey(checker.survey.pk)
    # Under the lock, so concurrent submissions cannot overshoot the target.
    _check_open(survey, within_grace=within_grace, is_test=is_test)
    if (
        survey.revision != checker.survey.revision
        or current != checker.revisions
        or (response is not None and response.survey_revision != survey.revision)
    ):
        raise SubmissionRejected(
            gettext(
                "This survey was changed while your answers were being sent, so "
                "nothing was stored. Reload the page to answer the current version."
            ),
            status=409,
            code="stale",
        )


def _locked_survey(pk: int) -> tuple[Survey, dict[int, int]]:
    """The survey row, locked until the transaction ends, and its questions'
    spec revisions by id."""
    survey = Survey.objects.select_for_update(of=("self",)).get(pk=pk)
    return survey, dict(survey.questions.values_list("pk", "spec_revision"))


def _check_open(
    survey: Survey, *, within_grace: bool = False, is_test: bool = False
) -> None:
    """Refuse unless the survey takes answers now (``lifecycle``).

    ``within_grace``: the respond page was loaded while the survey was open,
    recently enough (``lifecycle.stamp_within_grace``); such a submission is
    stored after an automatic or manual close, never once archived.
    """
    if is_test:
        # The owner's test mode: any published survey that is not archived,
        # whatever its dates or target (test responses never count).
        if survey.status != Survey.Status.DRAFT and not survey.archived:
            return
        raise SubmissionRejected(
            gettext(
                "Test responses need a published survey that is not archived; "
                "nothing was stored."
            ),
            status=410,
            code="closed",
        )
    if not lifecycle.accepts_submission(survey, within_grace=within_grace):
        raise SubmissionRejected(
            gettext("This survey is not accepting answers, so nothing was stored."),
            status=410,
            code="closed",
        )


# --- ingestion ---------------------------------------------------------------------
def submission_ingest(
    *,
    survey: Survey,
    response: ResponseIn,
    invitation_token: str | None = None,
    within_grace: bool = False,
    is_test: bool = False,
    language: str = "",
) -> IngestOutcome:
    """Store one response whole, or raise SubmissionRejected with nothing stored.

    A repeated idempotency key returns the submission stored under it (a retry
    after a network error) instead of storing a duplicate, with a new receipt
    code (the one sent before may never have arrived; only the newest works).

    An invitation is consumed in the same transaction, by a conditional update
    (``used`` from false to true) that a concurrent use of the same invitation
    waits for and then finds nothing to update.  Nothing relates the two rows
    afterwards: the submission keeps no key to the invitation, the invitation
    no time.

    ``language`` (the one the respondent read the survey in) is stored only if
    the survey records it (``Survey.record_language``); otherwise it is dropped.
    """
    try:
        return _ingest_new(
            survey=survey,
            response=response,
            invitation_token=invitation_token,
            within_grace=within_grace,
            is_test=is_test,
            language=language if survey.record_language else "",
        )
    except SubmissionRejected:
        # A retry of a stored response is answered with its receipt even when
        # the survey closed, changed, or its invitation was used (by it) since;
        # looked up only now, so a new response costs no lookup.
        existing = _existing(survey, response)
        if existing is not None:
            return _replayed(existing)
        raise


def _ingest_new(
    *,
    survey: Survey,
    response: ResponseIn,
    invitation_token: str | None,
    within_grace: bool,
    is_test: bool,
    language: str = "",
) -> IngestOutcome:
    """Store a response not stored before, in one transaction: lock and
    re-check the survey, consume the invitation (if any), then insert the
    submission and its reports, answers, skips and link values (one
    ``bulk_create`` per table that has rows).

    The submission's key is unique per survey: a concurrent or repeated
    response with the same key fails its insert, the transaction rolls back,
    and the stored one is returned instead."""
    _check_open(survey, within_grace=within_grace, is_test=is_test)
    invitation = _invitation(survey, invitation_token)
    checker = AnswerChecker(survey)
    plain = checker.check(response)
    _check_link_values(survey, response)
    receipt_code = new_receipt_code()
    try:
        with transaction.atomic():
            _lock_and_recheck(
                checker,
                response,
                within_grace=within_grace,
                is_test=is_test,
            )
            if invitation is not None and invitation_token is not None:
                _consume(invitation, invitation_token)
            submission = Submission(
                survey=survey,
                idempotency_key=response.idempotency_key,
                survey_revision=response.survey_revision,
                receipt_hash=receipt_code_hash(receipt_code),
                is_test=is_test,
                language=language,
                invited=invitation is not None,
            )
            submission.save(force_insert=True)
            _store_rows(checker, [(submission, response, plain)])
    except IntegrityError:
        # Another request won the race: either the same response (a retry)
        # or a different one for the same invitation.
        existing = _existing(survey, response)
        if existing is not None:
            return _replayed(existing)
        if invitation is not None:
            raise _used_invitation() from None
        raise
    announce_reports_on_commit(survey_id=survey.pk)  # never fails the submission
    return IngestOutcome(submission, created=True, receipt_code=receipt_code)


def _consume(invitation: Invitation, token: str) -> None:
    """Mark the invitation used (re-keying an old hash), or IntegrityError."""
    consumed = Invitation.objects.filter(pk=invitation.pk, used=False).update(
        used=True,
        token_hash=invitation_token_hash(token),
        hash_scheme=HASH_HMAC,
    )
    if not consumed:
        raise IntegrityError("invitation already used")


def _replayed(submission: Submission) -> IngestOutcome:
    """A retry of a stored submission: a fresh receipt code replaces the old one."""
    code = new_receipt_code()
    Submission.objects.filter(pk=submission.pk).update(
        receipt_hash=receipt_code_hash(code)
    )
    return IngestOutcome(submission, created=False, receipt_code=code)


@transaction.atomic
def submissions_ingest_bulk(*, survey: Survey, responses: Iterable[ResponseIn]) -> int:
    """Validate and store many public-link responses in one transaction.

    For simulated respondents and imports; every response is checked exactly
    as :func:`submission_ingest` checks one.  Returns the number stored.
    """
    _check_open(survey)
    checker = AnswerChecker(survey)
    checked = [(response, checker.check(response)) for response in responses]
    _lock_and_recheck(checker)
    submissions = Submission.objects.bulk_create(
        Submission(
            survey=survey,
            idempotency_key=response.idempotency_key,
            survey_revision=response.survey_revision,
        )
        for response, _ in checked
    )
    _store_rows(
        checker,
        [
            (submission, response, plain)
            for submission, (response, plain) in zip(submissions, checked, strict=True)
        ],
    )
    if submissions:
        announce_reports_on_commit(survey_id=survey.pk)  # results follow at once
    return len(submissions)


def _store_rows(
    checker: AnswerChecker, rows: list[tuple[Submission, ResponseIn, dict[int, Any]]]
) -> None:
    Report.objects.bulk_create(
        Report(
            submission=submission,
            survey_id=submission.survey_id,  # the partition key
            question_id=pk,
            spec_revision=sent.spec_revision,
            **checker.stored(pk, sent),
            is_test=submission.is_test,
        )
        for submission, response, _ in rows
        for pk, sent in sorted(response.reports.items())
    )
    PlainAnswer.objects.bulk_create(
        PlainAnswer(
            submission=submission,
            survey_id=submission.survey_id,
            question_id=pk,
            value=value,
            other_text=response.other_texts.get(pk, ""),
        )
        for submission, response, plain in rows
        for pk, value in sorted(plain.items())
    )
    SkippedAnswer.objects.bulk_create(
        SkippedAnswer(
            submission=submission,
            survey_id=submission.survey_id,
            question_id=pk,
            reason=response.skip_reasons.get(pk, missing.UNKNOWN),
        )
        for submission, response, _ in rows
        for pk in sorted(response.skipped)
    )
    LinkValue.objects.bulk_create(
        LinkValue(
            submission=submission,
            survey_id=submission.survey_id,
            name=name,
            value=value,
        )
        for submission, response, _ in rows
        for name, value in sorted(response.link_values.items())
    )


def link_value_problem(name: str, value: str, declared: list[str]) -> str:
    """Why a link field's value cannot be stored ("" when it can)."""
    if name not in declared:
        return gettext("This survey records no “%(name)s” from its link.") % {
            "name": name
        }
    if len(value) > LINK_VALUE_MAX:
        return gettext(
            "The link's %(name)s is %(length)s characters long; at most "
            "%(most)s are stored."
        ) % {"name": name, "length": len(value), "most": LINK_VALUE_MAX}
    if not value.isprintable() or value != value.strip():
        return gettext(
            "The link's %(name)s holds control characters or surrounding spaces."
        ) % {"name": name}
    return ""


def _check_link_values(survey: Survey, response: ResponseIn) -> None:
    for name, value in response.link_values.items():
        problem = link_value_problem(name, value, survey.link_fields)
        if problem:
            raise SubmissionRejected(
                gettext("%(problem)s Nothing was stored.") % {"problem": problem},
                code="link_field",
            )


def _invitation(survey: Survey, token: str | None) -> Invitation | None:
    if token is None:
        return None
    invitation = invitation_by_token(token, survey=survey)
    if invitation is None:
        raise SubmissionRejected(
            gettext(
                "This invitation link is not valid for this survey; nothing was "
                "stored. Check that you copied the whole link."
            ),
            status=404,
            code="unknown_invitation",
        )
    if invitation.used:
        raise _used_invitation()
    return invitation


def _used_invitation() -> SubmissionRejected:
    return SubmissionRejected(
        gettext(
            "This invitation link has already been used to answer the survey, and "
            "each link works once. Nothing more was stored. If you did not answer, "
            "ask the researcher for a new link."
        ),
        status=409,
        code="invitation_used",
    )


def _existing(survey: Survey, response: ResponseIn) -> Submission | None:
    """The submission stored under this response's key, if it is the same one.

    The key is random (made by the device, 122 bits) and the reports must be
    identical; which link it came through is not recorded, so not compared.
    """
    submission = Submission.objects.filter(
        survey=survey, idempotency_key=response.idempotency_key
    ).first()
    if submission is None:
        return None
    stored_reports = {
        pk: SentReport(revision, payload)
        for pk, (revision, payload) in stored_payloads(submission).items()
    }
    if stored_reports != dict(response.reports):
        raise SubmissionRejected(
            gettext(
                "This submission key was already used for different answers, so "
                "nothing was stored. Reload the page and answer again."
            ),
            status=409,
            code="key_reused",
        )
    return submission


# --- withdrawal ----------------------------------------------------------------------
@transaction.atomic
def submission_withdraw(*, submission: Submission) -> int:
    """Delete a submission with its reports and unprotected answers.

    Whoever derived figures from the reports corrects them in this same
    transaction (``signals.reports_withdrawing``: analysis subtracts them from
    its tallies) and recomputes after the commit (``reports_withdrawn``).
    Nothing records that a withdrawal happened, who withdrew, or when.
    Returns the number of reports deleted.
    """
    submission = Submission.objects.select_for_update().get(pk=submission.pk)
    survey_id = submission.survey_id
    report_ids = list(
        submission.reports.filter(survey_id=survey_id).values_list("pk", flat=True)
    )
    reports_withdrawing.send(
        sender=Submission,
        survey_id=survey_id,
        report_ids=report_ids,
        submission_id=submission.pk,
    )
    submissions_delete(
        survey_id=survey_id, submissions=Submission.objects.filter(pk=submission.pk)
    )
    announce_withdrawal_on_commit(survey_id=survey_id)
    return len(report_ids)


def submissions_delete(*, survey_id: int, submissions: QuerySet[Submission]) -> int:
    """Delete those of ``submissions`` that belong to survey ``survey_id``, with
    their reports, unprotected answers, skips and link values; the number of
    submissions deleted.  Call it inside a transaction.

    Every delete of reports names the survey, so it touches the survey's
    partition only.  Django's own cascade (``submissions.delete()``) would
    look for reports by submission id, which reads every partition; so the
    children go first, each by a query of its own, and then the submission
    rows, with nothing left that refers to them.
    """
    own = submissions.filter(survey_id=survey_id)
    ids = own.values("pk")
    Report.all_objects.filter(survey_id=survey_id, submission__in=ids).delete()
    for model in (PlainAnswer, SkippedAnswer, LinkValue):
        model.objects.filter(submission__in=ids).delete()
    # Without the collector: its children are gone, and it would ask the
    # report table again by submission id.
    return own._raw_delete(own.db)


# --- test responses ------------------------------------------------------------------
def test_submissions_delete(*, survey: Survey) -> int:
    """Delete the survey's test submissions (reports and answers with them).

    Test reports are never folded into tallies or snapshots
    (``Report.objects`` leaves them out), so nothing derived needs correcting.
    Returns the number of submissions deleted.
    """
    with transaction.atomic():
        return submissions_delete(
            survey_id=survey.pk,
            submissions=Submission.objects.filter(survey=survey, is_test=True),
        )
