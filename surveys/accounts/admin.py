from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.accounts.forms import AdminSignInForm
from surveys.accounts.models import User

admin.site.register(User, UserAdmin)
# The admin's sign-in asks for the two-factor code too (and is locked out alike).
admin.site.login_form = AdminSignInForm
admin.site.login_template = "admin/login_with_code.html"


@admin.register(TOTPDevice)
class TwoFactorDeviceAdmin(admin.ModelAdmin):
    """Researchers' authenticator apps: listed, and deleted to reset a lost one.

    Registered before django-otp's own admin (which then stands aside): secrets
    are never shown, and devices are only ever made by their owner's set-up.
    """

    list_display = ("user", "name", "confirmed", "created_at", "last_used_at")
    list_filter = ("confirmed",)
    search_fields = ("user__username",)
    fields = list_display
    readonly_fields = list_display

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
