from django.contrib.auth.models import AbstractUser


class User(AbstractUser):
    """A researcher who builds surveys and reads their results.

    Respondents never have accounts: they answer anonymously through a link or an
    invitation token.  The model is custom from the first migration so that it can
    grow without a painful swap later.
    """

    class Meta:
        db_table = "accounts_user"
