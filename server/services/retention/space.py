"""How big the database is, table by table, and giving SQLite's freed pages back to the file system.

SQLite files use incremental auto-vacuum (migration 0016): a delete leaves free pages inside the file,
and ``PRAGMA incremental_vacuum(N)`` moves N of them to the end and truncates, in a short write
transaction of its own, so writers wait for one step at most. PostgreSQL reuses the space of deleted
rows once a VACUUM has seen them: autovacuum, and a VACUUM of the pruned tables after each pass that
deleted rows (``give_back_space``); the files do not shrink, they stop growing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import text

from ...db.engine import Database
from ...db.models import Base
from .pacing import Paced

VACUUM_STEP_PAGES = 2_000


@dataclass(frozen=True)
class TableSize:
    name: str
    rows: int
    bytes: int  # the table with its indexes (and on PostgreSQL its TOAST data)


@dataclass(frozen=True)
class SizeReport:
    tables: list[TableSize]
    total_bytes: int  # the whole database: the file (SQLite) or pg_database_size
    free_bytes: int  # SQLite: pages on the free list, not yet given back; PostgreSQL: 0 (not measured)
    method: str  # how table bytes were measured: dbstat, pg_total_relation_size, or none


async def size_report(db: Database) -> SizeReport:
    """Rows and bytes of every table the models declare (the migrations' own tables aside)."""
    names = sorted(Base.metadata.tables)
    async with db.read_connection() as conn:
        rows = {name: int(await conn.scalar(text(f'SELECT count(*) FROM "{name}"')) or 0) for name in names}
        if db.is_sqlite:
            page_size = int(await conn.scalar(text("PRAGMA page_size")) or 0)
            pages = int(await conn.scalar(text("PRAGMA page_count")) or 0)
            free = int(await conn.scalar(text("PRAGMA freelist_count")) or 0)
            total, free_bytes = pages * page_size, free * page_size
            try:
                measured = (
                    await conn.execute(
                        text(
                            "SELECT m.tbl_name, sum(d.pgsize) FROM dbstat AS d "
                            "JOIN sqlite_master AS m ON m.name = d.name GROUP BY m.tbl_name"
                        )
                    )
                ).all()
                by_table, method = {str(n): int(b) for n, b in measured}, "dbstat"
            except Exception:  # SQLite built without the dbstat table: rows only
                by_table, method = {}, "none"
        else:
            total = int(await conn.scalar(text("SELECT pg_database_size(current_database())")) or 0)
            free_bytes = 0
            measured = (
                await conn.execute(
                    text(
                        "SELECT relname, pg_total_relation_size(relid) FROM pg_stat_user_tables "
                        "WHERE schemaname = current_schema()"
                    )
                )
            ).all()
            by_table, method = {str(n): int(b) for n, b in measured}, "pg_total_relation_size"
    tables = [TableSize(name, rows[name], by_table.get(name, 0)) for name in names]
    tables.sort(key=lambda t: (-t.bytes, -t.rows, t.name))
    return SizeReport(tables, total, free_bytes, method)


# The tables archival and retention delete from. On PostgreSQL a deleted row's space is reused only
# after a VACUUM has seen it; autovacuum does that, but a server where it is off (or slow to reach a
# table) would grow whatever retention deletes, so each pass that deleted rows vacuums these itself.
# A plain VACUUM takes no lock that blocks reads or writes, and the visibility map lets it skip the
# pages no delete touched.
PRUNED_TABLES = (
    "events",
    "webhook_deliveries",
    "webhook_attempts",
    "research_plans",
    "plan_steps",
    "workflows",
    "workflow_steps",
    "missions",
    "hops",
    "tool_steps",
    "assets",
    "decisions",
)


EVENT_TABLES = ("events",)
DELIVERY_TABLES = ("webhook_deliveries", "webhook_attempts")
ROOT_TABLES = tuple(name for name in PRUNED_TABLES if name not in EVENT_TABLES + DELIVERY_TABLES)


async def give_back_space(
    db: Database, *, step: int = VACUUM_STEP_PAGES, tables: tuple[str, ...] = PRUNED_TABLES
) -> int:
    """SQLite: return the free pages to the file system, ``step`` pages per write transaction; how many
    bytes the file shrank by. PostgreSQL: VACUUM ``tables`` (those a pass deleted from: a vacuum of a
    table nothing left costs a pass its time for nothing), so their freed space is reused (the files
    stop growing; they do not shrink); 0."""
    if not db.is_sqlite:
        known = set(Base.metadata.tables)
        await vacuum_tables(db, [name for name in PRUNED_TABLES if name in tables and name in known])
        return 0
    freed = 0
    paced = Paced(step)
    while True:
        async with db.read_connection() as conn:
            free = int(await conn.scalar(text("PRAGMA freelist_count")) or 0)
            page_size = int(await conn.scalar(text("PRAGMA page_size")) or 0)
            mode = int(await conn.scalar(text("PRAGMA auto_vacuum")) or 0)
        if free == 0 or mode != 2:  # 2: incremental; a file not yet migrated keeps its pages
            return freed
        async with paced.batch() as pages, db.transaction() as session:
            connection = await session.connection()
            await connection.run_sync(_incremental_vacuum, pages)
        freed += min(free, pages) * page_size


def _incremental_vacuum(connection: Any, pages: int) -> None:
    # The pragma frees one page per step of its statement, and sqlite3's execute() steps it once;
    # executescript() steps every statement to its end. It commits the (empty) transaction this
    # connection has open first, so the vacuum runs in a transaction of its own, still under the
    # writer's lock; the session's commit then finds nothing open, which sqlite3 takes as done.
    raw = connection.connection.dbapi_connection
    raw.executescript(f"BEGIN IMMEDIATE; PRAGMA incremental_vacuum({int(pages)}); COMMIT;")


async def vacuum_tables(db: Database, tables: list[str]) -> None:
    """PostgreSQL: VACUUM ``tables`` (names the models declare), so the space of the rows just deleted is
    reused instead of the table growing until autovacuum comes by; SQLite reuses free pages itself."""
    if db.is_sqlite or not tables:
        return
    async with db.write_engine.connect() as conn:
        # VACUUM cannot run inside a transaction block.
        autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
        for name in tables:
            await autocommit.execute(text(f'VACUUM "{name}"'))
