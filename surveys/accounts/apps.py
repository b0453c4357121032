from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "surveys.accounts"
    label = "accounts"
