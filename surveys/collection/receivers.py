"""Receivers of other apps' signals, connected in ``CollectionConfig.ready``."""

from __future__ import annotations

from surveys.collection.models import Submission
from surveys.collection.services import submissions_delete


def delete_submissions_of_survey(*, survey_id: int, **_: object) -> None:
    """Receiver of authoring's ``survey_deleting``: the survey's submissions,
    reports, unprotected answers, skips and link values, reports by survey
    (one partition)."""
    submissions_delete(
        survey_id=survey_id,
        submissions=Submission.objects.filter(survey_id=survey_id),
    )
