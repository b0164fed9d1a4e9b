"""Change notices between server processes, published through ``broadcaster`` with its faults handled.

A notice is tiny (tenant and seq), never a row: the event log is the truth and a subscriber reads the
events themselves from it. So a lost notice costs latency, never data: every local tail also re-reads
the log when it has heard nothing for a few seconds, and after every reconnect.

What the stock package gets wrong here, and what this module does instead:

- Its ``Broadcast`` listener task dies silently on a broker error and never reconnects. We drive the
  backend ourselves from a supervised task that reconnects with back-off and asks for a resync.
- Its Redis backend starts listening before anything is subscribed, which with redis-py 8 on Python 3.11
  delivers nothing; we subscribe first and then read with ``get_message``, which raises when Redis goes.
- Concurrent first subscriptions to one channel lose queues; we subscribe exactly once per process.
- Its PostgreSQL backend publishes on the LISTEN connection (concurrent publishes fail) and NOTIFY refuses
  payloads of 8000 bytes or more: we publish on a second connection under a lock and bound the payload.
- Its subscriber queues are unbounded: we keep no queue at all. A notice only moves a per-tenant
  counter; subscribers pull events from the log.

So of ``broadcaster`` we use its public API only: the ``BroadcastBackend`` interface our three backends
implement and its ``Event``. Its in-memory backend is not public, so ``memory://`` has one of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from broadcaster import BroadcastBackend
from broadcaster import Event as BroadcastEvent

from ..events.log import EventBuffer

logger = logging.getLogger(__name__)

NOTIFY_PAYLOAD_LIMIT = 7999  # PostgreSQL refuses NOTIFY payloads of 8000 bytes or more


@dataclass(frozen=True)
class Notice:
    tenant_id: str
    seq: int

    def encode(self) -> str:
        return f"{self.tenant_id}\t{self.seq}"

    @staticmethod
    def decode(message: str) -> Notice | None:
        tenant, sep, seq = message.rpartition("\t")
        # isdigit() alone accepts digits such as "²" that int() refuses
        if not sep or not tenant or not (seq.isascii() and seq.isdigit()):
            return None
        return Notice(tenant, int(seq))


class MemoryNoticeBackend(BroadcastBackend):
    """One process on its own (``memory://``): what it publishes comes back to it, and to nobody else."""

    def __init__(self) -> None:
        self._subscribed: set[str] = set()
        self._published: asyncio.Queue[BroadcastEvent] = asyncio.Queue()

    async def connect(self) -> None:
        self._published = asyncio.Queue()

    async def disconnect(self) -> None:
        pass

    async def subscribe(self, channel: str) -> None:
        self._subscribed.add(channel)

    async def unsubscribe(self, channel: str) -> None:
        self._subscribed.discard(channel)

    async def publish(self, channel: str, message: Any) -> None:
        self._published.put_nowait(BroadcastEvent(channel, message))

    async def next_published(self) -> BroadcastEvent:
        while True:
            event = await self._published.get()
            if event.channel in self._subscribed:
                return event


class RedisNoticeBackend(BroadcastBackend):
    def __init__(self, url: str) -> None:
        from redis import asyncio as redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # No silent retries: every lost connection must reach the supervisor, which resyncs.
        self._conn = redis.Redis.from_url(url, retry=Retry(NoBackoff(), 0))
        self._pubsub = self._conn.pubsub()

    async def connect(self) -> None:
        await self._conn.ping()  # fail now, not at the first publish

    async def disconnect(self) -> None:
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            await self._conn.aclose()

    async def subscribe(self, channel: str) -> None:
        await self._pubsub.subscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        await self._pubsub.unsubscribe(channel)

    async def publish(self, channel: str, message: Any) -> None:
        await self._conn.publish(channel, message)

    async def next_published(self) -> BroadcastEvent:
        while True:
            # Raises ConnectionError when Redis goes away, which is what the supervisor needs to know.
            message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None and message["type"] == "message":
                return BroadcastEvent(message["channel"].decode(), message["data"].decode())


class PostgresNoticeBackend(BroadcastBackend):
    def __init__(self, url: str) -> None:
        self._url = url.replace("postgresql+asyncpg://", "postgresql://", 1)
        self._queue: asyncio.Queue[BroadcastEvent | Exception] = asyncio.Queue(maxsize=10_000)
        self._publish_lock = asyncio.Lock()
        self._listen: Any = None
        self._publish: Any = None
        self._lost: Exception | None = None  # kept apart from the queue, which may be full

    async def connect(self) -> None:
        import asyncpg

        self._listen = await asyncpg.connect(self._url)
        self._publish = await asyncpg.connect(self._url)
        # Losing either connection means reconnecting both: a dead publish connection would otherwise
        # fail every publish while the LISTEN connection stays healthy and nothing ever reconnects.
        self._listen.add_termination_listener(self._terminated)
        self._publish.add_termination_listener(self._terminated)

    async def disconnect(self) -> None:
        for conn in (self._listen, self._publish):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close(timeout=2)

    async def subscribe(self, channel: str) -> None:
        await self._listen.add_listener(channel, self._notified)

    async def unsubscribe(self, channel: str) -> None:
        await self._listen.remove_listener(channel, self._notified)

    async def publish(self, channel: str, message: Any) -> None:
        if len(str(message).encode()) > NOTIFY_PAYLOAD_LIMIT:
            raise ValueError("NOTIFY payload too large")
        async with self._publish_lock:  # one connection runs one statement at a time
            await self._publish.execute("SELECT pg_notify($1, $2)", channel, message)

    async def next_published(self) -> BroadcastEvent:
        if self._lost is not None:
            raise self._lost
        item = await self._queue.get()
        if isinstance(item, Exception):
            raise item
        return item

    def _notified(self, _conn: Any, _pid: int, channel: str, payload: str) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # dropping is safe: subscribers re-read the log
            self._queue.put_nowait(BroadcastEvent(channel, payload))

    def _terminated(self, conn: Any) -> None:
        which = "LISTEN" if conn is self._listen else "publish"
        self._lost = ConnectionError(f"the {which} connection to PostgreSQL was closed")
        with contextlib.suppress(asyncio.QueueFull):  # only wakes a waiting reader; _lost is the record
            self._queue.put_nowait(self._lost)


def make_backend(url: str) -> BroadcastBackend:
    scheme = urlparse(url).scheme
    if scheme in ("redis", "rediss"):
        return RedisNoticeBackend(url)
    if scheme in ("postgres", "postgresql", "postgresql+asyncpg"):
        return PostgresNoticeBackend(url)
    if scheme == "memory":
        return MemoryNoticeBackend()
    raise ValueError(f"unsupported BROADCAST_URL scheme {scheme!r}: use memory://, redis:// or postgres://")


class NoticeBus:
    """Publishes notices and hands every received one to ``on_notice``; ``on_resync`` after reconnects."""

    def __init__(
        self,
        url: str,
        channel: str,
        on_notice: Callable[[Notice], None],
        on_resync: Callable[[], None],
        *,
        backoff: tuple[float, float] = (0.05, 2.0),
    ) -> None:
        make_backend(url)  # reject a bad URL at start-up, not in the background
        self.url = url
        self._local = urlparse(url).scheme == "memory"
        self.channel = channel
        self._on_notice = on_notice
        self._on_resync = on_resync
        self._backoff = backoff
        self._backend: BroadcastBackend | None = None
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.reconnects = 0
        self.publish_failures = 0
        self.published = 0
        # Only the newest seq per tenant matters, so pending notices coalesce instead of queueing.
        self._pending: dict[str, int] = {}
        self._pending_set = asyncio.Event()
        self._publisher: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name=f"notice-bus:{self.channel}")
        self._publisher = asyncio.create_task(
            self._publish_pending(), name=f"notice-publisher:{self.channel}"
        )
        # Wait briefly for the first connection so that a healthy broker is ready when serving starts;
        # an unhealthy one is retried in the background (the log still serves every subscriber).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.connected.wait(), timeout=5)

    async def stop(self) -> None:
        """Publish what is pending, then disconnect (a broker that does not answer cannot hold us up)."""
        if self._pending and self._backend is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._flush(), timeout=2)
        for task in (self._publisher, self._task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._publisher = None

    def committed(self, buffer: EventBuffer) -> None:
        """A commit listener: tell other processes the tenant's log grew to the buffer's last seq.

        On ``memory://`` there is no other process, and this one hears its own commits from its own
        listeners (the feed's, the webhook dispatcher's): the notice would only come back to wake them
        a second time, a publisher's and a subscriber's turn of the loop for every commit.
        """
        if not self._local:
            self.publish_nowait(Notice(buffer.tenant_id, max(buffer.seqs)))

    def publish_nowait(self, notice: Notice) -> None:
        """Queue a notice for other processes (called after commit; never blocks, never raises).

        While the broker is slow or away, notices of one tenant coalesce into its newest seq, which is
        published once the broker is back.
        """
        if notice.seq > self._pending.get(notice.tenant_id, 0):
            self._pending[notice.tenant_id] = notice.seq
            self._pending_set.set()

    async def _publish_pending(self) -> None:
        delay = self._backoff[0]
        while True:
            await self._pending_set.wait()
            await self.connected.wait()  # while disconnected, pending notices keep coalescing
            if await self._flush():
                delay = self._backoff[0]
            else:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._backoff[1])

    async def _flush(self) -> bool:
        """Publish every pending notice; one that fails stays pending unless a newer one came meanwhile."""
        self._pending_set.clear()
        pending, self._pending = self._pending, {}
        ok = True
        for tenant_id, seq in pending.items():
            if not await self.publish(Notice(tenant_id, seq)):
                ok = False
                if seq > self._pending.get(tenant_id, 0):
                    self._pending[tenant_id] = seq
                    self._pending_set.set()
        return ok

    async def publish(self, notice: Notice) -> bool:
        """Publish one notice now; False (logged, counted) when the broker is away or refuses it."""
        backend = self._backend
        if backend is None:
            self.publish_failures += 1
            return False
        try:
            await backend.publish(self.channel, notice.encode())
        except Exception:
            self.publish_failures += 1
            logger.warning("could not publish %s; subscribers will find it in the log", notice, exc_info=True)
            return False
        self.published += 1
        return True

    async def _supervise(self) -> None:
        delay = self._backoff[0]
        while True:
            backend = make_backend(self.url)
            try:
                await backend.connect()
                await backend.subscribe(self.channel)
                self._backend = backend
                self.connected.set()
                self._on_resync()  # whatever was published while we were away is in the log
                delay = self._backoff[0]
                while True:
                    event = await backend.next_published()
                    notice = Notice.decode(event.message)
                    if notice is not None:
                        self._on_notice(notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("notice bus %s lost its broker (%s); reconnecting", self.channel, exc)
            finally:
                self._backend = None
                self.connected.clear()
                with contextlib.suppress(Exception):
                    await backend.disconnect()
            self.reconnects += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff[1])
