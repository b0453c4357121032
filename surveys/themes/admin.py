from django.contrib import admin
from django.utils.html import format_html

from surveys.themes.forms import ThemeForm
from surveys.themes.models import Theme


@admin.register(Theme)
class ThemeAdmin(admin.ModelAdmin):
    form = ThemeForm
    list_display = ("name", "accent", "is_institution_default", "has_logo")
    readonly_fields = ("logo_preview",)
    fields = (
        "name",
        "accent",
        "is_institution_default",
        "logo_file",
        "logo_preview",
        "remove_logo",
    )

    @admin.display(boolean=True, description="Logo")
    def has_logo(self, theme: Theme) -> bool:
        return bool(theme.logo_type)

    @admin.display(description="Current logo")
    def logo_preview(self, theme: Theme) -> str:
        if not theme.pk or not theme.logo_type:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" height="48">', theme.logo_url, theme.name
        )
