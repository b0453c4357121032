from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A researcher who builds surveys and reads their results.

    Respondents never have accounts: they answer anonymously through a link or an
    invitation token.  The model is custom from the first migration so that it can
    grow without a painful swap later.
    """

    # The persistent id of the researcher's confirmed two-factor device, "" when
    # two-factor sign-in is off.  Kept in step with the device table by
    # surveys/accounts/two_factor.py (in the same transaction as every change, and
    # by signals for changes made elsewhere, e.g. the admin), so that the check
    # "was this session opened with the current device?" made on every request
    # reads the user row already loaded for authentication, not one more query.
    two_factor_device = models.CharField(max_length=64, blank=True, editable=False)
    # Self sign-up (surveys/accounts/signup.py): an account made on the sign-up
    # page is inactive until its address is verified and, when sign-up needs
    # approval, until an administrator approves it.  Accounts made by an
    # administrator are neither.
    email_verified_at = models.DateTimeField(null=True, blank=True, editable=False)
    awaiting_approval = models.BooleanField(
        default=False,
        help_text="Made on the sign-up page and not yet approved by an administrator.",
    )

    class Meta:
        db_table = "accounts_user"


class AuditEntry(models.Model):
    """One thing a researcher did: who, what, to which survey, when.

    Written only by ``surveys.accounts.audit.record`` from the services where
    the action happens.  It never holds respondent data: no token, no
    respondent's address, no answer, no submission or its time; ``detail``
    names what was done in the researcher's terms (a file kind, a count, a
    co-researcher's username and role).  The survey is kept by id and title,
    not by foreign key, so that its entries outlive its deletion; ``owner``
    is who owned it then, and reads the entries with administrators.
    """

    class Action(models.TextChoices):
        SIGN_IN_SSO = "sign_in_sso", _("signed in through single sign-on")
        CREATE = "create", _("created the survey")
        EDIT = "edit", _("edited")
        PUBLISH = "publish", _("published")
        CLOSE = "close", _("closed")
        REOPEN = "reopen", _("reopened")
        ARCHIVE = "archive", _("archived")
        DELETE = "delete", _("deleted")
        EXPORT = "export", _("exported")
        INVITE = "invite", _("invited")
        ROLE_CHANGE = "role_change", _("changed a role")

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=20, choices=Action.choices)
    survey_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    survey_title = models.CharField(max_length=200, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    detail = models.CharField(max_length=500, blank=True)

    class Meta:
        db_table = "accounts_audit_entry"
        ordering = ["-at", "-pk"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action}"
