"""A start-up check: where several processes serve, the cache is shared.

Rate limits, the refresh debounce and the researchers' session copies live in
Django's cache.  A per-process cache (``LocMemCache``, what an empty
``CACHE_URL`` gives) counts every limit once per process: with three gunicorn
workers, up to three times the limit gets through (15 of 30 over-limit
requests did, measured).  So wherever more than one process answers requests
the cache must be the shared one, Redis through ``CACHE_URL``.

How many processes serve is known in two places, and the check asks both:

- **gunicorn's master** knows exactly how many workers it is about to fork.
  ``gunicorn.conf.py`` runs :func:`refuse_unshared_cache` with that number in
  its ``on_starting`` hook, so ``gunicorn`` with ``WEB_CONCURRENCY`` above 1
  (the default is 3) and no ``CACHE_URL`` stops before serving anything.
- **DENIABLE_PRODUCTION** marks the documented deployments (the compose file,
  the README's full stack): several gunicorn workers and often several
  machines behind one proxy, which no single process can count.  Their
  documented configuration already sets ``CACHE_URL``; the check (registered
  with Django's system checks, so ``migrate``, ``check`` and every management
  command run it) makes that a refusal instead of a silent per-process count.

The Celery broker is deliberately not a signal: a worker answers no request
and counts no limit, and the one cache entry it could share (the refresh
debounce marker) is only ever read by the process that wrote it.  The
embedded default (``bash scripts/serve``: Django's development server, one
process, tasks in-process) matches neither signal and keeps its per-process
cache, so it needs no Redis.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks

PER_PROCESS_BACKENDS = frozenset({"django.core.cache.backends.locmem.LocMemCache"})
CHECK_ID = "deniable.E001"
SHARED_CACHE_HINT = (
    "Set CACHE_URL to a Redis every process reaches, e.g. "
    "CACHE_URL=redis://127.0.0.1:6379/2 (docs/configuration.md)"
)


def unshared_cache_errors(*, web_processes: int) -> list[checks.Error]:
    """The refusal, if ``web_processes`` processes (or production) would each
    keep their own cache; an empty list when the cache is shared or one
    process serves."""
    backend = settings.CACHES["default"]["BACKEND"]
    if backend not in PER_PROCESS_BACKENDS:
        return []
    production = getattr(settings, "PRODUCTION", False)
    reasons = []
    if web_processes > 1:
        reasons.append(f"gunicorn starts {web_processes} web processes")
    if production:
        reasons.append(
            "DENIABLE_PRODUCTION is on (a deployment serves from several "
            "processes or machines)"
        )
    if not reasons:
        return []
    hint = SHARED_CACHE_HINT + (
        "." if production else "; or start one web process (WEB_CONCURRENCY=1)."
    )
    return [
        checks.Error(
            f"The cache is kept per process ({backend.rsplit('.', 1)[-1]}: "
            f"CACHE_URL is empty or locmem://) but {' and '.join(reasons)}; each "
            "process would count the rate limits on its own, letting several "
            "times the limit through.",
            hint=hint,
            id=CHECK_ID,
        )
    ]


@checks.register(checks.Tags.caches)
def shared_cache_check(
    app_configs: Sequence[AppConfig] | None = None, **kwargs: Any
) -> list[checks.Error]:
    """Django's system check: refuses a per-process cache in production.

    (The web server's own process count is checked by gunicorn's hook.)
    """
    return unshared_cache_errors(web_processes=1)


def refuse_unshared_cache(*, web_processes: int) -> None:
    """Stop with the check's message if it fails (gunicorn's ``on_starting``)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
    errors = unshared_cache_errors(web_processes=web_processes)
    if errors:
        raise SystemExit(_plain(errors))


def _plain(errors: Iterable[checks.Error]) -> str:
    return "\n".join(
        f"Refusing to start. {error.id}: {error.msg}\nHINT: {error.hint}"
        for error in errors
    )
