from django.apps import AppConfig


class CollectionConfig(AppConfig):
    name = "surveys.collection"
    label = "collection"

    def ready(self) -> None:
        """Hold work announced during a request until its response is sent
        (``signals.after_response``), and delete a deleted survey's
        submissions by survey (``receivers.delete_submissions_of_survey``)."""
        from django.core import signals as core

        from surveys.authoring.models import Survey
        from surveys.authoring.signals import survey_deleting
        from surveys.collection import receivers, signals

        core.request_started.connect(
            signals.request_started, dispatch_uid="collection-after-response-start"
        )
        core.request_finished.connect(
            signals.request_finished, dispatch_uid="collection-after-response-run"
        )
        survey_deleting.connect(
            receivers.delete_submissions_of_survey,
            sender=Survey,
            dispatch_uid="collection-submissions-of-deleted-survey",
        )
