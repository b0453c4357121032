"""Create, revoke and check API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.utils import timezone

from surveys.api_tokens.models import ApiToken

TOKEN_PREFIX = "dnb_"  # noqa: S105 (a marker, not a secret)
TOKEN_BYTES = 32
NAME_MAX = 100
# last_used_at is a hint for the owner; writing it on every request is waste.
LAST_USED_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class CreatedToken:
    token: ApiToken
    secret: str  # shown once, never stored


def token_hash(secret: str) -> str:
    """What the database keeps instead of the token: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def api_token_create(*, user, name: str) -> CreatedToken:
    """A new token for ``user``; the returned secret is never stored."""
    name = name.strip()
    if not name or len(name) > NAME_MAX:
        raise ValidationError(
            f"The token name is {name!r}; allowed: 1 to {NAME_MAX} characters."
        )
    secret = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        token_hash=token_hash(secret),
        prefix=secret[: len(TOKEN_PREFIX) + 4],
    )
    return CreatedToken(token, secret)


def api_token_revoke(*, user, pk: int) -> bool:
    """Revoke one of ``user``'s tokens; False if it is not theirs or already off."""
    return bool(
        ApiToken.objects.filter(user=user, pk=pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
    )


def api_token_authenticate(secret: str):
    """The active user a token belongs to, or None."""
    if not secret or not secret.startswith(TOKEN_PREFIX):
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=token_hash(secret), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def api_tokens_for(*, user):
    return ApiToken.objects.filter(user=user)
