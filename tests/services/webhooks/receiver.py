"""A real HTTP receiver on 127.0.0.1 (aiohttp) whose answers a test scripts: a status, or a hang."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

HANG = -1  # a scripted answer: never respond (the sender times out)
HOLD = -2  # a scripted answer: 200, once the test releases it


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    script: list[int] = field(default_factory=list)  # answers in order; then ``default``
    default: int = 200
    location: str | None = None  # sent with every answer when set (to script a redirect)
    received: list[Received] = field(default_factory=list)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)  # ends every hang

    def answer(self) -> int:
        return self.script.pop(0) if self.script else self.default

    @property
    def ids(self) -> list[str]:
        return [r.headers["webhook-id"] for r in self.received]

    @property
    def seqs(self) -> list[str]:
        """The event seq of each request, in arrival order (``data.seq``, the idempotency key)."""
        return [str(r.json["data"]["seq"]) for r in self.received]


@asynccontextmanager
async def receiver() -> AsyncIterator[Receiver]:
    state = Receiver("")

    async def hook(request: web.Request) -> web.Response:
        state.received.append(
            Received({k.lower(): v for k, v in request.headers.items()}, await request.read())
        )
        state.arrived.set()
        status = state.answer()
        if status in (HANG, HOLD):
            await state.released.wait()
        headers = {"location": state.location} if state.location else None
        return web.Response(status=200 if status == HOLD else status, text="ok", headers=headers)

    app = web.Application()
    app.router.add_post("/{tail:.*}", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    state.url = f"http://127.0.0.1:{port}/hook"
    try:
        yield state
    finally:
        state.released.set()
        await runner.cleanup()
