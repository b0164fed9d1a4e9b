"""The feed takes the events this process commits as they were written, without reading them back from
the log, and only when they follow what it holds: a gap (another process's
events, a notice lost) is still filled by a read, and a read in flight when events are handed over
adds none of them twice. On both databases, through real transactions."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

import pytest

from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.realtime import LoggedEvent
from server.realtime import feed as feed_module
from server.realtime.feed import read_events
from server.services.runtime import Runtime, unit_of_work


class Colour(enum.StrEnum):
    RED = "red"


async def commit(runtime: Runtime, principal: Principal, *kinds: str) -> None:
    """One transaction logging one event per kind, with data a JSON round trip changes (an enum, a
    tuple, a nested object)."""
    async with unit_of_work(runtime, principal) as tx:
        for kind in kinds:
            tx.events.record(
                kind,
                entity_type="plan",
                entity_id=f"id-{kind}",
                root_type="plan",
                root_id="root",
                from_state="a",
                to_state="b",
                data={"colour": Colour.RED, "pair": (1, 2), "nested": {"n": 1.5}},
            )


@dataclass
class Reads:
    """The ``after`` of every read of the log the feed made, and how many of them have returned."""

    started: list[int] = field(default_factory=list)
    returned: int = 0

    async def until(self, returned: int) -> None:
        for _ in range(1000):
            if self.returned >= returned:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"the tail's reads did not return: {self}")

    async def settled(self) -> None:
        """No read is left on a reader thread (one cut off by the end of the test would finish on a
        closed event loop)."""
        await self.until(len(self.started))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    seen = Reads()

    async def counting(db: Database, tenant_id: str, after: int, limit: int) -> list[LoggedEvent]:
        seen.started.append(after)
        try:
            return await read_events(db, tenant_id, after, limit)
        finally:
            seen.returned += 1

    monkeypatch.setattr(feed_module, "read_events", counting)
    return seen


async def next_batch(follower: AsyncGenerator[list[LoggedEvent], None]) -> list[LoggedEvent]:
    return await asyncio.wait_for(anext(follower), 10)


@pytest.fixture
def settings(db_url: str) -> Settings:
    """No fallback re-read of the log during a test: every read here is one the feed chose to make."""
    return Settings(database_url=db_url, feed_poll_seconds=300)


async def following(runtime: Runtime, tenant: str) -> AsyncGenerator[list[LoggedEvent], None]:
    """A follower from the start of an empty log, once its tail knows where the log ends."""
    follower = runtime.feed.follow(tenant, 0)
    first = asyncio.ensure_future(anext(follower))
    for _ in range(1000):
        tail = runtime.feed.tails.get(tenant)
        if tail is not None and tail.ready.is_set() and not tail.task.done():
            break
        await asyncio.sleep(0.01)
    return _resumed(follower, first)


async def _resumed(
    follower: AsyncGenerator[list[LoggedEvent], None], first: asyncio.Future[list[LoggedEvent]]
) -> AsyncGenerator[list[LoggedEvent], None]:
    try:
        yield await first
        async for batch in follower:
            yield batch
    finally:
        first.cancel()
        await follower.aclose()


async def test_events_committed_here_reach_a_follower_without_a_read_as_the_log_holds_them(
    runtime: Runtime, principal: Principal, reads: Reads
) -> None:
    follower = await following(runtime, principal.tenant_id)
    try:
        await reads.until(1)  # the tail's first read of the (empty) log is back
        before = len(reads.started)
        await commit(runtime, principal, "one", "two", "three")
        got = await next_batch(follower)
        assert reads.started[before:] == []  # handed over, not read back
        logged = await read_events(runtime.db, principal.tenant_id, 0, 100)
        assert got == logged  # the same tuples a read gives: data through JSON, the time in UTC
        assert got[0].data == {"colour": "red", "pair": [1, 2], "nested": {"n": 1.5}}
    finally:
        await reads.settled()
        await follower.aclose()


async def test_events_after_a_gap_are_read_from_the_log_in_order_once(
    runtime: Runtime, principal: Principal, clock: FakeClock, reads: Reads
) -> None:
    follower = await following(runtime, principal.tenant_id)
    await reads.until(1)
    other = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
    try:
        await commit(other, principal, "elsewhere")  # another process: no notice reaches this feed
        before = len(reads.started)
        await commit(runtime, principal, "here")  # seq 2 does not follow the tail's 0: not taken
        seqs: list[int] = []
        while len(seqs) < 2:
            seqs += [e.seq for e in await next_batch(follower)]
        assert seqs == [1, 2]
        assert reads.started[before:] != []  # the gap was read
        assert [e.seq for e in runtime.feed.tails[principal.tenant_id].ring] == [1, 2]
    finally:
        await reads.settled()
        await follower.aclose()
        await other.db.dispose()


async def test_a_read_in_flight_when_events_are_handed_over_adds_none_of_them_twice(
    runtime: Runtime, principal: Principal, monkeypatch: pytest.MonkeyPatch
) -> None:
    follower = await following(runtime, principal.tenant_id)
    tail = runtime.feed.tails[principal.tenant_id]
    gate = asyncio.Event()
    started = asyncio.Event()
    returned = asyncio.Event()

    async def held(db: Database, tenant_id: str, after: int, limit: int) -> list[LoggedEvent]:
        started.set()
        await gate.wait()
        try:
            return await read_events(db, tenant_id, after, limit)
        finally:
            returned.set()

    monkeypatch.setattr(feed_module, "read_events", held)
    try:
        tail.resync()  # a read from seq 0 starts, and waits at the gate
        await asyncio.wait_for(started.wait(), 10)
        await commit(runtime, principal, "one", "two")  # taken while that read is out
        assert [e.seq for e in await next_batch(follower)] == [1, 2]
        gate.set()  # the read returns 1 and 2 as well
        await commit(runtime, principal, "three")
        got: list[Any] = [e.seq for e in await next_batch(follower)]
        assert got == [3]
        await asyncio.wait_for(returned.wait(), 10)  # the held read is back (none left on a thread)
        assert [e.seq for e in tail.ring] == [1, 2, 3]
    finally:
        gate.set()
        await follower.aclose()
