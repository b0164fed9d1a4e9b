"""One socket write per HTTP response instead of two.

uvicorn's httptools protocol writes a response's status line and headers to the transport when the app
sends ``http.response.start``, then the body when it sends ``http.response.body``: two ``send()`` system
calls (and two TCP segments) for every GraphQL answer. Measured on a query that does nothing, the two
writes were about a fifth of the server's CPU per request (docs/decisions.md, "Per-request costs (issue
14, item 4, session 5, round 2)").

``OneWriteHttpProtocol`` (passed to ``uvicorn.run`` as its ``http`` protocol class) gives the protocol
a transport whose ``write`` only collects: what was written during one turn of the event loop goes out
in one write at the start of the next turn (``call_soon``), so the header and the body that Starlette
sends back to back leave together. Nothing is reordered or dropped: ``close`` writes what was collected
first; more than ``FLUSH_BYTES`` collected is written at once (a large streamed body is not held in
memory); a connection upgraded to WebSocket is handed the real transport, after what was collected.
Everything else (flow control, ``is_closing``, extra info) is the real transport's.

This reaches past uvicorn's public API (the protocol's ``transport`` attribute, ``connection_made`` and
``handle_websocket_upgrade``), so it is checked against one uvicorn version (``VERIFIED_WITH``,
``tests/test_library_pins.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

VERIFIED_WITH = "0.54.0"  # uvicorn
FLUSH_BYTES = 64 * 1024
PROTOCOL_HOOKS = ("connection_made", "handle_websocket_upgrade")


class CollectedWrites:
    """A transport whose writes of one loop turn leave in one write to ``transport``."""

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._size = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._pending:
            self._loop.call_soon(self.flush)
        self._pending.append(bytes(data))
        self._size += len(data)
        if self._size >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending) if len(self._pending) > 1 else self._pending[0]
        self._pending.clear()
        self._size = 0
        if not self.transport.is_closing():  # a lost connection: nobody to write to
            self.transport.write(data)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class OneWriteHttpProtocol(HttpToolsProtocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        collected = CollectedWrites(transport, asyncio.get_running_loop())
        super().connection_made(collected)  # type: ignore[arg-type]

    def handle_websocket_upgrade(self) -> None:
        # The WebSocket protocol writes its own frames (server/realtime/frames.py): it gets the real
        # transport, after anything still collected.
        if isinstance(self.transport, CollectedWrites):
            self.transport.flush()
            self.transport = self.transport.transport
        super().handle_websocket_upgrade()
