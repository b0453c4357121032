from django.apps import AppConfig


class ThemesConfig(AppConfig):
    name = "surveys.themes"
    label = "themes"
    verbose_name = "Themes"
