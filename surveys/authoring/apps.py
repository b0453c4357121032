from django.apps import AppConfig


class AuthoringConfig(AppConfig):
    name = "surveys.authoring"
    label = "authoring"
