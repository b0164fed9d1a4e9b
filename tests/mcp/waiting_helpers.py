"""What the waiting tests share: heartbeats the test releases, and a plan step awaiting review."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from server.auth import Role, create_key
from server.db.engine import Database
from tests.mcp.helpers import ok, steps


class ReleasedSleep:
    """A sleep for the waits' heartbeats that ends only when the test releases it (on the server's
    loop): the bound of a wait is reached by releasing heartbeats, never by time passing."""

    def __init__(self) -> None:
        self.sleeping: list[asyncio.Future[None]] = []
        self.credit = 0
        self.asked: list[float] = []
        self.ended = 0  # sleeps that ran their course (not cancelled)

    async def sleep(self, seconds: float) -> None:
        self.asked.append(seconds)
        if self.credit:
            self.credit -= 1
        else:
            done = asyncio.get_running_loop().create_future()
            self.sleeping.append(done)
            await done
        self.ended += 1

    async def release(self, count: int = 1) -> None:
        for _ in range(count):
            self.sleeping = [f for f in self.sleeping if not f.done()]
            if self.sleeping:
                self.sleeping.pop(0).set_result(None)
            else:
                self.credit += 1


@asynccontextmanager
async def http_client(base_url: str, token: str | None = None, **options: Any) -> AsyncIterator[Client]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{base_url}/mcp", http_client=http), cache=None, **options) as client,
    ):
        yield client


async def step_awaiting_review(client: Client, questions: list[str] | None = None) -> tuple[str, str]:
    """(plan id, step id) of a new plan whose first step awaits a person."""
    plan = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
    step = (await ok(client, "get_next_step", {"planId": plan["planId"]}))["step"]
    await ok(
        client,
        "request_user_review",
        {"stepId": step["stepId"], "summary": "is this source good?", "questions": questions or ["why?"]},
    )
    return plan["planId"], step["stepId"]


class Progress:
    """The progress notifications one call received, and an event for the first."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []
        self.first = asyncio.Event()

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((progress, total, message))
        self.first.set()


async def other_tenants_viewer(database_url: str, now: datetime) -> str:
    """A viewer key of tenant "other", for checking that nothing of this tenant's is shown to it."""
    db = Database(database_url)
    try:
        return (await create_key(db, "other", Role.VIEWER, "other-viewer", now))[1]
    finally:
        await db.dispose()
