from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "surveys.analysis"
    label = "analysis"
