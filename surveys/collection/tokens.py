"""Invitation tokens, receipt codes and the public identifiers of submissions.

Nothing here is derived from a sequence or a time: every identifier that leaves
the server is random, so it reveals neither a site's volume nor the order in
which answers arrived.

- Invitation tokens are 192-bit random strings, shown once (the invitations
  CSV).  The database keeps an HMAC-SHA256 of each under a key derived from
  ``SECRET_KEY`` for this one purpose (Django's ``salted_hmac``), so the CSV alone
  does not find an invitation's row: hashing its links with plain SHA-256, or
  with the HMAC under any other key, matches nothing stored.
- Receipt codes are 128-bit random strings; the database keeps their SHA-256.
  They do not depend on ``SECRET_KEY``: whoever knows the key still has to guess
  2^128 codes.
- Public identifiers of submissions and reports are 128-bit random values,
  written in lower-case base32 without padding (26 characters).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from django.conf import settings
from django.utils.crypto import salted_hmac

INVITATION_TOKEN_BYTES = 24
RECEIPT_CODE_BYTES = 16
PUBLIC_ID_BYTES = 16
RECEIPT_MAX_AGE = 60 * 60 * 24 * 30  # a receipt link works for 30 days
INVITATION_HMAC_PURPOSE = "surveys.collection.invitation-token"

# How a stored Invitation.token_hash was computed.
HASH_HMAC = "hmac-sha256"
HASH_LEGACY_SHA256 = "sha256"


def new_invitation_token() -> str:
    """An unguessable token for one response (shown once, never stored)."""
    return secrets.token_urlsafe(INVITATION_TOKEN_BYTES)


def invitation_token_hash(token: str, *, secret: str | None = None) -> str:
    """What the database keeps instead of the token: a keyed hash, hex.

    HMAC-SHA256 (RFC 2104 with SHA-256) of the token under a key derived from
    ``secret`` (default ``SECRET_KEY``) and a purpose string, via Django's
    ``salted_hmac``.
    """
    return salted_hmac(
        INVITATION_HMAC_PURPOSE,
        token,
        secret=settings.SECRET_KEY if secret is None else secret,
        algorithm="sha256",
    ).hexdigest()


def invitation_token_hashes(token: str) -> list[str]:
    """Every keyed hash the token may be stored under.

    Under ``SECRET_KEY`` first, then under each of ``SECRET_KEY_FALLBACKS``, so
    invitations made before a key rotation keep working while the old key is
    listed there.
    """
    secrets_in_use = [
        settings.SECRET_KEY,
        *getattr(settings, "SECRET_KEY_FALLBACKS", []),
    ]
    return [invitation_token_hash(token, secret=s) for s in secrets_in_use]


def legacy_invitation_token_hash(token: str) -> str:
    """How releases up to 0.1.0 stored a token: its plain SHA-256, hex.

    Only looked up for rows marked ``sha256``; such a row is re-keyed to the
    HMAC the first time its token is presented.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_receipt_code() -> str:
    """A random receipt code (128 bits, URL-safe); shown once to the respondent."""
    return secrets.token_urlsafe(RECEIPT_CODE_BYTES)


def receipt_code_hash(code: str) -> str:
    """What the database keeps instead of a receipt code: its SHA-256, hex."""
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def new_public_id() -> str:
    """A random public identifier: 128 bits as 26 lower-case base32 characters."""
    raw = secrets.token_bytes(PUBLIC_ID_BYTES)
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()
