"""The live event feed of one process: every subscriber follows the log from a seq of its choosing.

Per tenant with at least one local subscriber there is one ``TenantTail``: a task that reads new events
from the log once, keeps the newest of them in a bounded ring, and wakes the subscribers. It reads when
a notice says there is something new, and every ``poll_seconds`` anyway. A subscriber holds nothing but
its position: it takes events from the ring, or from the table when it is behind the ring (replay
after a reconnect, or a slow consumer), so a slow subscriber costs no memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import func, select

from ..db.engine import Database
from ..db.models import Event
from ..metrics import FEED_POLLS

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoggedEvent:
    """An event as read from the log; immutable, so every subscriber can share one copy."""

    seq: int
    tenant_id: str
    entity_type: str
    entity_id: str
    root_type: str
    root_id: str
    kind: str
    from_state: str | None
    to_state: str | None
    actor: str
    data: dict[str, Any]
    created_at: datetime


# Core, not ORM: a replay reads every event of the log, and building ORM rows first cost more than the
# read itself. The columns in LoggedEvent's order, so a row becomes one without naming each.
_READ_EVENTS = select(
    Event.seq,
    Event.tenant_id,
    Event.entity_type,
    Event.entity_id,
    Event.root_type,
    Event.root_id,
    Event.kind,
    Event.from_state,
    Event.to_state,
    Event.actor,
    Event.data,
    Event.created_at,
)


async def read_events(db: Database, tenant_id: str, after: int, limit: int) -> list[LoggedEvent]:
    async with db.reader() as session:
        result = await session.execute(
            _READ_EVENTS.where(Event.tenant_id == tenant_id, Event.seq > after)
            .order_by(Event.seq)
            .limit(limit)
        )
        return [LoggedEvent(*cast(tuple[Any, ...], row)) for row in result]


async def last_seq(db: Database, tenant_id: str) -> int:
    async with db.reader() as session:
        value = await session.scalar(select(func.max(Event.seq)).where(Event.tenant_id == tenant_id))
        return int(value or 0)


class TenantTail:
    def __init__(self, feed: EventFeed, tenant_id: str) -> None:
        self.feed = feed
        self.tenant_id = tenant_id
        self.ring: deque[LoggedEvent] = deque(maxlen=feed.ring_size)
        self.loaded = -1  # highest seq read from the log; -1 until the first read
        self.known = 0  # highest seq some notice announced
        self.refs = 0
        self._wake = asyncio.Event()
        self._advanced = asyncio.Event()
        self.ready = asyncio.Event()
        self.task = asyncio.create_task(self._run(), name=f"tail:{tenant_id}")

    def announce(self, seq: int) -> None:
        if seq > self.known:
            self.known = seq
        if seq > self.loaded:
            self._wake.set()

    def resync(self) -> None:
        self._wake.set()

    def after(self, pos: int) -> list[LoggedEvent] | None:
        """Events after ``pos`` held in the ring, or None when ``pos`` is older than the ring."""
        if pos >= self.loaded:
            return []
        if not self.ring or pos + 1 < self.ring[0].seq:
            return None
        start = pos + 1 - self.ring[0].seq
        return [self.ring[i] for i in range(start, len(self.ring))]

    async def wait_beyond(self, pos: int, patience: float) -> None:
        if self.loaded > pos:
            return
        advanced = self._advanced
        # asyncio.timeout, not wait_for: wait_for wraps the wait in a task, one per subscriber per event.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(patience):
                await advanced.wait()

    async def _run(self) -> None:
        db = self.feed.db
        while True:
            # Cleared before reading, so that a resync or notice arriving during the read wakes us again.
            self._wake.clear()
            try:
                if self.loaded < 0:
                    self.loaded = await last_seq(db, self.tenant_id)
                    self.ready.set()
                batch = await read_events(db, self.tenant_id, self.loaded, self.feed.batch_size)
                if batch:
                    self.ring.extend(batch)
                    self.loaded = batch[-1].seq
                    advanced, self._advanced = self._advanced, asyncio.Event()
                    advanced.set()
                    if len(batch) == self.feed.batch_size:
                        continue  # more to read
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("reading the event log for tenant %s failed; retrying", self.tenant_id)
                await asyncio.sleep(self.feed.poll_seconds)
                continue
            if batch and self.known > self.loaded:
                # Announced but not read yet. Only after progress: a notice for a seq this log does not
                # have (a foreign or garbled one) must cost one read, not a busy loop of reads.
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), self.feed.poll_seconds)
            except TimeoutError:
                FEED_POLLS.inc()  # no notice came: the next pass is a fallback re-read


class EventFeed:
    def __init__(
        self, db: Database, *, ring_size: int = 4096, batch_size: int = 500, poll_seconds: float = 2.0
    ) -> None:
        self.db = db
        self.ring_size = ring_size
        self.batch_size = batch_size
        self.poll_seconds = poll_seconds
        self.tails: dict[str, TenantTail] = {}

    def announce(self, tenant_id: str, seq: int) -> None:
        tail = self.tails.get(tenant_id)
        if tail is not None:
            tail.announce(seq)

    def announce_committed(self, tenant_id: str, seqs: Sequence[int]) -> None:
        if seqs:
            self.announce(tenant_id, max(seqs))

    def resync(self) -> None:
        for tail in self.tails.values():
            tail.resync()

    async def close(self) -> None:
        tails, self.tails = list(self.tails.values()), {}
        for tail in tails:
            tail.task.cancel()
        for tail in tails:
            with contextlib.suppress(asyncio.CancelledError):
                await tail.task

    def _acquire(self, tenant_id: str) -> TenantTail:
        tail = self.tails.get(tenant_id)
        if tail is None:
            tail = self.tails[tenant_id] = TenantTail(self, tenant_id)
        tail.refs += 1
        return tail

    def _release(self, tail: TenantTail) -> None:
        tail.refs -= 1
        if tail.refs == 0 and self.tails.get(tail.tenant_id) is tail:
            del self.tails[tail.tenant_id]
            tail.task.cancel()

    async def position(self, tenant_id: str) -> int:
        """The newest seq of the tenant's log right now."""
        return await last_seq(self.db, tenant_id)

    async def follow(self, tenant_id: str, after: int) -> AsyncGenerator[list[LoggedEvent], None]:
        """Every event with seq > ``after``, in order, exactly once, in batches; then live ones, forever."""
        tail = self._acquire(tenant_id)
        try:
            await tail.ready.wait()
            pos = after
            while True:
                batch = tail.after(pos)
                if batch is None:
                    batch = await read_events(self.db, tenant_id, pos, self.batch_size)
                if batch:
                    yield batch
                    pos = batch[-1].seq
                    continue
                await tail.wait_beyond(pos, self.poll_seconds)
        finally:
            self._release(tail)
