from django.urls import path, register_converter

from surveys.collection import (
    device_views,
    lifecycle_views,
    verification_views,
    views,
)
from surveys.collection.converters import TokenConverter

register_converter(TokenConverter, "token")

app_name = "collection"

urlpatterns = [
    path("verify/", verification_views.verify, name="verify"),
    path("randomizer.js", verification_views.randomizer_js, name="randomizer"),
    path("wording.js", verification_views.wording_js, name="wording"),
    path("declined/", views.declined, name="declined"),
    path("receipt/<token:receipt>/", verification_views.receipt, name="receipt"),
    path(
        "receipt/<token:receipt>/withdraw/",
        lifecycle_views.withdraw,
        name="withdraw",
    ),
    path("withdraw/", lifecycle_views.withdraw_lookup, name="withdraw_lookup"),
    path("manage/<int:survey_id>/test/", lifecycle_views.test_mode, name="test_mode"),
    path(
        "manage/<int:survey_id>/test/delete/",
        lifecycle_views.test_responses_delete,
        name="test_responses_delete",
    ),
    path("manage/<int:survey_id>/preview/", lifecycle_views.preview, name="preview"),
    # The independent device (another origin): content objects and reports.
    path(
        "device/i/<token:token>/",
        device_views.content_invitation,
        name="device_content_invitation",
    ),
    path(
        "device/i/<token:token>/report/",
        device_views.report_invitation,
        name="device_report_invitation",
    ),
    path(
        "device/<token:public_token>/",
        device_views.content_public,
        name="device_content",
    ),
    path(
        "device/<token:public_token>/report/",
        device_views.report_public,
        name="device_report",
    ),
    path("i/<token:token>/", views.consent_invitation, name="consent_invitation"),
    path(
        "i/<token:token>/answer/", views.respond_invitation, name="respond_invitation"
    ),
    path("<token:public_token>/", views.consent_public, name="consent"),
    path("<token:public_token>/answer/", views.respond_public, name="respond"),
]
