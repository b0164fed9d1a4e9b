"""``flightdeck mcp``: the same tools over stdio, for clients that launch a process.

The process works on the configured database directly (the embedded SQLite file by default). Who it
acts as is decided once, at start-up, as the HTTP server decides dev mode: with ``--key`` (or
FLIGHTDECK_API_KEY) it is that key's tenant and role; without one it is the dev admin, but only while
no API key is active and dev_mode allows it. Commits are announced on the broadcast URL, so a
``flightdeck serve`` on the same database shows them live.
"""

from __future__ import annotations

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from ..auth import DEV_PRINCIPAL, Principal, bearer_key, count_active_keys, decide_dev_mode, principal_for_key
from ..clock import SystemClock
from ..config import Settings
from ..db.engine import Database
from ..db.models import McpToolCallLog
from ..oplog import OperationLogWriter
from ..realtime import NoticeBus
from ..services.runtime import Runtime
from .resources import ResourceWatch
from .server import build_server
from .toolsets import Selection

UNPARSABLE = (
    "Parse error: the line is not a JSON-RPC 2.0 message (one JSON object per line, UTF-8, with "
    '"jsonrpc": "2.0"; nested at most as deep as the server parses)'
)


async def answer_unparsable(
    read: ReadStream[SessionMessage | Exception],
    write: WriteStream[SessionMessage],
    forward: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    """Forwards each message; answers a line that is none (not JSON, ``null``, too deep, a lone
    surrogate) with JSON-RPC's parse error and ``id: null``, as the specification asks, where the SDK
    would only log it and leave the client waiting."""
    async with forward:
        async for item in read:
            if isinstance(item, Exception):
                error = types.ErrorData(code=types.PARSE_ERROR, message=UNPARSABLE)
                await write.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=None, error=error)))
            else:
                await forward.send(item)


class StdioRefused(Exception):
    """The process cannot decide who it acts as (a bad key, or keys exist and none was given)."""


async def stdio_principal(db: Database, settings: Settings, key: str | None) -> Principal:
    if key:
        principal = await principal_for_key(db, bearer_key(key) or key)
        if principal is None:
            raise StdioRefused("the API key is not valid or has been revoked")
        return principal
    active = await count_active_keys(db)
    # stdio reaches no network: it counts as loopback.
    if decide_dev_mode(settings.dev_mode, active, True, settings.allow_non_loopback_dev_mode):
        return DEV_PRINCIPAL
    raise StdioRefused(
        "this database has active API keys (or dev_mode is 'off'): pass --key or set FLIGHTDECK_API_KEY "
        "to the key the agent acts with"
    )


async def serve_stdio(settings: Settings, key: str | None, toolsets: Selection = None) -> None:
    db = Database(settings.database_url)
    try:
        principal = await stdio_principal(db, settings, key)
        runtime = Runtime(db=db, clock=SystemClock(), settings=settings)
        if settings.operation_log:
            runtime.tool_call_log = OperationLogWriter(db, model=McpToolCallLog)
            runtime.tool_call_log.start()
        # Notices from other processes wake the resource watch (resources.py); polling is its fallback.
        bus = NoticeBus(
            settings.broadcast_url,
            settings.broadcast_channel,
            on_notice=lambda n: runtime.feed.announce(n.tenant_id, n.seq),
            on_resync=runtime.feed.resync,
        )
        runtime.commit_listeners.append(bus.committed)
        await bus.start()
        try:
            watch = ResourceWatch(runtime, principal)
            server = build_server(
                runtime, lambda ctx: principal, lambda ctx: toolsets, transport="stdio", watch=watch
            )
            try:
                async with stdio_server() as (read, write), anyio.create_task_group() as tasks:
                    parsed_send, parsed = anyio.create_memory_object_stream[SessionMessage | Exception](0)
                    tasks.start_soon(answer_unparsable, read, write, parsed_send)
                    await server.run(parsed, write, server.create_initialization_options())
            finally:
                await watch.close()
                await runtime.feed.close()
        finally:
            await bus.stop()
            if runtime.tool_call_log is not None:
                await runtime.tool_call_log.stop()
    finally:
        await db.dispose()
