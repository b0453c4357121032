"""API tokens: only a SHA-256 hash of each token is stored.

The token itself is shown once, when it is created; a leaked database does not
leak working tokens.  Every token expires (``API_TOKEN_DEFAULT_DAYS`` unless
chosen at creation, never more than ``API_TOKEN_MAX_DAYS``).
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


def default_expiry() -> datetime:
    """When a token made now expires unless its owner chose otherwise."""
    return timezone.now() + timedelta(days=settings.API_TOKEN_DEFAULT_DAYS)


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the token, so its owner can tell tokens apart.
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(default=default_expiry)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_expired(self) -> bool:
        return self.expires_at <= timezone.now()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and not self.is_expired
