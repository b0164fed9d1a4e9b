"""An MCP session's resource watch that falls behind an archive's cut-off is told (HISTORY_TRUNCATED from
the feed), announces every subscribed resource once (any of them may have changed unseen) and goes on
following the log from where it resumes, instead of ending. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.mcp.resources import ResourceWatch
from server.services.retention.archive import archive
from server.services.runtime import Runtime
from tests.services.retention.helpers import log_events
from tests.waiting import patient

PLAN_1, PLAN_2 = "flightdeck://plans/plan-1", "flightdeck://plans/plan-2"


@pytest.fixture
def settings(db_url: str) -> Settings:
    # A small ring, so a watch held back by a slow client must read the table, where the hole is.
    return Settings(database_url=db_url, feed_ring_size=16, feed_poll_seconds=0.05)


class Client:
    """An MCP session as the watch sees it: it records the notifications, and can be held back."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.open = asyncio.Event()
        self.open.set()
        self.blocked = asyncio.Event()

    async def send_resource_updated(self, uri: str) -> None:
        if not self.open.is_set():
            self.blocked.set()
        await self.open.wait()
        self.sent.append(uri)


async def _until(condition: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(patient(10)):
            while not condition():  # noqa: ASYNC110 (a state of the watch's, no event to wait on)
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(what) from None


async def test_a_watch_behind_the_cut_off_announces_its_resources_and_follows_on(
    runtime: Runtime, principal: Principal, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 10)  # seqs 1..10, roots plan-0..plan-4
    watch = ResourceWatch(runtime, principal)
    client = Client()
    try:
        await watch.subscribe(client, PLAN_1)
        await watch.subscribe(client, PLAN_2)
        client.open.clear()
        await log_events(db, clock, 5)  # 11..15: the watch is held sending their notifications
        await _until(client.blocked.is_set, "the watch never read 11..15")
        await log_events(db, clock, 60)  # 16..75: more than the ring keeps
        tail = runtime.feed.tails[principal.tenant_id]
        await _until(lambda: tail.loaded == 75, "the feed never read up to 75")
        assert await archive(db, "default", 70, tmp_path, clock.now()) is not None

        client.open.set()  # the watch reads on from 15: 16..70 are gone
        await _until(lambda: len(client.sent) >= 6, "the watch stopped at the hole")

        assert watch.task is not None
        assert not watch.task.done()
        # 11..15, then the announcement of the hole, then 71..75 (each touches plan-1 and plan-2).
        assert client.sent == [PLAN_1, PLAN_2] * 3
        await log_events(db, clock, 2)  # 76, 77: roots plan-0 and plan-1
        await _until(lambda: len(client.sent) == 7, "the watch did not follow on past the hole")
        assert client.sent[-1] == PLAN_1
    finally:
        await watch.close()
        await runtime.feed.close()
