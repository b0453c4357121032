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
        self._forget_snapshot_heads_on_change()

    def _forget_snapshot_heads_on_change(self) -> None:
        """A snapshot stored, or the questions, bins, consistent method or survey
        changed: readers must not keep the cached snapshot head
        (surveys/analysis/snapshot_heads.py)."""
        from django.db.models.signals import post_delete, post_save

        from surveys.analysis.models import (
            QuestionBins,
            ResultSnapshot,
            ResultsSettings,
        )
        from surveys.analysis.receivers import (
            forget_head_of_bins,
            forget_head_of_question,
            forget_head_of_survey,
            forget_head_when_reordered,
        )
        from surveys.authoring.models import Question, Survey
        from surveys.authoring.signals import questions_reordered

        for signal in (post_save, post_delete):
            name = (signal is post_save and "saved") or "deleted"
            signal.connect(
                forget_head_of_survey,
                sender=Survey,
                dispatch_uid=f"analysis-head-survey-{name}",
            )
            # A survey's consistent method (ResultsSettings) is in its results
            # definition, as the questions are.
            for model in (Question, ResultSnapshot, ResultsSettings):
                signal.connect(
                    forget_head_of_question,
                    sender=model,
                    dispatch_uid=f"analysis-head-{model.__name__}-{name}",
                )
            signal.connect(
                forget_head_of_bins,
                sender=QuestionBins,
                dispatch_uid=f"analysis-head-bins-{name}",
            )
        questions_reordered.connect(
            forget_head_when_reordered, dispatch_uid="analysis-head-reordered"
        )
