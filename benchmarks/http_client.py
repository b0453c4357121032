"""HTTP without a client library, as the benchmarks and system tests speak it.

:func:`request` makes one request on a new connection (as gunicorn's sync
workers serve them), timed end to end, and returns the whole
:class:`Response`; :func:`get` is a first visit's GET (no cookies).
"""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass

HTTP_TIMEOUT = 60.0


@dataclass(frozen=True)
class Response:
    """A whole HTTP answer and how long it took (seconds)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes
    seconds: float

    def cookie(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == "set-cookie" and value.startswith(f"{name}="):
                return value.split(";", 1)[0].split("=", 1)[1]
        return None


def request(
    port: int,
    method: str,
    path: str,
    *,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = HTTP_TIMEOUT,
) -> Response:
    """One request on a new connection to 127.0.0.1:``port``, timed end to end."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
    finally:
        connection.close()
    return Response(
        response.status, response.getheaders(), data, time.perf_counter() - started
    )


def get(port: int, path: str, timeout: float = HTTP_TIMEOUT) -> Response:
    """A GET with no headers of its own (a first visit: no cookies)."""
    return request(port, "GET", path, timeout=timeout)
