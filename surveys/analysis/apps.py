from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "surveys.analysis"
    label = "analysis"

    def ready(self) -> None:
        """Refresh a survey's tallies whenever collection commits its reports."""
        from surveys.analysis.receivers import refresh_when_reports_commit
        from surveys.collection.signals import reports_committed

        reports_committed.connect(
            refresh_when_reports_commit, dispatch_uid="analysis-refresh-tallies"
        )
