"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out (SQLite keeps no zone of its own)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        when: datetime = value
        if when.tzinfo is None:
            return when.replace(tzinfo=UTC)
        return when.astimezone(UTC)

    # On SQLite a TypeDecorator's bind conversion is three calls a value (its own, then SQLite
    # DATETIME's formatting with ``%`` from seven attributes); every transition binds several
    # timestamps, so there this does both in one. The text is DATETIME's storage format, which
    # ``isoformat`` with microseconds writes byte for byte.
    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite":
            return super().bind_processor(dialect)

        def process(value: Any) -> str | None:
            if value is None:
                return None
            if not isinstance(value, datetime):
                raise TypeError("a UTC column takes datetime objects")
            if value.tzinfo is None:
                raise ValueError("naive datetime given to a UTC column")
            when: datetime = value if value.tzinfo is UTC else value.astimezone(UTC)
            return when.replace(tzinfo=None).isoformat(" ", "microseconds")

        return process


JSONType = JSON().with_variant(JSONB(), "postgresql")
