"""graphql-transport-ws spoken by hand over ``websockets``: no client library between a test and the
socket, so a test can stop reading, shrink buffers, or cut the connection abruptly."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlparse

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Subprotocol

SUBPROTOCOL = Subprotocol("graphql-transport-ws")

EVENT_SEQS = "subscription Events($after: Int) { events(after: $after) { seq kind rootId } }"


class SubscriptionEnded(Exception):
    pass


class RawSubscription:
    """One connection carrying one subscription (id "1")."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    @classmethod
    async def open(
        cls,
        ws_url: str,
        query: str,
        variables: dict[str, Any],
        *,
        token: str | None = None,
        recv_buffer: int | None = None,
        within: float = 10,
        before_subscribe: Callable[[ClientConnection], Awaitable[None]] | None = None,
        **connect_kw: Any,
    ) -> RawSubscription:
        """Connect, initialise, subscribe. ``recv_buffer`` shrinks the client socket's SO_RCVBUF;
        ``before_subscribe`` runs once the connection is acknowledged."""
        if recv_buffer is not None:
            url = urlparse(ws_url)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv_buffer)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, (url.hostname, url.port))
            connect_kw["sock"] = sock
            # A reader that stalls on purpose gets its pongs only behind the events queued for it: the
            # client's keepalive would end the connection for the test's own stall on a slow machine.
            connect_kw.setdefault("ping_interval", None)
        ws = await websockets.connect(ws_url, subprotocols=[SUBPROTOCOL], open_timeout=within, **connect_kw)
        sub = cls(ws)
        try:
            payload = {"Authorization": f"Bearer {token}"} if token else {}
            await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
            ack = json.loads(await asyncio.wait_for(ws.recv(), within))
            if ack.get("type") != "connection_ack":
                raise SubscriptionEnded(f"expected connection_ack, got {ack}")
            if before_subscribe is not None:
                await before_subscribe(ws)
            await ws.send(
                json.dumps(
                    {"id": "1", "type": "subscribe", "payload": {"query": query, "variables": variables}}
                )
            )
        except BaseException:
            sub.abort()
            raise
        return sub

    async def next(self, within: float = 10) -> dict[str, Any]:
        """The ``data`` of the next ``next`` message."""
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), within))
            kind = message.get("type")
            if kind == "next":
                if message["payload"].get("errors"):
                    raise SubscriptionEnded(f"errors: {message['payload']['errors']}")
                data: dict[str, Any] = message["payload"]["data"]
                return data
            if kind == "ping":
                await self.ws.send(json.dumps({"type": "pong"}))
                continue
            if kind == "pong":
                continue
            raise SubscriptionEnded(f"subscription ended: {message}")

    def abort(self) -> None:
        """Cut the connection abruptly: no close frame, whatever is buffered is lost."""
        self.ws.transport.abort()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(), 10)


async def read_seqs(sub: RawSubscription, until_seq: int, within: float) -> list[int]:
    """``events`` seqs from ``sub`` until one is >= ``until_seq`` (or fail after ``within`` seconds)."""
    seqs: list[int] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not seqs or seqs[-1] < until_seq:
        data = await sub.next(within=max(0.01, deadline - loop.time()))
        seqs.append(data["events"]["seq"])
    return seqs
