from django.apps import AppConfig


class OperationsConfig(AppConfig):
    name = "surveys.operations"
    label = "operations"
