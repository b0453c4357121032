from django.apps import AppConfig


class ApiTokensConfig(AppConfig):
    name = "surveys.api_tokens"
    label = "api_tokens"
    verbose_name = "API tokens"
