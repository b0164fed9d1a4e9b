"""The migrations build exactly the schema the models declare (tables, columns, indexes), on both
databases: a model change without its migration fails here."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.ext.asyncio import create_async_engine

from server.db.migrate import upgrade_async
from server.db.models import Base


def _not_search(name: str | None, type_: str, parent_names: Any) -> bool:
    # Text search lives outside the models, one way per database (migration 0009): SQLite's FTS5
    # tables (with their shadow tables) and PostgreSQL's trigram indexes. test_list_search covers them.
    return not (name and ("_fts" in name or name.endswith("_trgm")))


def _differences(connection: Any) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"include_name": _not_search})
    return list(compare_metadata(context, Base.metadata))


async def test_migrating_to_head_gives_the_models_schema(db_url: str) -> None:
    await upgrade_async(db_url)  # already at head: nothing to do, and no error
    engine = create_async_engine(db_url)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_differences) == []
            indexes = await connection.run_sync(lambda c: inspect(c).get_indexes("operation_log"))
        assert {"ix_operation_log_tenant_id", "ix_operation_log_created_at"} <= {i["name"] for i in indexes}
    finally:
        await engine.dispose()
