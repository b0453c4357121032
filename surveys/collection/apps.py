from django.apps import AppConfig


class CollectionConfig(AppConfig):
    name = "surveys.collection"
    label = "collection"

    def ready(self) -> None:
        """Hold work announced during a request until its response is sent
        (``signals.after_response``)."""
        from django.core import signals as core

        from surveys.collection import signals

        core.request_started.connect(
            signals.request_started, dispatch_uid="collection-after-response-start"
        )
        core.request_finished.connect(
            signals.request_finished, dispatch_uid="collection-after-response-run"
        )
