"""ORM queries compiled to SQL once per process and rerun with new values.

Compiling a queryset with a few subqueries (the survey a researcher reads, with
their access and what arrived since its snapshot) costs Django several times
what PostgreSQL takes to run it.  The SQL of such a query depends only on its
shape, not on the ids in it, so a :class:`PreparedQuery` builds the queryset
once with a distinct placeholder value for each argument, compiles it, and
records where each placeholder stands among the SQL parameters.  Every later
call puts the real values in those places and runs the same SQL through
``Model.objects.raw`` (model instances, with any annotations as attributes).

An argument whose placeholder the compiled query does not carry as a
parameter (Django inlined it, or the query does not use it) is refused when
the query is first compiled (:class:`NotPreparable`), so a query that cannot
be prepared fails at once rather than returning wrong rows later.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.db import models
from django.db.models.query import RawQuerySet

M = TypeVar("M", bound=models.Model)


class NotPreparable(ValueError):
    """The query's compiled SQL does not carry each argument as one parameter."""


def _placeholder(kind: type) -> Any:
    """A value no real argument takes: a large negative int or a random string."""
    if kind is int:
        return -(2**62) + secrets.randbits(48)
    if kind is str:
        return f"prepared-{secrets.token_hex(16)}"
    raise TypeError(f"arguments of a prepared query are int or str, not {kind!r}")


class PreparedQuery(Generic[M]):
    """``build(**arguments)``'s SQL, compiled on first use, then only rerun.

    ``arguments`` name each argument ``build`` takes and its type (``int`` or
    ``str``).  ``build`` must give a queryset of the same shape for any values.
    """

    def __init__(self, build: Callable[..., models.QuerySet[M]], **arguments: type):
        self.build = build
        self.arguments = arguments
        self._lock = threading.Lock()
        self._compiled: tuple[type[M], str, list[Any], dict[int, str]] | None = None

    def _compile(self) -> tuple[type[M], str, list[Any], dict[int, str]]:
        placeholders = {
            name: _placeholder(kind) for name, kind in self.arguments.items()
        }
        queryset = self.build(**placeholders)
        sql, params = queryset.query.sql_with_params()
        by_value = {value: name for name, value in placeholders.items()}
        slots = {
            index: by_value[value]
            for index, value in enumerate(params)
            if isinstance(value, int | str) and value in by_value
        }
        missing = set(self.arguments) - set(slots.values())
        if missing:
            raise NotPreparable(
                f"{sorted(missing)} are not parameters of the compiled SQL: {sql}"
            )
        return queryset.model, sql, list(params), slots

    def raw(self, **values: Any) -> RawQuerySet[M]:
        """The query for ``values`` (every argument, by name), not yet run."""
        if set(values) != set(self.arguments):
            raise TypeError(
                f"expected the arguments {sorted(self.arguments)}, got {sorted(values)}"
            )
        for name, kind in self.arguments.items():
            if not isinstance(values[name], kind):
                raise TypeError(f"{name} must be {kind.__name__}: {values[name]!r}")
        compiled = self._compiled
        if compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = self._compile()
                compiled = self._compiled
        model, sql, params, slots = compiled
        filled = list(params)
        for index, name in slots.items():
            filled[index] = values[name]
        return model._default_manager.raw(sql, filled)
