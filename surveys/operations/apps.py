from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "surveys.operations"
    label = "operations"

    def ready(self) -> None:
        # Registers the shared-cache system check.
        from surveys.operations import checks  # noqa: F401
