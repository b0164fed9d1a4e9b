"""Checks of setting values beyond their type: the URLs the server connects to, and the numeric ranges
(read from the fields' constraints, so the check, its message and the settings reference cannot disagree)."""

from __future__ import annotations

import math
from urllib.parse import urlsplit

import annotated_types
from pydantic.fields import FieldInfo
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

DATABASE_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")
BROADCAST_SCHEMES = ("memory", "redis", "rediss", "postgres", "postgresql", "postgresql+asyncpg")
_DATABASE_FORMS = "sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user@host:5432/db"


def check_database_url(url: str) -> str:
    try:
        parsed = make_url(url)
        port = parsed.port
    except (ArgumentError, ValueError):
        raise ValueError(f"not a database URL; write {_DATABASE_FORMS}") from None
    if parsed.drivername not in DATABASE_DRIVERS:
        raise ValueError(f"the driver {parsed.drivername[:50]!r} is not supported; write {_DATABASE_FORMS}")
    if parsed.drivername.startswith("sqlite") and parsed.database in (None, "", ":memory:"):
        raise ValueError(
            "SQLite needs a file (sqlite+aiosqlite:///path/to/file.db), not an in-memory database"
        )
    if port is not None and not 1 <= port <= 65_535:
        raise ValueError(f"port {port} is not from 1 to 65535")
    return url


def check_broadcast_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not a URL ({exc})") from None
    if parts.scheme not in BROADCAST_SCHEMES:
        raise ValueError(
            f"the scheme {parts.scheme[:30]!r} is not supported; write memory://, redis://host:6379/0 or "
            "postgres://user@host/db"
        )
    if port is not None and not 1 <= port <= 65_535:
        raise ValueError(f"port {port} is not from 1 to 65535")
    return url


def numeric_range(field: FieldInfo) -> tuple[float, bool, float, bool]:
    """(lowest, lowest allowed?, highest, highest allowed?) of a numeric setting; unbounded sides are
    infinite (a test requires every setting to have none)."""
    low, low_in, high, high_in = -math.inf, False, math.inf, False
    for bound in field.metadata:
        if isinstance(bound, annotated_types.Ge):
            low, low_in = float(bound.ge), True  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Gt):
            low, low_in = float(bound.gt), False  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Le):
            high, high_in = float(bound.le), True  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Lt):
            high, high_in = float(bound.lt), False  # type: ignore[arg-type]
    return low, low_in, high, high_in


def describe_range(field: FieldInfo) -> str:
    """The range as the settings reference (docs/reference/settings.md) and the start-up error write it:
    ``0 to 65535``, ``above 0, up to 31536000``."""
    low, low_in, high, high_in = numeric_range(field)
    if low_in and high_in:
        return f"{_number(low)} to {_number(high)}"
    lower = f"{'from' if low_in else 'above'} {_number(low)}"
    upper = f"{'up to' if high_in else 'below'} {_number(high)}"
    return f"{lower}, {upper}"


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
