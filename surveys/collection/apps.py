from django.apps import AppConfig


class CollectionConfig(AppConfig):
    name = "surveys.collection"
    label = "collection"

    def ready(self) -> None:
        from surveys.authoring.models import Survey
        from surveys.authoring.signals import survey_deleting
        from surveys.collection.signals import delete_submissions_of_survey

        survey_deleting.connect(
            delete_submissions_of_survey,
            sender=Survey,
            dispatch_uid="collection-submissions-of-deleted-survey",
        )
