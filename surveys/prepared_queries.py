"""ORM queries compiled to SQL once per process and rerun with new values.

Compiling a queryset with a few subqueries (the survey a researcher reads, with
their access and what arrived since its snapshot) costs Django several times
what PostgreSQL takes to run it.  The SQL of such a query depends only on its
shape, not on the ids in it, so a :class:`PreparedQuery` builds the queryset
once with a distinct placeholder value for each argument, compiles it, and
records where each placeholder stands among the SQL parameters.  Every later
call puts the real values in those places and runs the same SQL through
``Model.objects.raw`` (model instances, with any annotations as attributes),
or, with :meth:`PreparedQuery.instances`, through a cursor, building the rows
as the queryset itself would (``select_related`` objects and annotations
included, every field converted from its database value).

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

from django.db import connections, models
from django.db.models.query import RawQuerySet, get_related_populators

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


class _Layout:
    """Where each model's columns stand in a compiled query's rows (what the
    compiler works out while compiling; ``instances`` builds rows from it)."""

    def __init__(self, queryset: models.QuerySet[Any], compiler: Any) -> None:
        self.query = queryset.query
        self.db = queryset.db
        self.select = compiler.select
        self.klass_info = compiler.klass_info
        self.annotation_col_map = compiler.annotation_col_map
        self.col_count = compiler.col_count
        self.converters: dict[str, dict[int, Any]] = {}  # by database alias
        fields = self.klass_info["select_fields"]
        self.model_slice = slice(fields[0], fields[-1] + 1)
        self.init_list = [
            column[0].target.attname for column in self.select[self.model_slice]
        ]
        # They keep no state between rows, so one set serves every call.  Each
        # with the forward relation it fills, if any (those rows that name the
        # same related row share one instance).
        self.populators = [
            (populator, None if info["reverse"] else info["field"])
            for populator, info in zip(
                get_related_populators(self.klass_info, self.select, self.db),
                self.klass_info.get("related_klass_infos", []),
                strict=True,
            )
        ]


class PreparedQuery(Generic[M]):
    """``build(**arguments)``'s SQL, compiled on first use, then only rerun.

    ``arguments`` name each argument ``build`` takes and its type (``int`` or
    ``str``).  ``build`` must give a queryset of the same shape for any values.
    """

    def __init__(self, build: Callable[..., models.QuerySet[M]], **arguments: type):
        self.build = build
        self.arguments = arguments
        self._lock = threading.Lock()
        self._compiled: (
            tuple[type[M], str, list[Any], dict[int, str], _Layout] | None
        ) = None

    def _compile(self) -> tuple[type[M], str, list[Any], dict[int, str], _Layout]:
        placeholders = {
            name: _placeholder(kind) for name, kind in self.arguments.items()
        }
        queryset = self.build(**placeholders)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
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
        return queryset.model, sql, list(params), slots, _Layout(queryset, compiler)

    def _filled(
        self, values: dict[str, Any]
    ) -> tuple[type[M], str, list[Any], _Layout]:
        """The compiled query with ``values`` in their places."""
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
        model, sql, params, slots, layout = compiled
        filled = list(params)
        for index, name in slots.items():
            filled[index] = values[name]
        return model, sql, filled, layout

    def raw(self, **values: Any) -> RawQuerySet[M]:
        """The query for ``values`` (every argument, by name), not yet run."""
        model, sql, filled, _ = self._filled(values)
        return model._default_manager.raw(sql, filled)

    def instances(self, **values: Any) -> list[M]:
        """The rows for ``values``, run now: model instances as the queryset
        gives them, with its ``select_related`` objects and annotations.

        Unlike the queryset, rows that name the same related row (by a forward
        relation) share one instance of it, as a prefetch gives.
        """
        return self.built(self.fetch(**values))

    def fetch(self, **values: Any) -> list[tuple[Any, ...]]:
        """The rows for ``values``, run now, as the database driver gives them
        (no field's conversion, no instance): cheap to compare or hash."""
        _, sql, filled, layout = self._filled(values)
        with connections[layout.db].cursor() as cursor:
            cursor.execute(sql, filled)
            return cursor.fetchall()

    def built(self, fetched: list[tuple[Any, ...]]) -> list[M]:
        """Model instances of rows :meth:`fetch` gave (see :meth:`instances`)."""
        compiled = self._compiled
        if compiled is None:
            raise RuntimeError("built() takes the rows of this query's fetch()")
        model, _, _, _, layout = compiled
        connection = connections[layout.db]
        # A fresh compiler (per connection) told the layout it would have
        # worked out; nothing is compiled again.
        compiler = layout.query.get_compiler(connection=connection)
        compiler.select = layout.select
        compiler.col_count = layout.col_count
        # The columns' converters depend on the fields and the database
        # backend only: worked out once per database alias.
        converters = layout.converters.get(connection.alias)
        if converters is None:
            fields = [column[0] for column in layout.select[: layout.col_count]]
            converters = compiler.get_converters(fields)
            layout.converters[connection.alias] = converters
        rows = compiler.apply_converters(fetched, converters) if converters else fetched
        found = []
        shared: dict[tuple[int, Any], Any] = {}
        for row in rows:
            instance = model.from_db(
                layout.db, layout.init_list, row[layout.model_slice]
            )
            for number, (populator, field) in enumerate(layout.populators):
                if field is None or populator.reorder_for_init:
                    populator.populate(row, instance)
                    continue
                key = (number, row[populator.cols_start + populator.pk_idx])
                if key in shared:
                    field.set_cached_value(instance, shared[key])
                else:
                    populator.populate(row, instance)
                    shared[key] = field.get_cached_value(instance)
            for name, position in layout.annotation_col_map.items():
                setattr(instance, name, row[position])
            found.append(instance)
        return found
