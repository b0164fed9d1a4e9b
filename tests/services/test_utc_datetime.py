"""``UTCDateTime`` on SQLite converts a timestamp in one call where a TypeDecorator makes three: the text
it writes must be what the composed path (``process_bind_param``, then SQLite ``DATETIME``'s own
formatting) writes, for every instant and zone, and it refuses what that path refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Column, Integer, MetaData, Table, insert, select, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.types import TypeDecorator

from server.db.types import UTCDateTime

DIALECT = sqlite.dialect()
TYPE = UTCDateTime().dialect_impl(DIALECT)
FAST = TYPE.bind_processor(DIALECT)
COMPOSED = TypeDecorator.bind_processor(TYPE, DIALECT)

zones = st.builds(
    lambda minutes: timezone(timedelta(minutes=minutes)), st.integers(min_value=-23 * 60, max_value=23 * 60)
)
# Far enough from the ends of datetime's range that converting to UTC stays inside it.
instants = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.one_of(st.just(UTC), zones)
)


@given(instants)
def test_the_sqlite_bind_writes_the_text_the_composed_path_writes(value: datetime) -> None:
    assert FAST is not None
    assert COMPOSED is not None
    assert FAST(value) == COMPOSED(value)


def test_whole_seconds_keep_their_microseconds_and_none_stays_none() -> None:
    assert FAST is not None
    assert FAST(datetime(2026, 12, 3, 13, 40, tzinfo=UTC)) == "2026-12-03 13:40:00.000000"
    assert FAST(datetime(999, 1, 2, 3, 4, 5, 6, tzinfo=UTC)) == "0999-01-02 03:04:05.000006"
    assert FAST(None) is None


def test_naive_datetimes_and_other_values_are_refused() -> None:
    assert FAST is not None
    with pytest.raises(ValueError, match="naive datetime"):
        FAST(datetime(2026, 12, 3))
    with pytest.raises(TypeError, match="datetime"):
        FAST("2026-12-03 13:40:00")


async def test_a_round_trip_through_a_sqlite_file_gives_the_instant_back_in_utc(tmp_path: Path) -> None:
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("at", UTCDateTime()))
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'types.db'}")
    east = datetime(2026, 12, 3, 23, 30, 1, tzinfo=timezone(timedelta(hours=5)))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(table.metadata.create_all)
            await conn.execute(insert(table), [{"id": 1, "at": east}])
            stored = (await conn.execute(text("SELECT at FROM t"))).scalar_one()
            read = (await conn.execute(select(table.c.at))).scalar_one()
            with pytest.raises(StatementError, match="naive datetime"):
                await conn.execute(insert(table), [{"id": 2, "at": datetime(2026, 12, 3)}])
    finally:
        await engine.dispose()
    assert stored == "2026-12-03 18:30:01.000000"
    assert read == east
    assert read.tzinfo is UTC
