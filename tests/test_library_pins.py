"""Library internals we depend on, pinned to the versions checked
(docs/decisions/0016-machines-own-their-actions.md).

Each test fails loudly on an upgrade of the library: re-check the module it names against the new
release's source, then move the pin there.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
import sqlite3
from importlib.metadata import version

import broadcaster
from graphql import GraphQLSchema

from server.api import strawberry_internals
from server.api.schema import build_schema
from server.config import Settings
from server.db import sqlite_inline
from server.realtime import frames


def test_strawberry_is_the_version_its_internals_were_checked_against() -> None:
    assert version("strawberry-graphql") == strawberry_internals.VERIFIED_WITH, (
        "Strawberry changed: re-check every item in server/api/strawberry_internals.py against it, "
        "then update VERIFIED_WITH"
    )


def test_the_handler_hooks_we_override_or_read_exist() -> None:
    for module, name, attributes in strawberry_internals.HANDLER_HOOKS:
        owner = getattr(importlib.import_module(module), name)
        names = set(dir(owner)) | set(getattr(owner, "__slots__", ()))
        assert set(attributes) <= names, (name, set(attributes) - names)


def test_the_graphql_core_schema_is_the_one_strawberry_executes() -> None:
    schema = build_schema(Settings())
    core = strawberry_internals.graphql_core_schema(schema)
    assert isinstance(core, GraphQLSchema)
    assert core.query_type is not None
    assert set(core.query_type.fields) >= {"researchContext", "researchPlans", "latestSeq"}


def test_sqlalchemy_is_the_version_the_inline_sqlite_dialect_was_checked_against() -> None:
    assert version("sqlalchemy") == sqlite_inline.VERIFIED_WITH, (
        "SQLAlchemy changed: re-check server/db/sqlite_inline.py against sqlalchemy/dialects/sqlite/"
        "pysqlite.py and sqlalchemy/ext/asyncio, then update VERIFIED_WITH"
    )


def test_every_cursor_hook_the_asyncio_layer_calls_is_on_the_inline_cursor() -> None:
    import sqlalchemy.ext.asyncio.result as asyncio_result

    source = inspect.getsource(asyncio_result)
    called = set(re.findall(r"\.cursor\.(_\w+)\(", source))
    assert called == {"_async_soft_close"}, called  # the one private hook, still the only one
    # Closed here: an unclosed connection is a ResourceWarning when the collector finds it (Python 3.13).
    inline = sqlite3.connect(":memory:", factory=sqlite_inline.InlineConnection)
    with contextlib.closing(inline) as connection:
        cursor = connection.cursor()
        assert isinstance(cursor, sqlite_inline.InlineCursor)
        assert all(inspect.iscoroutinefunction(getattr(cursor, name)) for name in called)


def test_the_reader_connections_thread_takes_the_queue_aiosqlite_fills() -> None:
    """``sqlite_inline._serve_reader`` replaces aiosqlite's worker: it reads the same queue, the same
    stop sentinel, and the attribute the connection keeps its ``sqlite3`` connection in.
    ``sqlite_inline.ReaderCalls`` replaces the queue: aiosqlite and SQLAlchemy's dialect only put on
    it with ``put_nowait``, and only the worker takes from it."""
    import aiosqlite
    import aiosqlite.core as core

    assert version("aiosqlite") == sqlite_inline.AIOSQLITE_VERIFIED_WITH, (
        "aiosqlite changed: re-check sqlite_inline._serve_reader against aiosqlite/core.py's worker"
    )
    connection = aiosqlite.connect(":memory:")
    assert {"_tx", "_thread", "_connection"} <= set(vars(connection))
    assert not connection._thread.is_alive()  # started by ``__await__``, after the creator replaced it
    assert "self._thread.start()" in inspect.getsource(core.Connection.__await__)
    assert "return _STOP_RUNNING_SENTINEL" in inspect.getsource(core.Connection.stop)
    worker = inspect.getsource(core._connection_worker_thread)
    assert "future, function = tx.get()" in worker
    from sqlalchemy.dialects.sqlite import aiosqlite as dialect

    for source in (inspect.getsource(core), inspect.getsource(dialect)):
        uses = {line.split("_tx", 1)[1].split("(")[0] for line in source.splitlines() if "_tx." in line}
        assert uses == {".put_nowait"}, uses
    assert "call_soon_threadsafe(set_result, future, result)" in worker


def test_every_internal_the_driver_statements_use_is_where_they_read_it() -> None:
    from sqlalchemy import Column, Integer, MetaData, Table, insert
    from sqlalchemy.engine import Connection

    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("n", Integer))
    compiled = insert(table).compile(dialect=sqlite_inline.InlineSQLiteDialect(), column_keys=["id", "n"])
    for name in ("positiontup", "binds", "insert_prefetch", "update_prefetch", "post_compile_params"):
        assert hasattr(compiled, name), name
    assert compiled.positiontup == ["id", "n"]
    assert set(compiled.binds) == {"id", "n"}
    assert not compiled.effective_returning
    for name in ("_has_events", "dispatch", "_handle_dbapi_exception"):
        assert hasattr(Connection, name) or name in Connection.__slots__, name
    assert list(inspect.signature(Connection._handle_dbapi_exception).parameters)[:6] == [
        "self",
        "e",
        "statement",
        "parameters",
        "cursor",
        "context",
    ]


def test_every_internal_the_driver_rows_use_is_where_they_read_it() -> None:
    """``db/driver_rows._instance`` copies ``orm/loading._instance``'s making of a new row's instance."""
    from sqlalchemy.orm import Session, loading
    from sqlalchemy.orm.identity import _WeakInstanceDict
    from sqlalchemy.orm.state import InstanceState

    source = inspect.getsource(loading._instance_processor)
    for line in (
        "instance = mapper.class_manager.new_instance()",
        "state.key = identitykey",
        "state.identity_token = identity_token",
        "state.session_id = session_id",
        "session_identity_map._add_unpresent(state, identitykey)",
        "state._commit_all(dict_, session_identity_map)",
    ):
        assert line in source, line
    assert "self._dict[key] = state" in inspect.getsource(_WeakInstanceDict._add_unpresent)
    assert list(inspect.signature(InstanceState._commit_all).parameters) == ["self", "dict_", "instance_dict"]
    assert "hash_key" in inspect.getsource(Session.__init__)


def test_the_asyncio_engine_takes_the_inline_dialect_with_an_asyncio_pool() -> None:
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.pool import AsyncAdaptedQueuePool

    engine = create_async_engine(
        "sqlite+flightdeck_inline:///unused.db", creator=sqlite_inline.inline_creator("unused.db")
    )
    assert isinstance(engine.sync_engine.dialect, sqlite_inline.InlineSQLiteDialect)
    assert isinstance(engine.sync_engine.pool, AsyncAdaptedQueuePool)


def test_broadcaster_is_used_through_its_public_names() -> None:
    assert {"BroadcastBackend", "Event"} <= set(broadcaster.__all__)


def test_uvicorn_is_the_version_the_batched_frame_writer_was_checked_against() -> None:
    assert version("uvicorn") == frames.VERIFIED_WITH, (
        "uvicorn changed: re-check server/realtime/frames.py against "
        "uvicorn/protocols/websockets/websockets_sansio_impl.py, then update VERIFIED_WITH"
    )


def test_every_attribute_the_frame_writer_reads_is_set_by_uvicorns_sansio_protocol() -> None:
    from uvicorn.protocols.websockets import websockets_sansio_impl

    source = inspect.getsource(websockets_sansio_impl.WebSocketsSansIOProtocol)
    for name in frames.PROTOCOL_ATTRIBUTES:
        assert re.search(rf"(self\.{name}\b.*=|def {name}\()", source), name
