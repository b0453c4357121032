"""Which logo files a theme accepts: small PNG, JPEG or WebP images only.

The type is read from the file's first bytes (its signature), never from its
name or the browser's claim.  SVG is refused: it is a document that can carry
scripts and links to other sites, so it could run code or make third-party
requests on a respondent's page.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _

MAX_LOGO_BYTES = 256 * 1024

# Signatures: PNG (ISO/IEC 15948, 5.2), JPEG (SOI marker then a marker),
# WebP (a RIFF container whose form type is "WEBP").
PNG = b"\x89PNG\r\n\x1a\n"
JPEG = b"\xff\xd8\xff"


def sniff(data: bytes) -> str | None:
    """The image's media type from its signature, or None if not PNG/JPEG/WebP."""
    if data.startswith(PNG):
        return "image/png"
    if data.startswith(JPEG):
        return "image/jpeg"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _looks_like_svg(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<?xml", b"<svg", b"<!doctype svg")) or b"<svg" in head


def logo_media_type(data: bytes) -> str:
    """The media type of an acceptable logo; ValidationError saying why not."""
    if len(data) > MAX_LOGO_BYTES:
        raise ValidationError(
            _("The logo is %(size)s; at most %(limit)s is accepted.")
            % {
                "size": filesizeformat(len(data)),
                "limit": filesizeformat(MAX_LOGO_BYTES),
            },
            code="logo_too_large",
        )
    if _looks_like_svg(data):
        raise ValidationError(
            _(
                "SVG logos are refused: an SVG file can carry scripts and links "
                "to other sites, which must never run on a respondent's page. "
                "Upload a PNG, JPEG or WebP image."
            ),
            code="logo_svg",
        )
    media_type = sniff(data)
    if media_type is None:
        raise ValidationError(
            _("The logo must be a PNG, JPEG or WebP image."), code="logo_type"
        )
    return media_type
