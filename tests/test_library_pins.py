"""Library internals we depend on (docs/decisions.md, issue 11 item 6), pinned to the versions checked.

Each test fails loudly on an upgrade of the library: re-check the module it names against the new
release's source, then move the pin there.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sqlite3
from importlib.metadata import version

import broadcaster
import sqlalchemy.dialects.sqlite.aiosqlite as sqlalchemy_aiosqlite
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


def test_sqlalchemy_is_the_version_the_inline_sqlite_connection_was_checked_against() -> None:
    assert version("sqlalchemy") == sqlite_inline.VERIFIED_WITH, (
        "SQLAlchemy changed: re-check server/db/sqlite_inline.py against "
        "sqlalchemy/dialects/sqlite/aiosqlite.py, then update VERIFIED_WITH"
    )


def test_every_attribute_the_aiosqlite_adapter_reads_is_on_the_inline_connection() -> None:
    source = inspect.getsource(sqlalchemy_aiosqlite)
    read = set(re.findall(r"self\._connection\.(\w+)", source))
    assert {"_conn", "_tx", "_connection", "stop"} <= read  # the private ones, still read
    sample = sqlite_inline.InlineConnection(sqlite3.connect(":memory:"))
    try:
        missing = {name for name in read if not hasattr(sample, name)}
    finally:
        sample.stop()
    assert not missing, f"SQLAlchemy's aiosqlite adapter reads {missing}, which InlineConnection lacks"


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
