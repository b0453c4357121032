"""Invitation URLs.  They keep the ``collection`` namespace and its ``/s/`` prefix
(``surveys.urls`` puts them in it), so their names and addresses never changed."""

from django.urls import path

from surveys.invitations import views

urlpatterns = [
    path("manage/<int:survey_id>/invitations/", views.invitations, name="invitations"),
    path("manage/<int:survey_id>/recipients/", views.recipients, name="recipients"),
    path(
        "manage/<int:survey_id>/recipients/send/",
        views.recipients_send,
        name="recipients_send",
    ),
    path("unsubscribe/<token:token>/", views.unsubscribe, name="unsubscribe"),
]
