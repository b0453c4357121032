"""How many accounts one client address may ask for: ``SIGNUP_RATE``
(``"COUNT/SECONDS"``, default ``5/3600``), so that a script cannot fill the
user table or use the site to send verification emails to any address.

A fixed-window counter in Django's cache framework (``cache.add`` makes the
window's counter, ``cache.incr`` counts; both atomic on Redis, so every web
process shares them).  Only sign-up requests (POSTs) count.  The key is an
HMAC of the window and the client address (the address as the rate limits
and the sign-in lockout find it, ``AXES_CLIENT_IP_CALLABLE``), never the
address itself, and expires one second after its window.  Off with the other
rate limits (``RATE_LIMITS_ENABLED``); if the cache cannot be reached the
limit fails open with a warning (sign-up still needs the emailed link).
"""

from __future__ import annotations

import logging
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.crypto import salted_hmac
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

KEY_SALT = "surveys.accounts.signup_limits"


def _rate() -> tuple[int, int]:
    count, _, seconds = settings.SIGNUP_RATE.partition("/")
    return int(count), int(seconds)


def retry_after(request: HttpRequest, now: float | None = None) -> int | None:
    """Count one sign-up from ``request``'s address; the seconds until its
    window ends if that makes more than ``SIGNUP_RATE`` allows, else None."""
    if not settings.RATE_LIMITS_ENABLED:
        return None
    limit, period = _rate()
    now = time.time() if now is None else now
    window = math.floor(now / period)
    address = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request)
    key = "signup:" + salted_hmac(KEY_SALT, f"{window}:{address}").hexdigest()
    try:
        cache.add(key, 0, timeout=period + 1)
        count = cache.incr(key)
    except Exception:  # the cache is down: fail open, as the other limits do
        logger.warning("The sign-up rate limit could not reach the cache")
        return None
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * period - now))
