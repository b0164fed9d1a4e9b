"""Cursor pagination shared by every domain's lists: opaque cursors and newest-first keyset pages."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, and_, or_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from ..errors import invalid

T = TypeVar("T")


def encode_cursor(*parts: str) -> str:
    return base64.urlsafe_b64encode("|".join(parts).encode()).decode()


def decode_cursor(cursor: str, arity: int, field: str = "after") -> list[str]:
    try:
        parts = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
    except (ValueError, UnicodeDecodeError):
        raise invalid(f"{field} is not a cursor this server issued", [field]) from None
    if len(parts) != arity:
        raise invalid(f"{field} is not a cursor this server issued", [field])
    return parts


@dataclass
class Page(Generic[T]):
    items: list[T]
    has_next_page: bool


def as_utc(when: datetime) -> datetime:
    """A time without a zone is read as UTC, as every time the server sends."""
    return when.astimezone(UTC) if when.tzinfo is not None else when.replace(tzinfo=UTC)


def time_cursor(when: datetime, row_id: str) -> str:
    return encode_cursor(when.isoformat(), row_id)


def decode_time_cursor(cursor: str, field: str = "after") -> tuple[datetime, str]:
    """A keyset cursor of (timestamp, id), as ``time_cursor`` wrote it."""
    raw, last_id = decode_cursor(cursor, 2, field)
    try:
        return as_utc(datetime.fromisoformat(raw)), last_id
    except ValueError:
        raise invalid(f"{field} is not a cursor this server issued", [field]) from None


async def keyset_page(
    session: AsyncSession,
    query: Select[Any],
    when: InstrumentedAttribute[Any],
    row_id: InstrumentedAttribute[str],
    first: int,
    after: str | None,
    *,
    newest_first: bool = True,
) -> Page[Any]:
    """One page of ``query`` ordered by (when, id), after a cursor from ``time_cursor``."""
    if after:
        last, last_id = decode_time_cursor(after)
        if newest_first:
            query = query.where(or_(when < last, and_(when == last, row_id < last_id)))
        else:
            query = query.where(or_(when > last, and_(when == last, row_id > last_id)))
    order = (when.desc(), row_id.desc()) if newest_first else (when.asc(), row_id.asc())
    rows = list((await session.scalars(query.order_by(*order).limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)
