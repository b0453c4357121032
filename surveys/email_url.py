"""Parse ``EMAIL_URL`` into Django's email settings.

One variable configures Django's email framework, the way ``DATABASE_URL`` and
``CACHE_URL`` configure the database and the cache:

- ``console://`` (the default): messages are printed to standard output;
- ``locmem://``: messages are kept in ``django.core.mail.outbox`` (tests);
- ``file:///path/to/dir``: one file per message in that directory;
- ``smtp://user:pass@host:port``: plain SMTP (port 25 by default);
- ``smtp+tls://user:pass@host:port``: SMTP with STARTTLS (port 587 by default);
- ``smtp+ssl://user:pass@host:port``: SMTP over TLS (port 465 by default).

User name and password are percent-decoded, so a password may contain ``@`` or
``:`` written as ``%40`` / ``%3A``. Error messages never repeat the password.
"""

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
    "smtp+tls": "django.core.mail.backends.smtp.EmailBackend",
    "smtp+ssl": "django.core.mail.backends.smtp.EmailBackend",
}
_DEFAULT_PORTS = {"smtp": 25, "smtp+tls": 587, "smtp+ssl": 465}


@dataclass(frozen=True)
class EmailConfig:
    """Django's email settings, as parsed from one ``EMAIL_URL``."""

    backend: str
    host: str = "localhost"
    port: int = 25
    user: str = ""
    password: str = ""
    use_tls: bool = False
    use_ssl: bool = False
    file_path: str = ""


def _redacted(url: str) -> str:
    """The URL with any password replaced by ``***``, safe to show in an error."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def parse_email_url(url: str) -> EmailConfig:
    """Return the email settings an ``EMAIL_URL`` describes.

    Raises ImproperlyConfigured on an unknown scheme, a missing host or path, or
    a bad port; the message shows the URL with its password masked.
    """
    url = url.strip() or "console://"
    shown = _redacted(url)
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in _BACKENDS:
        raise ImproperlyConfigured(
            f"EMAIL_URL={shown!r} is not understood; use console://, locmem://, "
            "file:///path, smtp://user:pass@host:port, smtp+tls://... or smtp+ssl://..."
        )
    backend = _BACKENDS[scheme]
    parts = urlsplit(url)
    if scheme in ("console", "locmem"):
        return EmailConfig(backend=backend)
    if scheme == "file":
        path = unquote(parts.path)
        if not path:
            raise ImproperlyConfigured(
                f"EMAIL_URL={shown!r} names no directory; use file:///path/to/dir."
            )
        return EmailConfig(backend=backend, file_path=path)
    try:
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError:
        raise ImproperlyConfigured(f"EMAIL_URL={shown!r} has a bad port.") from None
    if not parts.hostname:
        raise ImproperlyConfigured(f"EMAIL_URL={shown!r} names no host.")
    return EmailConfig(
        backend=backend,
        host=parts.hostname,
        port=port,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        use_tls=scheme == "smtp+tls",
        use_ssl=scheme == "smtp+ssl",
    )
