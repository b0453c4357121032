"""Writes for researcher accounts."""

from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.db import transaction

from surveys.accounts.models import User


@transaction.atomic
def researcher_create(*, username: str, email: str, password: str) -> User:
    """Create an active researcher account after validating the password.

    Raises ValidationError (nothing is written) when the username is taken or the
    password fails the configured validators.
    """
    if User.objects.filter(username__iexact=username).exists():
        raise ValidationError(f"The username {username!r} is already taken.")
    user = User(username=username, email=email)
    password_validation.validate_password(password, user=user)
    user.set_password(password)
    user.full_clean()
    user.save()
    return user
