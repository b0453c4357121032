from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.http import StreamingHttpResponse
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.accounts import audit, signup
from surveys.accounts.forms import AdminSignInForm
from surveys.accounts.models import AuditEntry, User


@admin.register(User)
class ResearcherAdmin(UserAdmin):
    """Django's user admin, plus the sign-up state and the approval action."""

    list_display = (*UserAdmin.list_display, "is_active", "awaiting_approval")
    list_filter = ("awaiting_approval", *UserAdmin.list_filter)
    readonly_fields = ("email_verified_at",)
    fieldsets = (
        *UserAdmin.fieldsets,
        ("Sign-up", {"fields": ("email_verified_at", "awaiting_approval")}),
    )
    actions = ("approve",)

    @admin.action(description="Approve the selected accounts", permissions=["change"])
    def approve(self, request, queryset) -> None:
        site = f"{request.scheme}://{request.get_host()}"
        approved = signup.accounts_approve(users=list(queryset), site=site)
        unconfirmed = sum(1 for user in approved if not user.is_active)
        self.message_user(
            request,
            f"{len(approved)} account(s) approved ({unconfirmed} of them can sign "
            "in once their owner confirms the address); accounts that were not "
            "awaiting approval are unchanged.",
            messages.SUCCESS,
        )


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


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    """The audit log, read-only: entries are written by the services alone."""

    list_display = ("at", "actor_name", "action", "survey_id", "survey_title", "detail")
    list_filter = ("action",)
    search_fields = ("actor_name", "survey_title", "detail")
    date_hierarchy = "at"
    actions = ("export_csv",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.action(description="Download the selected entries as CSV")
    def export_csv(self, request, queryset):
        response = StreamingHttpResponse(
            audit.csv_lines(queryset.order_by("-at", "-pk").iterator()),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = 'attachment; filename="audit.csv"'
        return response
