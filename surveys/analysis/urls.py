"""Analysis URLs: researchers' pages (session sign-in) and the API (tokens)."""

from django.urls import path

from surveys.analysis.api import views as api
from surveys.analysis.pages import (
    bins_views,
    consistent_views,
    export_views,
    model_views,
    views,
)
from surveys.api_tokens import views as token_views

app_name = "analysis"

# Signed-in researchers; every <pk> is checked against the owner.
page_patterns = [
    path("<int:pk>/", views.survey_dashboard, name="dashboard"),
    path("<int:pk>/live/", views.survey_dashboard_live, name="dashboard_live"),
    path("<int:pk>/crosstab/", views.survey_crosstab, name="crosstab"),
    path(
        "<int:pk>/jobs/<int:job_pk>/",
        views.analysis_job_status,
        name="job_status",
    ),
    path("<int:pk>/privacy/", views.survey_privacy, name="privacy"),
    path(
        "<int:pk>/questions/<int:question_pk>/bins/",
        bins_views.question_bins,
        name="question_bins",
    ),
    path(
        "<int:pk>/consistent/",
        consistent_views.consistent_method,
        name="consistent_method",
    ),
    path("<int:pk>/pilot/", views.survey_pilot, name="pilot"),
    path("<int:pk>/regression/", model_views.survey_regression, name="regression"),
    path(
        "<int:pk>/regression/table.csv",
        model_views.regression_csv,
        name="regression_csv",
    ),
    path("<int:pk>/weights/", model_views.survey_weights, name="weights"),
    path(
        "<int:pk>/weights/estimates.csv",
        model_views.weights_csv,
        name="weights_csv",
    ),
    path("<int:pk>/weights/weights.R", model_views.weights_script, name="weights_r"),
    path(
        "<int:pk>/export/estimates.csv",
        export_views.export_estimates_csv,
        name="export_estimates_csv",
    ),
    path(
        "<int:pk>/export/estimates.json",
        export_views.export_estimates_json,
        name="export_estimates_json",
    ),
    path(
        "<int:pk>/export/reports.csv",
        export_views.export_reports_csv,
        name="export_reports_csv",
    ),
    path(
        "<int:pk>/export/reports.json",
        export_views.export_reports_json,
        name="export_reports_json",
    ),
    path(
        "<int:pk>/exports/", export_views.export_job_request, name="export_job_request"
    ),
    path(
        "<int:pk>/exports/<int:job_pk>/download",
        export_views.export_job_download,
        name="export_job_download",
    ),
    path(
        "<int:pk>/export/design.json", export_views.export_design, name="export_design"
    ),
    path(
        "<int:pk>/export/methods.txt",
        export_views.export_methods_txt,
        name="export_methods_txt",
    ),
    *[
        path(
            f"<int:pk>/export/{route}",
            export_views.export_dataset,
            {"fmt": fmt},
            name=f"export_{fmt}",
        )
        for route, fmt in [
            ("wide.csv", "wide_csv"),
            ("wide-bom.csv", "wide_csv_bom"),
            ("wide.sav", "sav"),
            ("wide.dta", "dta"),
            ("codebook.csv", "codebook_csv"),
            ("codebook.json", "codebook_json"),
            ("wide.R", "r"),
        ]
    ],
    path("tokens/", token_views.api_tokens, name="api_tokens"),
    path(
        "tokens/<int:token_pk>/revoke/",
        token_views.api_token_revoke,
        name="api_token_revoke",
    ),
]

# Bearer-token API (read-only), described by its OpenAPI document.
api_patterns = [
    path("api/v1/openapi.json", api.openapi, name="api_openapi"),
    path("api/v1/surveys", api.surveys, name="api_surveys"),
    path("api/v1/surveys/<int:pk>", api.survey_estimates, name="api_survey"),
    path("api/v1/surveys/<int:pk>/reports", api.survey_reports, name="api_reports"),
]

urlpatterns = page_patterns + api_patterns
