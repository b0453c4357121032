from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "surveys.analysis"
    label = "analysis"

    def ready(self) -> None:
        """Refresh a survey's tallies whenever collection commits its reports."""
        from surveys.analysis.receivers import (
            recompute_when_reports_withdrawn,
            refresh_when_reports_commit,
            subtract_when_reports_withdrawing,
        )
        from surveys.collection.signals import (
            reports_committed,
            reports_withdrawing,
            reports_withdrawn,
        )

        reports_committed.connect(
            refresh_when_reports_commit, dispatch_uid="analysis-refresh-tallies"
        )
        # A withdrawal: the tallies subtract in its transaction, then the
        # results snapshot is recomputed over the same reports minus those.
        reports_withdrawing.connect(
            subtract_when_reports_withdrawing, dispatch_uid="analysis-subtract"
        )
        reports_withdrawn.connect(
            recompute_when_reports_withdrawn, dispatch_uid="analysis-recompute"
        )
