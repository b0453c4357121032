"""The shared cache's backend: Django's Redis cache, one redis-py client kept.

Django's ``RedisCache`` builds a new ``redis.Redis`` client for every cache
call; building one fills its table of response callbacks (about 500 dictionary
insertions), which took longer than the round trip to Redis itself on a signed-
in request (three cache calls: the session, the snapshot head, the results
fragment).  A client is only that table and the connection pool it is given,
and it is safe to share, so this backend builds one per pool and keeps it.
Everything else (keys, serialisation, timeouts, pools) is Django's.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class ClientKeepingRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, with one redis-py client per connection pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        """The client over the pool Django would pick for ``write``, built once."""
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None or client.connection_pool is not pool:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    """Django's ``RedisCache`` with :class:`ClientKeepingRedisCacheClient`."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ClientKeepingRedisCacheClient
