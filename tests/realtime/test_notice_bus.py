"""The notice bus (server/realtime/bus.py) against real brokers, and the event feed it wakes.

Redis and PostgreSQL are the shared services of the development machines (``FLIGHTDECK_TEST_REDIS_URL``,
``FLIGHTDECK_TEST_POSTGRES_URL``); every test uses a channel of its own, so runs never hear each other.
Tests that restart Redis start a private ``redis-server`` on a free port: the shared one is never
touched. Every wait polls a condition with a deadline.

Why each workaround in server/realtime/bus.py exists (the stock ``broadcaster`` 0.3 package; the
``test_stock_*`` tests below show the ones that are cheap to show):

- Redis backend delivers nothing with redis-py 8 on Python 3.11: its listener task calls
  ``pubsub.listen()`` as soon as the first ``subscribe`` *starts*; ``listen()`` ends at once because
  nothing is subscribed yet, and the task then waits for a ready flag nobody sets again.
  -> ``RedisNoticeBackend`` subscribes first and reads with ``get_message``.
- Its listener dies (Redis) or hangs forever (PostgreSQL) when the broker restarts, and never
  reconnects. -> ``NoticeBus`` drives the backend from a supervised task that reconnects with back-off
  and calls ``on_resync`` so that local tails re-read the log.
- Concurrent first subscriptions to one channel lose queues (both see "no subscriber yet", the second
  overwrites the first's set). -> one subscription per process; local fan-out is the ``EventFeed``.
- PostgreSQL backend publishes on its LISTEN connection: concurrent publishes fail with "another
  operation is in progress"; NOTIFY refuses payloads of 8000 bytes or more. -> a second connection
  for publishing, under a lock, and a payload check that raises ``ValueError`` before sending.
- Subscriber queues are unbounded. -> no queue per subscriber at all; the PostgreSQL backend's one
  queue is bounded and drops (harmless: notices only wake readers of the log).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from broadcaster import Broadcast, BroadcastBackend
from redis import asyncio as aioredis
from sqlalchemy.engine import make_url

import server.realtime.bus as pubsub
import server.realtime.feed as feed_module
from server.auth import Principal
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.events.log import EventBuffer
from server.realtime.bus import (
    NOTIFY_PAYLOAD_LIMIT,
    MemoryNoticeBackend,
    Notice,
    NoticeBus,
    PostgresNoticeBackend,
    make_backend,
)
from server.realtime.feed import LoggedEvent
from server.services.runtime import Runtime
from tests.conftest import POSTGRES_ENV, _service_missing
from tests.realtime.conftest import PrivateRedis
from tests.services.helpers import Flight
from tests.waiting import patient

FAST = (0.02, 0.2)  # reconnect back-off for tests


async def wait_until(condition: Callable[[], bool], within: float = 10, what: str = "condition") -> None:
    deadline = time.monotonic() + patient(within)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within}s waiting for {what}")
        await asyncio.sleep(0.01)


@dataclass
class Heard:
    """What a bus handed to its callbacks."""

    notices: list[Notice] = field(default_factory=list)
    resyncs: int = 0

    def notice(self, notice: Notice) -> None:
        self.notices.append(notice)

    def resync(self) -> None:
        self.resyncs += 1

    def seqs(self, tenant: str = "t") -> list[int]:
        return [n.seq for n in self.notices if n.tenant_id == tenant]


@contextlib.asynccontextmanager
async def running_bus(url: str, channel: str, heard: Heard | None = None) -> AsyncIterator[NoticeBus]:
    heard = heard or Heard()
    bus = NoticeBus(url, channel, heard.notice, heard.resync, backoff=FAST)
    await bus.start()
    try:
        yield bus
    finally:
        await bus.stop()


# -- the brokers --


@pytest.fixture
def channel() -> str:
    return f"fd_test_{uuid.uuid4().hex}"


@pytest.fixture
async def postgres_url() -> str:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        _service_missing(f"PostgreSQL tests need {POSTGRES_ENV}")
    url = make_url(str(base)).set(drivername="postgresql").render_as_string(hide_password=False)
    import asyncpg

    try:
        conn = await asyncpg.connect(url)
    except Exception as exc:
        _service_missing(f"PostgreSQL at {url} is not reachable: {exc}")
    await conn.close()
    return str(url)


@pytest.fixture(params=["redis", "postgres"])
def broker_url(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"{request.param}_url"))


# -- notices --


@pytest.mark.parametrize(
    "notice", [Notice("t", 0), Notice("tenant-a", 12345678901234), Notice("with\ttab", 7), Notice("ü", 1)]
)
def test_a_notice_survives_encoding(notice: Notice) -> None:
    assert Notice.decode(notice.encode()) == notice


@pytest.mark.parametrize(
    "garbage", ["", "t", "t\t", "\t5", "t\t-1", "t\t1.5", "t\tx", "t\t²", "t\t٣", "t\t 1"]
)
def test_garbage_is_not_a_notice(garbage: str) -> None:
    assert Notice.decode(garbage) is None


def test_make_backend_knows_the_three_schemes_and_refuses_others() -> None:
    assert type(make_backend("memory://")).__name__ == "MemoryNoticeBackend"
    assert type(make_backend("redis://127.0.0.1:1/0")).__name__ == "RedisNoticeBackend"
    for url in ("postgres://u@h/db", "postgresql://u@h/db", "postgresql+asyncpg://u@h/db"):
        assert isinstance(make_backend(url), PostgresNoticeBackend)
    with pytest.raises(ValueError, match="unsupported BROADCAST_URL"):
        NoticeBus("kafka://h", "c", lambda n: None, lambda: None)


# -- delivery --


async def test_memory_bus_hears_its_own_notices(channel: str) -> None:
    """memory:// is one process: the bus loops back (other local code is woken by commit listeners)."""
    heard = Heard()
    async with running_bus("memory://", channel, heard) as bus:
        assert bus.connected.is_set()
        assert heard.resyncs == 1  # every (re)connect asks for a resync
        bus.publish_nowait(Notice("t", 1))
        bus.publish_nowait(Notice("u", 2))
        await wait_until(lambda: len(heard.notices) == 2, what="the notices")
    assert sorted(heard.notices, key=lambda n: n.seq) == [Notice("t", 1), Notice("u", 2)]


async def test_a_commit_is_published_to_other_processes_and_not_echoed_on_memory(
    broker_url: str, channel: str
) -> None:
    """On a broker a commit is told to the other processes; on memory:// there are none, and this
    process's own commit listeners (the feed's, the webhooks') have already heard it."""
    buffer = EventBuffer("t", "agent", datetime.now(UTC), seqs=[4, 5])
    heard, echoed = Heard(), Heard()
    async with (
        running_bus(broker_url, channel, heard) as bus,
        running_bus("memory://", channel, echoed) as alone,
    ):
        bus.committed(buffer)
        alone.committed(buffer)
        await wait_until(lambda: heard.notices == [Notice("t", 5)], what="the commit's notice")
        # Another tenant's notice, published as asked: a notice of the commit would have gone before it.
        alone.publish_nowait(Notice("u", 6))
        await wait_until(lambda: Notice("u", 6) in echoed.notices, what="the published notice")
    assert echoed.notices == [Notice("u", 6)]
    assert alone.published == 1


async def test_a_notice_published_by_one_bus_reaches_another(broker_url: str, channel: str) -> None:
    """Two buses on one URL and channel stand for two server processes."""
    heard = Heard()
    async with (
        running_bus(broker_url, channel, heard) as listener,
        running_bus(broker_url, channel) as sender,
    ):
        assert listener.connected.is_set()
        assert sender.connected.is_set()
        assert await sender.publish(Notice("t", 1))
        sender.publish_nowait(Notice("t", 2))
        await wait_until(lambda: heard.seqs() == [1, 2], what="both notices")
        assert listener.reconnects == 0
        assert sender.publish_failures == 0


async def test_a_bus_on_another_channel_hears_nothing(redis_url: str, channel: str) -> None:
    heard, other = Heard(), Heard()
    async with (
        running_bus(redis_url, channel, heard),
        running_bus(redis_url, channel + "_other", other),
        running_bus(redis_url, channel) as sender,
    ):
        assert await sender.publish(Notice("t", 1))
        await wait_until(lambda: heard.seqs() == [1])
        await asyncio.sleep(0.1)
    assert other.notices == []


async def test_garbage_on_the_channel_is_ignored_without_a_reconnect(redis_url: str, channel: str) -> None:
    heard = Heard()
    raw = aioredis.Redis.from_url(redis_url)
    try:
        async with running_bus(redis_url, channel, heard) as bus:
            for junk in ("garbage", "t\t²", "\t5", "t\tx"):
                await raw.publish(channel, junk)
            await raw.publish(channel, Notice("t", 9).encode())
            await wait_until(lambda: heard.notices == [Notice("t", 9)], what="the valid notice")
            assert bus.reconnects == 0
    finally:
        await raw.aclose()


# -- Redis restarts --


async def test_the_bus_reconnects_after_redis_restarts_and_resyncs(private_redis: PrivateRedis) -> None:
    channel = f"fd_test_{uuid.uuid4().hex}"
    heard = Heard()
    async with (
        running_bus(private_redis.url, channel, heard) as listener,
        running_bus(private_redis.url, channel) as sender,
    ):
        assert await sender.publish(Notice("t", 1))
        await wait_until(lambda: heard.seqs() == [1], what="the first notice")
        assert heard.resyncs == 1

        private_redis.kill()
        await wait_until(lambda: not listener.connected.is_set(), what="the listener to notice")
        assert not await sender.publish(Notice("t", 2))  # refused, not raised
        await private_redis.start()  # the same port
        await wait_until(lambda: listener.connected.is_set() and sender.connected.is_set(), what="reconnect")

        assert listener.reconnects >= 1
        assert heard.resyncs >= 2  # whatever was missed while away is read from the log

        async def deliver(seq: int) -> bool:
            await sender.publish(Notice("t", seq))
            await asyncio.sleep(0.05)
            return seq in heard.seqs()

        # The listener may resubscribe a moment after the sender is back: publish until heard.
        deadline = time.monotonic() + patient(10)
        seq = 3
        while not await deliver(seq):
            assert time.monotonic() < deadline, "no notice arrived after the restart"
            seq += 1
        assert 2 not in heard.seqs()


async def test_notices_published_while_redis_is_down_coalesce_and_go_out_after_it_returns(
    private_redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel = f"fd_test_{uuid.uuid4().hex}"
    sent: list[str] = []
    original = pubsub.RedisNoticeBackend.publish

    async def recording_publish(self: pubsub.RedisNoticeBackend, channel: str, message: Any) -> None:
        await original(self, channel, message)
        sent.append(message)

    monkeypatch.setattr(pubsub.RedisNoticeBackend, "publish", recording_publish)
    heard = Heard()
    async with (
        running_bus(private_redis.url, channel, heard),
        running_bus(private_redis.url, channel) as sender,
    ):
        private_redis.kill()
        await wait_until(lambda: not sender.connected.is_set(), what="the sender to notice")
        for seq in range(1, 51):
            sender.publish_nowait(Notice("t", seq))  # never raises, never blocks
        sender.publish_nowait(Notice("u", 7))
        sender.publish_nowait(Notice("t", 3))  # older than what is pending: dropped
        await asyncio.sleep(0.1)
        assert sent == []

        await private_redis.start()
        await wait_until(lambda: len(sent) == 2, what="the pending notices")
        assert sorted(sent) == ["t\t50", "u\t7"]
        await asyncio.sleep(0.1)
        assert len(sent) == 2

        # And the other process hears what is published from now on.
        deadline = time.monotonic() + patient(10)
        seq = 51
        while seq - 1 not in heard.seqs():
            assert time.monotonic() < deadline, "the listener never heard the sender again"
            sender.publish_nowait(Notice("t", seq))
            seq += 1
            await asyncio.sleep(0.05)


class GatedBackend(MemoryNoticeBackend):
    """A broker that takes as long as the test says to accept a publish."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.published: list[str] = []
        self.waiting = asyncio.Event()

    async def publish(self, channel: str, message: Any) -> None:
        self.waiting.set()
        await self.gate.wait()
        self.published.append(message)
        await super().publish(channel, message)


async def test_publish_nowait_coalesces_while_the_broker_is_slow(
    channel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    backends: list[GatedBackend] = []

    def make(url: str) -> BroadcastBackend:
        backends.append(GatedBackend(url))
        return backends[-1]

    monkeypatch.setattr(pubsub, "make_backend", make)
    heard = Heard()
    async with running_bus("memory://", channel, heard) as bus:
        backend = backends[-1]
        bus.publish_nowait(Notice("t", 1))
        await asyncio.wait_for(backend.waiting.wait(), 5)  # stuck publishing seq 1
        for seq in range(2, 1001):
            bus.publish_nowait(Notice("t", seq))
        bus.publish_nowait(Notice("u", 5))
        assert bus._pending == {"t": 1000, "u": 5}  # bounded by tenants, not by notices
        backend.gate.set()
        await wait_until(lambda: len(heard.notices) == 3, what="three notices")
        await asyncio.sleep(0.05)
    assert backend.published == ["t\t1", "t\t1000", "u\t5"]
    assert heard.notices == [Notice("t", 1), Notice("t", 1000), Notice("u", 5)]


async def test_stop_flushes_pending_notices_but_does_not_hang_on_a_stuck_broker(
    channel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    backends: list[GatedBackend] = []

    def make(url: str) -> BroadcastBackend:
        backends.append(GatedBackend(url))
        return backends[-1]

    monkeypatch.setattr(pubsub, "make_backend", make)
    bus = NoticeBus("memory://", channel, lambda n: None, lambda: None, backoff=FAST)
    await bus.start()
    bus.publish_nowait(Notice("t", 1))
    await asyncio.wait_for(bus.stop(), patient(10))  # the gate never opens: stop gives up on it


# -- PostgreSQL --


async def _kill_backend_pid(postgres_url: str, pid: int) -> None:
    import asyncpg

    admin = await asyncpg.connect(postgres_url)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    finally:
        await admin.close()


@pytest.mark.parametrize("which", ["_listen", "_publish"])
async def test_a_killed_postgres_connection_is_replaced_and_delivery_goes_on(
    postgres_url: str, channel: str, which: str
) -> None:
    """Killing the LISTEN connection, or the publishing one, makes the bus reconnect both and resync.

    A dead publishing connection used to fail every later publish for good, since the LISTEN
    connection was still fine and nothing ever reconnected.
    """
    heard, sender_heard = Heard(), Heard()
    async with (
        running_bus(postgres_url, channel, heard) as listener,
        running_bus(postgres_url, channel, sender_heard) as sender,
    ):
        assert await sender.publish(Notice("t", 1))
        await wait_until(lambda: heard.seqs() == [1])
        victim = listener if which == "_listen" else sender
        victim_heard = heard if which == "_listen" else sender_heard
        backend = victim._backend
        assert isinstance(backend, PostgresNoticeBackend)
        await _kill_backend_pid(postgres_url, getattr(backend, which).get_server_pid())

        await wait_until(lambda: victim.reconnects == 1 and victim.connected.is_set(), what="a reconnect")
        assert victim_heard.resyncs == 2
        assert victim._backend is not backend
        sender.publish_nowait(Notice("t", 2))
        await wait_until(lambda: heard.seqs() == [1, 2], what="delivery after the reconnect")


async def test_fifty_concurrent_publishes_through_one_postgres_backend_all_arrive(
    postgres_url: str, channel: str
) -> None:
    listener, sender = PostgresNoticeBackend(postgres_url), PostgresNoticeBackend(postgres_url)
    await listener.connect()
    await sender.connect()
    try:
        await listener.subscribe(channel)
        await asyncio.gather(*(sender.publish(channel, f"t\t{i}") for i in range(50)))
        received = [await asyncio.wait_for(listener.next_published(), 10) for _ in range(50)]
    finally:
        await listener.disconnect()
        await sender.disconnect()
    assert sorted(e.message for e in received) == sorted(f"t\t{i}" for i in range(50))
    assert {e.channel for e in received} == {channel}


async def test_a_postgres_payload_of_8000_bytes_is_refused_and_the_connection_survives(
    postgres_url: str, channel: str
) -> None:
    backend = PostgresNoticeBackend(postgres_url)
    await backend.connect()
    try:
        await backend.subscribe(channel)
        for too_big in ("x" * 8000, "é" * 4000, "x" * 100_000):  # bytes, not characters, count
            with pytest.raises(ValueError, match="too large"):
                await backend.publish(channel, too_big)
        largest = "y" * NOTIFY_PAYLOAD_LIMIT
        await backend.publish(channel, largest)  # 7999 bytes: PostgreSQL's limit, still accepted
        await backend.publish(channel, "t\t1")
        first = await asyncio.wait_for(backend.next_published(), 10)
        second = await asyncio.wait_for(backend.next_published(), 10)
    finally:
        await backend.disconnect()
    assert [first.message, second.message] == [largest, "t\t1"]


async def test_the_postgres_backend_queue_is_bounded_and_a_lost_connection_still_surfaces() -> None:
    backend = PostgresNoticeBackend("postgresql://nobody@127.0.0.1:1/none")
    for i in range(backend._queue.maxsize + 100):  # a stuck reader: the queue stops growing
        backend._notified(None, 0, "c", f"t\t{i}")
    assert backend._queue.qsize() == backend._queue.maxsize
    backend._terminated(None)  # does not fit in the full queue, yet must not be lost
    with pytest.raises(ConnectionError):
        await backend.next_published()


# -- the event feed, fed by another runtime through the bus --


def wire(runtime: Runtime, url: str, channel: str, heard: Heard) -> NoticeBus:
    """What the server's lifespan does: notices wake the feed, commits publish notices."""

    def on_notice(notice: Notice) -> None:
        heard.notice(notice)
        runtime.feed.announce(notice.tenant_id, notice.seq)

    def on_resync() -> None:
        heard.resync()
        runtime.feed.resync()

    bus = NoticeBus(url, channel, on_notice, on_resync, backoff=FAST)
    runtime.commit_listeners.append(bus.committed)
    return bus


@contextlib.asynccontextmanager
async def instance(db_url: str, clock: FakeClock, **settings: Any) -> AsyncIterator[Runtime]:
    runtime = Runtime(db=Database(db_url), clock=clock, settings=Settings(database_url=db_url, **settings))
    try:
        yield runtime
    finally:
        await runtime.feed.close()
        await runtime.db.dispose()


class Follower:
    """A task following the feed of one tenant from a seq, keeping what it gets."""

    def __init__(self, runtime: Runtime, tenant: str, after: int) -> None:
        self.events: list[LoggedEvent] = []
        self.task = asyncio.create_task(self._run(runtime, tenant, after))

    async def _run(self, runtime: Runtime, tenant: str, after: int) -> None:
        async for batch in runtime.feed.follow(tenant, after):
            self.events.extend(batch)

    def seqs(self) -> list[int]:
        return [e.seq for e in self.events]

    async def stop(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def until_live(runtime: Runtime, tenant: str, followers: int) -> None:
    """The tenant's tail has read the log once and waits: anything later must be announced or polled."""
    await wait_until(lambda: tenant in runtime.feed.tails, what="a tail")
    tail = runtime.feed.tails[tenant]
    await asyncio.wait_for(tail.ready.wait(), 10)
    await wait_until(lambda: tail.refs == followers, what="every follower")
    await asyncio.sleep(0.05)


async def commit_a_plan(runtime: Runtime, principal: Principal, clock: FakeClock) -> list[int]:
    """Create and start a plan on ``runtime``; the seqs it wrote."""
    flight = Flight(runtime, principal, clock)
    before = await flight.last_seq()
    created = await flight.create(2)
    await flight.start(created.plan.id)
    return list(range(before + 1, await flight.last_seq() + 1))


async def test_a_follower_gets_another_instances_events_through_redis(
    db_url: str, redis_url: str, channel: str, clock: FakeClock, principal: Principal
) -> None:
    """With a 60 s poll, only the bus can deliver within the test; ten followers share one tail."""
    heard_a, heard_b = Heard(), Heard()
    async with (
        instance(db_url, clock, feed_poll_seconds=60) as a,
        instance(db_url, clock, feed_poll_seconds=60) as b,
    ):
        bus_a, bus_b = wire(a, redis_url, channel, heard_a), wire(b, redis_url, channel, heard_b)
        await bus_a.start()
        await bus_b.start()
        followers = [Follower(a, principal.tenant_id, 0) for _ in range(10)]
        try:
            await until_live(a, principal.tenant_id, 10)
            seqs = await commit_a_plan(b, principal, clock)
            await wait_until(lambda: all(f.seqs() == seqs for f in followers), what="every follower")
            assert heard_a.seqs(principal.tenant_id)[-1] == seqs[-1]
            assert heard_a.resyncs == 1  # the bus's own first connect: no reconnect helped
            assert len(a.feed.tails) == 1
        finally:
            for f in followers:
                await f.stop()
            await bus_a.stop()
            await bus_b.stop()


async def test_with_the_broker_down_a_follower_still_gets_them_by_polling(
    db_url: str, private_redis: PrivateRedis, clock: FakeClock, principal: Principal
) -> None:
    channel = f"fd_test_{uuid.uuid4().hex}"
    heard_a, heard_b = Heard(), Heard()
    poll = 0.2
    async with (
        instance(db_url, clock, feed_poll_seconds=poll) as a,
        instance(db_url, clock, feed_poll_seconds=poll) as b,
    ):
        bus_a = wire(a, private_redis.url, channel, heard_a)
        bus_b = wire(b, private_redis.url, channel, heard_b)
        await bus_a.start()
        await bus_b.start()
        follower = Follower(a, principal.tenant_id, 0)
        try:
            await until_live(a, principal.tenant_id, 1)
            private_redis.kill()
            await wait_until(lambda: not bus_a.connected.is_set() and not bus_b.connected.is_set())

            seqs = await commit_a_plan(b, principal, clock)
            await wait_until(lambda: follower.seqs() == seqs, within=10 * poll, what="the polled events")
            assert heard_a.notices == []  # nothing came through the bus
        finally:
            await follower.stop()
            await bus_a.stop()
            await bus_b.stop()


async def test_a_notice_for_a_seq_the_log_lacks_costs_one_read_not_a_busy_loop(
    runtime: Runtime, principal: Principal, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A foreign or garbled notice (another deployment on the channel) must not make the tail spin."""
    reads = 0
    original = feed_module.read_events

    async def counting(*args: Any, **kwargs: Any) -> list[LoggedEvent]:
        nonlocal reads
        reads += 1
        return await original(*args, **kwargs)

    monkeypatch.setattr(feed_module, "read_events", counting)
    runtime.feed.poll_seconds = 60
    seqs = await commit_a_plan(runtime, principal, clock)
    follower = Follower(runtime, principal.tenant_id, 0)
    try:
        await wait_until(lambda: follower.seqs() == seqs)
        await until_live(runtime, principal.tenant_id, 1)
        before = reads
        runtime.feed.announce(principal.tenant_id, 10**9)
        await asyncio.sleep(0.3)
        assert reads - before <= 2, f"{reads - before} reads for one notice"
        # ... and real events still arrive at once afterwards.
        more = await commit_a_plan(runtime, principal, clock)
        await wait_until(lambda: follower.seqs() == seqs + more, within=5)
    finally:
        await follower.stop()


async def test_a_resync_during_a_read_is_not_lost(
    runtime: Runtime, principal: Principal, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reconnect's resync that lands while the tail is reading makes it read once more."""
    runtime.feed.poll_seconds = 60
    follower = Follower(runtime, principal.tenant_id, 0)
    try:
        await until_live(runtime, principal.tenant_id, 1)
        reading = asyncio.Event()
        release = asyncio.Event()
        original = feed_module.read_events

        async def slow_read(*args: Any, **kwargs: Any) -> list[LoggedEvent]:
            result = await original(*args, **kwargs)  # sees the log before the commit below
            reading.set()
            await release.wait()
            return result

        monkeypatch.setattr(feed_module, "read_events", slow_read)
        runtime.feed.resync()  # start a read, and hold it after its snapshot
        await asyncio.wait_for(reading.wait(), 5)
        monkeypatch.setattr(feed_module, "read_events", original)
        # Another instance commits (no local announcement), then the bus reconnects and resyncs.
        other = Runtime(db=Database(runtime.settings.database_url), clock=clock, settings=runtime.settings)
        try:
            seqs = await commit_a_plan(other, principal, clock)
        finally:
            await other.db.dispose()
        runtime.feed.resync()
        release.set()
        await wait_until(lambda: follower.seqs() == seqs, within=5, what="the events after the resync")
    finally:
        await follower.stop()


# -- the stock package, for the record --


@pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="on Python 3.12 and 3.13 the stock backend delivers (seen here)"
)
async def test_stock_redis_backend_delivers_nothing(redis_url: str, channel: str) -> None:
    """broadcaster 0.3.1 + redis-py 8 on Python 3.11: a subscriber never hears a publish.

    If this fails, the stock package has been fixed; RedisNoticeBackend may then be reconsidered.
    """
    async with Broadcast(redis_url) as stock, stock.subscribe(channel) as subscriber:
        await asyncio.sleep(0.1)
        await stock.publish(channel, "t\t1")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(subscriber.get(), 1.5)
    heard = Heard()
    async with running_bus(redis_url, channel, heard), running_bus(redis_url, channel) as ours:
        await ours.publish(Notice("t", 1))
        await wait_until(lambda: heard.seqs() == [1], what="our bus to deliver")


async def test_stock_postgres_backend_fails_concurrent_and_large_publishes(
    postgres_url: str, channel: str
) -> None:
    stock = Broadcast(postgres_url)
    await stock.connect()
    try:
        results = await asyncio.gather(
            *(stock.publish(channel, f"t\t{i}") for i in range(20)), return_exceptions=True
        )
        assert any(isinstance(r, Exception) for r in results)
        with pytest.raises(Exception, match="payload string too long"):
            await stock.publish(channel, "x" * 8000)
    finally:
        await stock.disconnect()


async def test_stock_postgres_listener_never_recovers_from_a_killed_connection(
    postgres_url: str, channel: str
) -> None:
    stock = Broadcast(postgres_url)
    await stock.connect()
    try:
        async with stock.subscribe(channel):
            connection: Any = stock._backend._conn  # type: ignore[attr-defined]
            await _kill_backend_pid(postgres_url, connection.get_server_pid())
            await wait_until(connection.is_closed, what="the connection to close")
            await asyncio.sleep(0.3)
            assert stock._backend._conn is connection  # type: ignore[attr-defined]  # never replaced
            with pytest.raises(Exception, match="closed"):
                await stock.publish(channel, "t\t1")
    finally:
        with contextlib.suppress(Exception):
            await stock.disconnect()


class YieldingMemoryBackend(MemoryNoticeBackend):
    """The memory backend with a subscribe that yields, as every network backend's does."""

    async def subscribe(self, channel: str) -> None:
        await asyncio.sleep(0)
        await super().subscribe(channel)


async def test_stock_concurrent_first_subscriptions_lose_a_queue_and_queues_are_unbounded(
    channel: str,
) -> None:
    stock = Broadcast(backend=YieldingMemoryBackend())
    await stock.connect()
    contexts = [stock.subscribe(channel), stock.subscribe(channel)]
    try:
        subscribers = await asyncio.gather(*(c.__aenter__() for c in contexts))
        assert len(subscribers) == 2
        assert len(stock._subscribers[channel]) == 1  # one of the two queues is gone
        for i in range(1000):
            await stock.publish(channel, f"t\t{i}")
        await asyncio.sleep(0.05)
        [queue] = stock._subscribers[channel]
        assert queue.maxsize == 0
        assert queue.qsize() == 1000  # nobody reads: it just grows
    finally:
        for c in contexts:
            with contextlib.suppress(Exception):
                await c.__aexit__(None, None, None)
        await stock.disconnect()
