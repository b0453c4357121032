from django.contrib.auth.models import AbstractUser
from django.db import models


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
