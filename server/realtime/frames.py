"""Writing many WebSocket messages with one write: how a replay sends 50,000 events a second.

ASGI has one ``websocket.send`` per message, and each one costs a trip through Starlette, our
middleware and uvicorn, then a ``send()`` system call of its own: most of a replay's time went there.
graphql-transport-ws has no batch message either (one ``next`` per event), so batching is in how the
frames are written: under uvicorn's ``websockets-sansio`` protocol (what ``flightdeck serve`` and the
tests run) the frames of many messages are made by the connection's own ``websockets`` protocol object,
exactly as uvicorn makes them one at a time, and handed to the transport in one write. Anything else
(another server or WebSocket implementation) gets one ASGI send per message, as before.

This reaches past uvicorn's public API, so it is checked against one uvicorn version
(``tests/test_library_pins.py``); what it reads of uvicorn's ``WebSocketsSansIOProtocol``:
``send`` (to recognise it), ``conn`` (the ``websockets`` protocol), ``transport``, ``writable`` (an
``asyncio.Event`` cleared while the transport is over its high-water mark), ``disconnected``,
``close_sent``, ``handshake_complete`` and ``initial_response``: the states in which its own ``send``
refuses to write a message.

Back-pressure stays what it was: nothing is written while the transport is paused, and one write takes
only the messages that fit under the transport's high-water mark (at least one), so what the server
holds for one connection is the mark plus one message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Protocol

from starlette.types import Scope, Send

VERIFIED_WITH = "0.54.0"  # uvicorn

# Read by tests/test_library_pins.py: the attributes of the protocol this module reads.
PROTOCOL_ATTRIBUTES = (
    "send",
    "conn",
    "transport",
    "writable",
    "disconnected",
    "close_sent",
    "handshake_complete",
    "initial_response",
)

_RAW_SEND = "flightdeck.websocket_send"  # the server's own ASGI send, kept in the scope


def keep_websocket_send(scope: Scope, send: Send) -> None:
    """Keep the server's own ``send`` of a WebSocket in its scope, so that ``frame_writer`` can recognise
    the protocol behind it (called by the request layer, which Starlette's error middleware hands a
    WebSocket's ``send`` unwrapped)."""
    scope[_RAW_SEND] = send


class FrameWriter(Protocol):
    def write_now(self, texts: Sequence[str]) -> int:
        """Write as many of ``texts`` as the connection takes without waiting; how many were written."""

    async def write(self, texts: Sequence[str]) -> None:
        """Write every one of ``texts``, in order, waiting while the connection's buffer is full."""


class Disconnected(Exception):
    """The connection is closed or closing: nothing more can be written to it."""


class ProtocolFrames:
    """Frames made by uvicorn's websockets-sansio protocol object, many per transport write."""

    __slots__ = ("_protocol",)

    def __init__(self, protocol: Any) -> None:
        self._protocol = protocol

    def write_now(self, texts: Sequence[str]) -> int:
        if not self._protocol.writable.is_set() or not texts:
            return 0
        return self._write(texts)

    async def write(self, texts: Sequence[str]) -> None:
        written = 0
        while written < len(texts):
            await self._protocol.writable.wait()
            written += self._write(texts[written:])

    def _write(self, texts: Sequence[str]) -> int:
        """Frame and write the first of ``texts`` (at least one) while they fit under the transport's
        high-water mark: a connection never holds more than the mark plus one message, as with one
        ASGI send per message. How many were written."""
        from websockets.exceptions import InvalidState

        protocol = self._protocol
        if (
            protocol.disconnected
            or protocol.close_sent
            or not protocol.handshake_complete
            or protocol.initial_response is not None
        ):
            raise Disconnected("the WebSocket is closed or closing")
        conn, transport = protocol.conn, protocol.transport
        room = transport.get_write_buffer_limits()[1] - transport.get_write_buffer_size()
        written = size = 0
        try:
            for text in texts:
                data = text.encode()
                conn.send_text(data)
                written += 1
                size += len(data)
                if size >= room:
                    break
        except InvalidState:
            raise Disconnected("the WebSocket is closed or closing") from None
        transport.write(b"".join(conn.data_to_send()))
        return written


class MessageFrames:
    """One ASGI send per message: for servers other than uvicorn's websockets-sansio protocol."""

    __slots__ = ("_send_text",)

    def __init__(self, send_text: Callable[[str], Awaitable[None]]) -> None:
        self._send_text = send_text

    def write_now(self, texts: Sequence[str]) -> int:
        for written, text in enumerate(texts):
            coro = self._send_text(text)
            assert isinstance(coro, Coroutine)
            try:
                coro.send(None)
            except StopIteration:
                continue
            except Exception:  # the connection is gone; the subscriber's own task will see it too
                return written
            coro.close()  # suspended before writing anything (waiting for the buffer to drain)
            return written
        return len(texts)

    async def write(self, texts: Sequence[str]) -> None:
        for text in texts:
            await self._send_text(text)


def frame_writer(scope: Scope, send_text: Callable[[str], Awaitable[None]]) -> FrameWriter:
    """The fastest writer for the WebSocket of ``scope``; ``send_text`` is its ordinary ASGI path."""
    protocol = _sansio_protocol(scope)
    return MessageFrames(send_text) if protocol is None else ProtocolFrames(protocol)


def cut(scope: Scope) -> bool:
    """Drop the WebSocket of ``scope`` at once (its transport aborted, no closing handshake): for a
    connection that must end but whose close cannot be written, its reader reading nothing. ASGI has
    no such message (``websocket.close`` waits for room in the buffer like any send). False under a
    server whose connection this module cannot reach."""
    protocol = _sansio_protocol(scope)
    if protocol is None:
        return False
    protocol.transport.abort()
    return True


def _sansio_protocol(scope: Scope) -> Any:
    """uvicorn's websockets-sansio protocol object serving the WebSocket of ``scope``, or None."""
    send = scope.get(_RAW_SEND)
    protocol = getattr(send, "__self__", None)
    if protocol is not None and getattr(send, "__func__", None) is _sansio_send():
        return protocol
    return None


def _sansio_send() -> object:
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
    except ImportError:  # pragma: no cover - uvicorn without websockets installed
        return None
    return WebSocketsSansIOProtocol.send
