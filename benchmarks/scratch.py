"""Statements on a benchmark's scratch databases, shared by the scripts that
make and drop their own (``partitions.py``, ``storage.py``)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit


def use_database(name: str) -> None:
    """Point Django's default connection at database ``name``."""
    from django.db import connections

    connections["default"].close()
    connections["default"].settings_dict["NAME"] = name


def admin(url: str, statement: str) -> None:
    """Run ``statement`` on the server of ``url``, connected to its
    ``postgres`` database (``CREATE DATABASE``, ``DROP DATABASE``)."""
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(
        parts._replace(path="/postgres").geturl(), autocommit=True
    ) as c:
        c.execute(statement)  # type: ignore[arg-type]


def scalar(query: str, *params: Any) -> Any:
    """The first column of the first row of ``query``."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return cursor.fetchone()[0]
