"""Webhook delivery: one task per enabled endpoint, woken by commits, driven by the event log.

A task delivers only while it holds its endpoint's lease (a row lease: a conditional UPDATE, alike on
SQLite and PostgreSQL), so two server processes never send to one endpoint at once; a process that dies
holding it stalls that endpoint for at most ``webhook_lease_seconds``. The lease is renewed before each
request whenever less than the request timeout plus a margin is left, so it cannot lapse mid-request.

Nothing here runs inside a transition: a commit only sets an ``asyncio.Event`` (``wake``), so a slow or
dead endpoint delays neither transitions nor the other endpoints' tasks. After a failed attempt an
endpoint's task pauses until that delivery's retry is due instead of sending the rest of its backlog into
a dead receiver.

What delivery costs the write path is kept small: a tenant's new events are read and encoded once per
process for all its endpoints (``EventWindow``); the passes that end together are recorded in one write
transaction (``Recorder``: on SQLite every write transaction holds the one writer lock that transitions
wait for); an endpoint is sent up to ``webhook_parallel_requests`` requests at once over its own pool of
kept-alive connections (default 1: measured on this 2-core machine with local receivers, more requests
at once delivered less; a receiver far away, where each request waits on the network, wants more).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ..clock import SystemClock
from ..config import Settings
from ..db.engine import Database
from ..db.webhook_models import WebhookEndpoint
from ..events.log import EventBuffer
from ..metrics import record_loop_pass, record_webhook_attempt
from ..realtime import NoticeBus
from ..services.runtime import Runtime
from ..services.webhooks import delivery
from ..services.webhooks.delivery import DeliveryStatus, Sent
from ..services.webhooks.sender import Outcome, Sender
from ..services.webhooks.window import EventWindow, event_time

logger = logging.getLogger(__name__)

LEASE_MARGIN_SECONDS = 1.0
# The deliverer's passes are counted with the timer loops' (one pass: one endpoint's batch).
LOOP_NAME = "webhooks"
_OUTCOMES = {DeliveryStatus.DELIVERED: "delivered", DeliveryStatus.FAILED: "failed"}
# Events kept in a tenant's window: a few full batches of every endpoint.
WINDOW_BATCHES = 4
# A woken task waits this long before its pass, so that a burst of commits is sent as one batch (one
# transaction to record it) rather than one pass per commit.
COALESCE_SECONDS = 0.2


class WebhookDispatcher:
    def __init__(self, runtime: Runtime, *, owner: str | None = None) -> None:
        self.runtime = runtime
        settings = runtime.settings
        self.owner = owner or f"{os.getpid()}-{uuid.uuid4().hex[:12]}"
        self.timeout = settings.webhook_timeout_seconds
        # Never shorter than a request plus the margin: the lease must outlast any request begun under it.
        self.lease = timedelta(
            seconds=max(settings.webhook_lease_seconds, 2 * (self.timeout + LEASE_MARGIN_SECONDS))
        )
        self.poll = settings.webhook_poll_seconds
        self.batch = settings.webhook_batch_size
        self._workers: dict[str, EndpointWorker] = {}
        self._by_tenant: dict[str, set[str]] = {}
        self._windows: dict[str, EventWindow] = {}
        self.recorder = Recorder(runtime.db, self.owner)
        self._task: asyncio.Task[None] | None = None
        self._refresh = asyncio.Event()

    def start(self) -> None:
        self._task = asyncio.create_task(self._supervise(), name="webhooks")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for worker in list(self._workers.values()):
            await worker.stop()
        self._workers.clear()

    def wake(self, tenant_id: str) -> None:
        """The tenant's endpoints look at the log now. Never blocks, never raises."""
        for endpoint_id in self._by_tenant.get(tenant_id, ()):
            worker = self._workers.get(endpoint_id)
            if worker is not None:
                worker.wake.set()

    def committed(self, buffer: EventBuffer) -> None:
        """A commit listener: ``wake`` the committing tenant's endpoints."""
        self.wake(buffer.tenant_id)

    def wake_all(self) -> None:
        for worker in self._workers.values():
            worker.wake.set()

    def refresh(self) -> None:
        """Re-read the endpoint list now (after one was created, changed or deleted here)."""
        self._refresh.set()

    async def sync(self) -> None:
        """Start a task for each enabled endpoint, stop those of endpoints gone or disabled."""
        async with self.runtime.db.reader() as session:
            rows = (
                await session.execute(
                    select(WebhookEndpoint.id, WebhookEndpoint.tenant_id).where(
                        WebhookEndpoint.enabled.is_(True)
                    )
                )
            ).all()
        wanted = {r.id: r.tenant_id for r in rows}
        for endpoint_id in set(self._workers) - set(wanted):
            await self._workers.pop(endpoint_id).stop()
        by_tenant: dict[str, set[str]] = {}
        for endpoint_id, tenant_id in wanted.items():
            by_tenant.setdefault(tenant_id, set()).add(endpoint_id)
            if endpoint_id not in self._workers:
                worker = EndpointWorker(self, endpoint_id)
                self._workers[endpoint_id] = worker
                worker.start()
        self._by_tenant = by_tenant

    async def _supervise(self) -> None:
        while True:
            try:
                await self.sync()
            except Exception:
                logger.exception("webhooks: reading the endpoint list failed; trying again")
            self._refresh.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll):
                    await self._refresh.wait()

    def now(self) -> datetime:
        return self.runtime.clock.now()

    def window(self, tenant_id: str) -> EventWindow:
        found = self._windows.get(tenant_id)
        if found is None:
            found = self._windows[tenant_id] = EventWindow(tenant_id, WINDOW_BATCHES * self.batch)
        return found


class Recorder:
    """Group commit: the records of the passes that end while one is being written go into the next
    transaction together, so ten endpoints finishing together cost one write, not ten. A pass waits for
    its own record (its cursor is not moved before that); a failed transaction fails every pass in it,
    which then sends its batch again (at least once)."""

    def __init__(self, db: Database, owner: str) -> None:
        self.db = db
        self.owner = owner
        self._queue: list[tuple[delivery.Record, asyncio.Future[bool]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def record(self, entry: delivery.Record) -> bool:
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.append((entry, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="webhook-records")
        return await asyncio.shield(done)

    async def drain(self) -> None:
        """Wait for the records queued so far to be written (at shutdown)."""
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
            self._writer = None

    async def _write(self) -> None:
        await asyncio.sleep(0)  # the passes ending in this turn of the loop join the first transaction
        while self._queue:
            batch, self._queue = self._queue, []
            try:
                held = await delivery.record_many(self.db, self.owner, self.owner, [e for e, _ in batch])
            except BaseException as exc:
                for _, done in batch:
                    if not done.done():
                        done.set_exception(exc if isinstance(exc, Exception) else RuntimeError("cancelled"))
                if not isinstance(exc, Exception):
                    raise
                continue
            for (_, done), still in zip(batch, held, strict=True):
                if not done.done():
                    done.set_result(still)


class EndpointWorker:
    """Delivers to one endpoint, pass after pass, while it can take the endpoint's lease."""

    def __init__(self, dispatcher: WebhookDispatcher, endpoint_id: str) -> None:
        self.dispatcher = dispatcher
        self.endpoint_id = endpoint_id
        self.wake = asyncio.Event()
        self.paused_until: datetime | None = None
        # Until when this process holds the lease, as far as it knows (it re-takes it past half of it).
        self.lease_until: datetime | None = None
        self._task: asyncio.Task[None] | None = None
        settings = dispatcher.runtime.settings
        self.sender = Sender(
            timeout=settings.webhook_timeout_seconds,
            max_response_bytes=settings.webhook_max_response_bytes,
            allow_private=settings.webhook_allow_private_targets,
            connections=settings.webhook_parallel_requests,
        )
        self.parallel = settings.webhook_parallel_requests

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"webhook:{self.endpoint_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.dispatcher.recorder.drain()  # a record being written lands while the lease is held
        await self.sender.close()
        with contextlib.suppress(Exception):
            await delivery.release_lease(self.dispatcher.runtime.db, self.endpoint_id, self.dispatcher.owner)

    async def _run(self) -> None:
        while True:
            busy = False
            started = time.perf_counter()
            try:
                busy = await self.pass_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                record_loop_pass(LOOP_NAME, started, ok=False, items=0)
                logger.exception("webhooks: a pass of endpoint %s failed; trying again", self.endpoint_id)
            else:
                record_loop_pass(LOOP_NAME, started, ok=True, items=self.sent_last_pass)
            if busy:
                continue
            self.wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.dispatcher.poll):
                    await self.wake.wait()
                    await asyncio.sleep(COALESCE_SECONDS)

    async def pass_once(self) -> bool:
        """One pass; True when it sent a full batch with no failure (there may be more right away)."""
        d = self.dispatcher
        now = d.now()
        if self.paused_until is not None and now < self.paused_until:
            return False
        self.paused_until = None
        held = await self._held_work(now)
        if held is None:
            return False
        endpoint, work = held
        sent, cursor = await self._deliver(endpoint, work)
        self.sent_last_pass = len(sent)
        if not await d.recorder.record(delivery.Record(endpoint, sent, cursor)):
            self.lease_until = None
        return self.paused_until is None and work.more

    async def _held_work(self, now: datetime) -> tuple[delivery.EndpointState, delivery.Work] | None:
        """The endpoint and its work while this process holds its lease; None when it cannot."""
        d = self.dispatcher
        db = d.runtime.db
        if self.lease_until is not None and self.lease_until - now >= d.lease / 2:
            # Taken (a write) only when not held or half gone; otherwise the endpoint is only read.
            return await delivery.read_held(db, self.endpoint_id, now, d.batch, d.window)
        self.lease_until = None
        endpoint = await delivery.take_lease(db, self.endpoint_id, d.owner, now, d.lease)
        if endpoint is None:
            return None
        self.lease_until = now + d.lease
        return endpoint, await delivery.read_work(db, endpoint, now, d.batch, d.window)

    async def _deliver(self, endpoint: delivery.EndpointState, work: delivery.Work) -> tuple[list[Sent], int]:
        """Sends the work chunk by chunk until it is done, the lease is lost or a chunk has a failure (the
        endpoint then pauses); what was sent and the cursor to record."""
        d = self.dispatcher
        sent: list[Sent] = []
        items = work.items
        start = 0
        # A pass that begins with a retry (the endpoint failed before) probes with it alone: a dead
        # receiver gets one request per retry step, not a chunk.
        size = 1 if items and not items[0].new else self.parallel
        while start < len(items):
            chunk = items[start : start + size]
            at = d.now()
            if not await self._keep_lease(endpoint, at):
                return sent, self._cursor_before(work, chunk[0], endpoint.cursor_seq)
            stamp = int(at.timestamp())
            outcomes = await asyncio.gather(
                *(self.sender.send(endpoint.url, item.message, endpoint.secrets, stamp) for item in chunk)
            )
            sent.extend(Sent(item, outcome, at) for item, outcome in zip(chunk, outcomes, strict=True))
            _measure(chunk, outcomes, at)
            start += len(chunk)
            size = self.parallel
            if self._pause_on_failure(chunk, outcomes, at):
                rest = items[start:]
                return sent, self._cursor_before(work, rest[0], endpoint.cursor_seq) if rest else work.cursor
        return sent, work.cursor

    async def _keep_lease(self, endpoint: delivery.EndpointState, at: datetime) -> bool:
        """Renews the lease when a request sent now might outlast it; False when it is lost."""
        d = self.dispatcher
        if self.lease_until is not None and self.lease_until - at >= timedelta(
            seconds=d.timeout + LEASE_MARGIN_SECONDS
        ):
            return True
        if not await delivery.renew_lease(d.runtime.db, endpoint.id, d.owner, at, d.lease):
            self.lease_until = None
            return False
        self.lease_until = at + d.lease
        return True

    def _pause_on_failure(self, chunk: list[delivery.Item], outcomes: list[Outcome], at: datetime) -> bool:
        """After a failure the endpoint pauses until its earliest retry is due."""
        retry_at = [
            delivery.settle(item, outcome, at)[1]
            for item, outcome in zip(chunk, outcomes, strict=True)
            if not outcome.succeeded
        ]
        if not retry_at:
            return False
        due = [t for t in retry_at if t is not None]
        self.paused_until = min(due) if due else at + delivery.RETRY_SCHEDULE[0]
        return True

    sent_last_pass = 0

    @staticmethod
    def _cursor_before(work: delivery.Work, stop: delivery.Item, cursor: int) -> int:
        """The cursor when the pass stops before ``stop``: just before the first new item not sent."""
        new = [i.seq for i in work.items if i.new]
        if not new:
            return cursor
        start = work.items.index(stop)
        unsent = [i.seq for i in work.items[start:] if i.new]
        return unsent[0] - 1 if unsent else work.cursor


def _measure(chunk: list[delivery.Item], outcomes: list[Outcome], at: datetime) -> None:
    for item, outcome in zip(chunk, outcomes, strict=True):
        status = delivery.settle(item, outcome, at)[0]
        label = _OUTCOMES.get(status, "retry_scheduled")
        committed = event_time(item.message.body) if label == "delivered" else None
        aware = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
        lag = (aware - committed).total_seconds() if committed is not None else None
        record_webhook_attempt(label, item.attempts + 1, lag)


async def run_dispatcher(settings: Settings) -> None:
    """Delivery alone (``flightdeck deliver-webhooks``): the dispatcher, woken by the notice bus, until
    SIGTERM or SIGINT."""
    db = Database(settings.database_url)
    runtime = Runtime(db=db, clock=SystemClock(), settings=settings)
    dispatcher = WebhookDispatcher(runtime)
    bus = NoticeBus(
        settings.broadcast_url,
        settings.broadcast_channel,
        on_notice=lambda n: dispatcher.wake(n.tenant_id),
        on_resync=dispatcher.wake_all,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await bus.start()
    dispatcher.start()
    logger.info("delivering webhooks as %s", dispatcher.owner)
    try:
        await stop.wait()
    finally:
        await dispatcher.stop()
        await bus.stop()
        await db.dispose()
