"""manage.py create_researcher USERNAME [--email E] — create a researcher account."""

import getpass
import os

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from surveys.accounts.services import researcher_create

PASSWORD_VARIABLE = "RESEARCHER_PASSWORD"  # noqa: S105 (a variable name)


class Command(BaseCommand):
    help = (
        "Create a researcher account. The password is asked for interactively, or "
        f"read from the {PASSWORD_VARIABLE} environment variable with --no-input."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--no-input",
            action="store_false",
            dest="interactive",
            help=f"Read the password from ${PASSWORD_VARIABLE} instead of asking.",
        )

    def handle(self, *args, username: str, email: str, interactive: bool, **options):
        if interactive:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("The two passwords differ; nothing was created.")
        else:
            password = os.environ.get(PASSWORD_VARIABLE, "")
            if not password:
                raise CommandError(
                    f"--no-input needs the password in ${PASSWORD_VARIABLE}; "
                    "nothing was created."
                )
        try:
            user = researcher_create(username=username, email=email, password=password)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        self.stdout.write(self.style.SUCCESS(f"Created researcher {user.username!r}."))
