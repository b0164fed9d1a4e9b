"""One socket write per HTTP response (server/http_writes.py), without losing or reordering a byte."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from server.http_writes import FLUSH_BYTES, CollectedWrites, OneWriteHttpProtocol
from tests.conftest import LiveServer


class FakeTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.protocol: Any = None

    def write(self, data: Any) -> None:
        assert not self.closed, "written after close"
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol


async def turn() -> None:
    await asyncio.sleep(0)
    await asyncio.sleep(0)


async def test_writes_of_one_loop_turn_leave_in_one_write_in_their_order() -> None:
    real = FakeTransport()
    collected = CollectedWrites(real, asyncio.get_running_loop())
    collected.write(b"HTTP/1.1 200 OK\r\n\r\n")
    collected.write(memoryview(b"body"))
    assert real.writes == []
    await turn()
    assert real.writes == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
    collected.write(b"next")
    await turn()
    assert real.writes[1:] == [b"next"]


async def test_close_writes_what_was_collected_first_and_a_large_body_is_not_held() -> None:
    real = FakeTransport()
    collected = CollectedWrites(real, asyncio.get_running_loop())
    collected.write(b"last words")
    collected.close()
    assert real.writes == [b"last words"]
    assert real.closed
    await turn()  # the scheduled flush finds nothing left, and writes nothing after close
    assert real.writes == [b"last words"]

    real = FakeTransport()
    collected = CollectedWrites(real, asyncio.get_running_loop())
    collected.write(b"h")
    collected.write(b"x" * FLUSH_BYTES)
    assert real.writes == [b"h" + b"x" * FLUSH_BYTES]


async def _app(scope: Any, receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"5")]})
    await send({"type": "http.response.body", "body": b"hello"})


async def test_uvicorns_protocol_writes_a_response_in_one_write() -> None:
    config = uvicorn.Config(_app, http=OneWriteHttpProtocol, log_level="warning", lifespan="off")
    config.load()
    protocol = OneWriteHttpProtocol(config=config, server_state=ServerState(), app_state={})
    real = FakeTransport()
    protocol.connection_made(real)
    protocol.data_received(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(real.writes) == 1, real.writes
    head, body = real.writes[0].split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK")
    assert body == b"hello"
    protocol.connection_lost(None)


def test_pipelined_requests_get_their_responses_in_order_over_a_real_socket(live_server: LiveServer) -> None:
    host, port = live_server.url.removeprefix("http://").split(":")
    request = "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    bodies = [f'{{"query": "query Q{i} {{ __typename }}"}}' for i in range(3)]
    raw = "".join(f"{request}Content-Length: {len(b)}\r\n\r\n{b}" for b in bodies).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        received = b""
        while received.count(b'"__typename"') < 3:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK") == 3
    assert received.count(b'{"data":{"__typename":"Query"}}') == 3
