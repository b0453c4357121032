"""Create, revoke and check API tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext

from surveys.api_tokens.models import ApiToken

TOKEN_PREFIX = "dnb_"  # noqa: S105 (a marker, not a secret)
TOKEN_BYTES = 32
NAME_MAX = 100
# last_used_at is a hint for the owner; writing it on every request is waste.
LAST_USED_RESOLUTION = timedelta(minutes=1)
HOW_TO_GET_ONE = (
    "Send 'Authorization: Bearer <token>'; create a token on the API tokens page."
)


@dataclass(frozen=True)
class CreatedToken:
    token: ApiToken
    secret: str  # shown once, never stored


class ApiTokenRefused(Exception):
    """A request's token does not admit it; the message says why."""


def token_hash(secret: str) -> str:
    """What the database keeps instead of the token: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def api_token_create(*, user, name: str, days: int | None = None) -> CreatedToken:
    """A new token for ``user``, valid for ``days``; the secret is never stored."""
    name = name.strip()
    if not name or len(name) > NAME_MAX:
        raise ValidationError(
            gettext("The token name is %(name)r; allowed: 1 to %(max)s characters.")
            % {"name": name, "max": NAME_MAX}
        )
    days = settings.API_TOKEN_DEFAULT_DAYS if days is None else days
    most = settings.API_TOKEN_MAX_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= most:
        raise ValidationError(
            gettext(
                "A token valid for %(days)r days cannot be made; "
                "allowed: 1 to %(most)s."
            )
            % {"days": days, "most": most}
        )
    secret = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        token_hash=token_hash(secret),
        prefix=secret[: len(TOKEN_PREFIX) + 4],
        expires_at=timezone.now() + timedelta(days=days),
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
    """The active user a token belongs to, or ApiTokenRefused saying why."""
    token = None
    if secret and secret.startswith(TOKEN_PREFIX):
        token = (
            ApiToken.objects.select_related("user")
            .filter(token_hash=token_hash(secret))
            .first()
        )
    if token is None or not token.user.is_active:
        raise ApiTokenRefused(f"A valid API token is required. {HOW_TO_GET_ONE}")
    now = timezone.now()
    if token.revoked_at is not None:
        raise ApiTokenRefused(
            f"This API token was revoked on {token.revoked_at:%Y-%m-%d}. "
            f"{HOW_TO_GET_ONE}"
        )
    if token.expires_at <= now:
        raise ApiTokenRefused(
            f"This API token expired on {token.expires_at:%Y-%m-%d %H:%M} UTC. "
            f"{HOW_TO_GET_ONE}"
        )
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def api_tokens_for(*, user):
    return ApiToken.objects.filter(user=user)


def api_token_active_for(*, user, pk: int) -> ApiToken | None:
    """One of ``user``'s tokens that still works, or None."""
    return (
        ApiToken.objects.filter(user=user, pk=pk, revoked_at__isnull=True)
        .filter(expires_at__gt=timezone.now())
        .first()
    )
