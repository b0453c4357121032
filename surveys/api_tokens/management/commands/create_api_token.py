"""manage.py create_api_token USERNAME [--name N] [--days D] — print a new token."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from surveys.api_tokens.services import api_token_create


class Command(BaseCommand):
    help = (
        "Create an API token for a researcher and print it. It is shown only "
        "this once: the database keeps a hash."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="command line")
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help=(
                "How many days the token works (default API_TOKEN_DEFAULT_DAYS, "
                "at most API_TOKEN_MAX_DAYS)."
            ),
        )

    def handle(self, *args, username: str, name: str, days: int | None, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user named {username!r}; nothing was created.")
        try:
            created = api_token_create(user=user, name=name, days=days)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        self.stdout.write(created.secret)
        self.stderr.write(f"Valid until {created.token.expires_at:%Y-%m-%d %H:%M} UTC.")
