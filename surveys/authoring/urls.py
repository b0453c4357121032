from django.urls import path

from surveys.authoring import (
    definition_views,
    import_views,
    lifecycle_views,
    people_views,
    translation_views,
    views,
)

app_name = "authoring"

urlpatterns = [
    path("", views.survey_list, name="survey_list"),
    path("new/", views.survey_create, name="survey_create"),
    path("import/", definition_views.survey_import, name="survey_import"),
    path(
        "import/questionnaire/",
        import_views.questionnaire_import,
        name="questionnaire_import",
    ),
    path(
        "<int:pk>/imported/",
        import_views.survey_import_report,
        name="survey_import_report",
    ),
    path("<int:pk>/", views.survey_detail, name="survey_detail"),
    path("<int:pk>/edit/", views.survey_edit, name="survey_edit"),
    path(
        "<int:pk>/definition.json",
        definition_views.survey_definition,
        name="survey_definition",
    ),
    path("<int:pk>/publish/", views.survey_publish, name="survey_publish"),
    path("<int:pk>/close/", views.survey_close, name="survey_close"),
    path("<int:pk>/reopen/", views.survey_reopen, name="survey_reopen"),
    path("<int:pk>/duplicate/", views.survey_duplicate, name="survey_duplicate"),
    path("<int:pk>/people/", people_views.survey_people, name="survey_people"),
    path("<int:pk>/schedule/", lifecycle_views.survey_schedule, name="survey_schedule"),
    path(
        "<int:pk>/languages/",
        translation_views.survey_languages,
        name="survey_languages",
    ),
    path(
        "<int:pk>/languages/<str:language>/",
        translation_views.survey_translation,
        name="survey_translation",
    ),
    path("<int:pk>/archive/", lifecycle_views.survey_archive, name="survey_archive"),
    path("<int:pk>/delete/", lifecycle_views.survey_delete, name="survey_delete"),
    path("<int:pk>/preview/", views.question_preview, name="question_preview"),
    path("<int:pk>/questions/new/", views.question_create, name="question_create"),
    path("<int:pk>/questions/new-grid/", views.grid_create, name="grid_create"),
    path(
        "<int:pk>/questions/<int:question_pk>/edit/",
        views.question_edit,
        name="question_edit",
    ),
    path(
        "<int:pk>/questions/<int:question_pk>/move/",
        views.question_move,
        name="question_move",
    ),
    path(
        "<int:pk>/questions/<int:question_pk>/delete/",
        views.question_delete,
        name="question_delete",
    ),
]
