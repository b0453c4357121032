from django.apps import AppConfig


class InvitationsConfig(AppConfig):
    """Researchers invite respondents; the models stay in ``collection``."""

    name = "surveys.invitations"
    label = "invitations"
