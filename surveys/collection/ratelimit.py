"""Rate limits on the respondent endpoints (docs/testing.md, section 4, "keeping
fakes and repeats out": per token, per address and per survey; excess gets 429
and nothing is stored).

Fixed-window counters live in Django's cache: ``cache.add`` creates a window's
counter and ``cache.incr`` counts, both atomic on Redis (``CACHE_URL``), so every
web process shares them.  Each limit is ``"COUNT/SECONDS"`` from settings.

- Submissions (the answer POSTs) count per client address, per invitation token
  and per survey, in that order; the first exceeded limit answers, and the later
  counters are not touched, so one address cannot use up a survey's allowance.
- Invitation pages (consent and answer GETs) count per client address, which
  slows anyone guessing tokens.
- Public survey pages (consent and answer GETs of a public link) count per
  client address: each costs the server a page with the survey's compiled
  specs, so one address cannot keep the web processes busy.

Keys hold an HMAC-SHA256 of the window and the address or token (never the
address, the token or any part of the request body), and expire one second after
their window: nothing in the cache outlives a minute (by default) or relates one
window's key for an address to the next one's.  If the cache cannot be
reached the limits fail open with a warning: a survey must keep accepting answers.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy, ngettext

logger = logging.getLogger(__name__)

RATE_PATTERN = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
KEY_SALT = "surveys.collection.ratelimit"


@dataclass(frozen=True)
class Rate:
    """At most ``limit`` requests in each window of ``period`` seconds."""

    limit: int
    period: int


@dataclass(frozen=True)
class Exceeded:
    """A limit that was exceeded: which one, and when its window ends."""

    scope: str
    retry_after: int

    @property
    def message(self) -> str:
        """What the respondent reads (HTML page or JSON ``error``)."""
        return str(MESSAGES[self.scope]) % {"wait": wait_words(self.retry_after)}


def wait_words(seconds: int) -> str:
    """ "N seconds" in the active language (with its plural form)."""
    return ngettext("%(count)d second", "%(count)d seconds", seconds) % {
        "count": seconds
    }


MESSAGES = {
    "address": gettext_lazy(
        "Too many answers were sent from your network in a short time, so "
        "nothing was stored. Please wait %(wait)s and send again."
    ),
    "token": gettext_lazy(
        "Answers were sent with this invitation link too many times in a short "
        "time, so nothing was stored. Please wait %(wait)s and send again."
    ),
    "survey": gettext_lazy(
        "This survey is receiving more answers than it can take right now, so "
        "nothing was stored. Please wait %(wait)s and send again."
    ),
    "lookup": gettext_lazy(
        "Too many invitation links were opened from your network in a short "
        "time. Please wait %(wait)s and reload this page."
    ),
    "page": gettext_lazy(
        "Too many survey pages were opened from your network in a short time. "
        "Please wait %(wait)s and reload this page."
    ),
}
SETTING_FOR_SCOPE = {
    "address": "RATE_LIMIT_PER_ADDRESS",
    "token": "RATE_LIMIT_PER_TOKEN",
    "survey": "RATE_LIMIT_PER_SURVEY",
    "lookup": "RATE_LIMIT_LOOKUPS_PER_ADDRESS",
    "page": "RATE_LIMIT_PAGES_PER_ADDRESS",
}


def parse_rate(text: str, *, name: str = "rate") -> Rate:
    """``"30/60"`` → Rate(30, 60); ImproperlyConfigured for anything else."""
    match = RATE_PATTERN.match(text or "")
    if not match or int(match.group(2)) < 1:
        raise ImproperlyConfigured(
            f"{name}={text!r} is not a rate; write COUNT/SECONDS, e.g. 30/60 "
            "(at most 30 requests in each 60 seconds)."
        )
    return Rate(int(match.group(1)), int(match.group(2)))


def client_address(request: HttpRequest) -> str:
    """The address a limit is counted against.

    ``REMOTE_ADDR`` unless ``RATE_LIMIT_TRUSTED_PROXIES`` is N > 0: then the
    N-th address from the right of ``X-Forwarded-For`` (each trusted proxy
    appends the address it received the request from, so entries to the left
    of that one can be forged by the client).  A header shorter than N means the
    proxies are not set up as configured; ``REMOTE_ADDR`` is used then.  IPv6
    addresses count per /64, the block one subscriber usually holds.
    """
    address = request.META.get("REMOTE_ADDR", "")
    hops = int(getattr(settings, "RATE_LIMIT_TRUSTED_PROXIES", 0))
    if hops > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= hops:
            address = forwarded[-hops]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


def _enabled() -> bool:
    return bool(getattr(settings, "RATE_LIMITS_ENABLED", True))


def _rate(scope: str) -> Rate:
    name = SETTING_FOR_SCOPE[scope]
    return parse_rate(str(getattr(settings, name)), name=name)


def hit(scope: str, identity: str, *, now: float | None = None) -> Exceeded | None:
    """Count one request against ``scope`` for ``identity``.

    Returns Exceeded once the window's count passes the limit, else None (also
    when the cache fails: the warning names the scope only).
    """
    rate = _rate(scope)
    now = time.time() if now is None else now
    window = int(now // rate.period)
    # The window is part of the HMAC's message: the same address gets an
    # unrelated key in each window, so keys cannot be followed across windows.
    digest = salted_hmac(
        KEY_SALT, f"{scope}:{rate.period}:{window}:{identity}", algorithm="sha256"
    ).hexdigest()[:32]
    key = f"ratelimit:{scope}:{rate.period}:{window}:{digest}"
    try:
        # add() creates the window's counter only if it is missing; incr() is
        # atomic.  A counter that expired in between is simply started again.
        cache.add(key, 0, timeout=rate.period + 1)
        try:
            count = cache.incr(key)
        except ValueError:
            cache.add(key, 1, timeout=rate.period + 1)
            count = 1
    except Exception as error:  # any cache failure: fail open, keep collecting
        logger.warning(
            "Rate limit %r not applied: the cache is unavailable (%s).",
            scope,
            type(error).__name__,
        )
        return None
    if count <= rate.limit:
        return None
    retry_after = max(1, math.ceil((window + 1) * rate.period - now))
    return Exceeded(scope, retry_after)


def check_submission(
    request: HttpRequest, *, invitation_token: str | None = None
) -> Exceeded | None:
    """Per-address, then per-token limits on one submission POST."""
    if not _enabled():
        return None
    exceeded = hit("address", client_address(request))
    if exceeded is None and invitation_token is not None:
        exceeded = hit("token", invitation_token)
    return exceeded


def check_survey(survey_id: int, request: HttpRequest) -> Exceeded | None:
    """The survey-wide limit on submissions (after the per-address/token ones).

    Counted once per request: a request checked again for the same survey
    (a public POST checked against the rows its process kept, then against
    the survey as it is now) gets the first check's answer."""
    if not _enabled():
        return None
    checked: dict[int, Exceeded | None] = request.__dict__.setdefault(
        "_survey_limits_checked", {}
    )
    if survey_id not in checked:
        checked[survey_id] = hit("survey", str(survey_id))
    return checked[survey_id]


def check_lookup(request: HttpRequest) -> Exceeded | None:
    """Per-address limit on opening invitation pages (slows token guessing)."""
    if not _enabled():
        return None
    return hit("lookup", client_address(request))


def check_page(request: HttpRequest) -> Exceeded | None:
    """Per-address limit on opening a public survey's consent and answer pages."""
    if not _enabled():
        return None
    return hit("page", client_address(request))
