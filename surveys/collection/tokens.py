"""Invitation tokens and receipt links."""

from __future__ import annotations

import hashlib
import secrets

from django.core import signing

INVITATION_TOKEN_BYTES = 24
RECEIPT_SALT = "surveys.collection.receipt"
RECEIPT_MAX_AGE = 60 * 60 * 24 * 30  # a receipt link works for 30 days


def new_invitation_token() -> str:
    """An unguessable token for one response (shown once, never stored)."""
    return secrets.token_urlsafe(INVITATION_TOKEN_BYTES)


def invitation_token_hash(token: str) -> str:
    """What the database keeps instead of the token: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def receipt_token(submission_id: int) -> str:
    """A signed, unguessable reference to one submission's receipt."""
    return signing.dumps(submission_id, salt=RECEIPT_SALT, compress=False)


def submission_id_from_receipt(token: str) -> int | None:
    """The submission a receipt token names, or None if forged or expired."""
    try:
        value = signing.loads(token, salt=RECEIPT_SALT, max_age=RECEIPT_MAX_AGE)
    except signing.BadSignature:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
