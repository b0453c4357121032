"""Read-mostly admin: specs and revisions are written only by the services."""

from django.contrib import admin

from surveys.authoring.models import Question, SpecRevision, Survey


class QuestionInline(admin.TabularInline):
    model = Question
    extra = 0
    can_delete = False
    fields = (
        "position",
        "kind",
        "text",
        "is_private",
        "requested_epsilon",
        "spec_revision",
    )
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = (
        "title",
        "owner",
        "status",
        "revision",
        "published_at",
        "created_at",
    )
    list_filter = ("status",)
    search_fields = ("title", "owner__username")
    readonly_fields = (
        "owner",
        "status",
        "public_token",
        "revision",
        "epsilon_budget",
        "created_at",
        "updated_at",
        "published_at",
        "closed_at",
    )
    inlines = (QuestionInline,)

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ("text", "survey", "position", "kind", "is_private", "spec_revision")
    list_filter = ("kind", "is_private")
    search_fields = ("text", "survey__title")
    readonly_fields = tuple(f.name for f in Question._meta.fields)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SpecRevision)
class SpecRevisionAdmin(admin.ModelAdmin):
    list_display = ("question", "revision", "created_at")
    readonly_fields = ("question", "revision", "spec", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
