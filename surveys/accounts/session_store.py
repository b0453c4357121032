"""Researchers' sessions read from the shared cache, kept in the database.

Used when ``CACHE_URL`` names Redis (shared by every web process): a signed-in
request then reads its session with one cache round trip instead of a database
query.  Writes go to the database first, then to the cache, as Django's
``cached_db`` does; this store differs in two ways that matter here:

* The cache holds a session for at most ``SESSION_CACHE_SECONDS``.  Signing out
  deletes the row and the cache entry; if the cache cannot be reached at that
  moment the row is still deleted, and a copy left in the cache lives no longer
  than this bound.
* A cache that cannot be reached is never an error: reads fall back to the
  database (and do not try to fill the cache), writes and deletes are logged.

With the per-process memory cache (no ``CACHE_URL``) sessions stay in the
database alone: one process's memory cannot learn of a sign-out made in another.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore

logger = logging.getLogger("django.contrib.sessions")


class SessionStore(CachedDBStore):
    """``cached_db`` with a bounded cache lifetime and outages tolerated."""

    cache_key_prefix = "deniable.session."

    def _cache_seconds(self, expiry_age: int) -> int:
        return max(1, min(expiry_age, settings.SESSION_CACHE_SECONDS))

    def load(self) -> dict:
        reachable = True
        try:
            data = self._cache.get(self.cache_key)
        except Exception:
            reachable, data = False, None
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if stored is None:
            return {}
        data = self.decode(stored.session_data)
        if reachable:
            age = self.get_expiry_age(expiry=stored.expire_date)
            try:
                self._cache.set(self.cache_key, data, self._cache_seconds(age))
            except Exception:
                logger.warning("Session cache unreachable; read from the database.")
        return data

    def exists(self, session_key: str | None) -> bool:
        # A new key is checked against the database only: every session has its
        # row there, and the cache may be unreachable.
        return super(CachedDBStore, self).exists(session_key)

    def save(self, must_create: bool = False) -> None:
        # The database first (the source of truth), then the cache.
        super(CachedDBStore, self).save(must_create)
        try:
            self._cache.set(
                self.cache_key,
                self._session,
                self._cache_seconds(self.get_expiry_age()),
            )
        except Exception:
            logger.warning("Session cache unreachable; session saved in the database.")

    def delete(self, session_key: str | None = None) -> None:
        super(CachedDBStore, self).delete(session_key)
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        try:
            self._cache.delete(self.cache_key_prefix + session_key)
        except Exception:
            logger.error(
                "Session cache unreachable while signing out; the cached copy "
                "expires within SESSION_CACHE_SECONDS (%s s).",
                settings.SESSION_CACHE_SECONDS,
            )
