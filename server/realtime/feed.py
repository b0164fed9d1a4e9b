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
import json
import logging
from collections import deque
from collections.abc import AsyncGenerator
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Text, bindparam, func, select, type_coerce

from ..db.engine import Database
from ..db.models import Event
from ..events.log import EventBuffer
from ..metrics import FEED_POLLS
from ..services.retention.truncation import archived_through, check_resume

logger = logging.getLogger(__name__)


class LoggedEvent(NamedTuple):
    """An event as read from the log; immutable, so every subscriber can share one copy.

    A named tuple: a replay makes one per event of the log, and a tuple is made from a row at a fraction
    of a frozen dataclass's cost."""

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


# Core, not ORM, on a connection rather than a session: a replay reads every event of the log, and the
# ORM's row loading cost more than the read itself. The columns in LoggedEvent's order. ``data`` and
# ``created_at`` come as the driver gives them and are converted here (``_logged``): SQLAlchemy's result
# processors for them (a regular expression per SQLite datetime, layers of wrappers around json.loads)
# cost more per event than the whole read from SQLite.
_EVENTS = Event.__table__.c
_READ_EVENTS = select(
    _EVENTS.seq,
    _EVENTS.tenant_id,
    _EVENTS.entity_type,
    _EVENTS.entity_id,
    _EVENTS.root_type,
    _EVENTS.root_id,
    _EVENTS.kind,
    _EVENTS.from_state,
    _EVENTS.to_state,
    _EVENTS.actor,
    type_coerce(_EVENTS.data, Text),  # JSON text on both databases (asyncpg's codec gives jsonb as text)
    type_coerce(_EVENTS.created_at, Text),  # text on SQLite, a datetime from asyncpg
)
_READ_PAGE = (
    _READ_EVENTS.where(_EVENTS.tenant_id == bindparam("tenant"), _EVENTS.seq > bindparam("after"))
    .order_by(_EVENTS.seq)
    .limit(bindparam("limit"))
)


def _logged(row: Any, data: Any) -> LoggedEvent:
    """A row of ``_READ_EVENTS`` with its decoded ``data``, as UTCDateTime and the JSON type give it."""
    seq, tenant, entity_type, entity_id, root_type, root_id, kind, from_state, to_state, actor, _, at = row
    if isinstance(at, str):  # SQLite: naive UTC as SQLAlchemy writes it ("YYYY-MM-DD HH:MM:SS[.ffffff]")
        at = datetime.fromisoformat(at).replace(tzinfo=UTC)
    elif at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    else:
        at = at.astimezone(UTC)
    return LoggedEvent(
        seq, tenant, entity_type, entity_id, root_type, root_id, kind, from_state, to_state, actor, data, at
    )


def _decoded(texts: list[Any]) -> list[Any]:
    """Each stored JSON document decoded, all of a page in one call when they are all text."""
    if texts and all(isinstance(text, str) for text in texts):
        with contextlib.suppress(ValueError):
            values = json.loads("[" + ",".join(texts) + "]")
            if len(values) == len(texts):  # each text was one document (a writer's JSON always is)
                return list(values)
    return [json.loads(text) if isinstance(text, str | bytes) else text for text in texts]


async def read_events(db: Database, tenant_id: str, after: int, limit: int) -> list[LoggedEvent]:
    async with db.read_connection() as conn:
        result = await conn.execute(_READ_PAGE, {"tenant": tenant_id, "after": after, "limit": limit})
        rows = result.all()
    return [_logged(row, data) for row, data in zip(rows, _decoded([row[10] for row in rows]), strict=True)]


def _retrieved(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def last_seq(db: Database, tenant_id: str) -> int:
    async with db.reader() as session:
        value = await session.scalar(select(func.max(Event.seq)).where(Event.tenant_id == tenant_id))
        if value is None:  # no event, or every one archived: the log's position is where archival ended
            value = await archived_through(session, tenant_id)
        return int(value)


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

    def take(self, events: list[LoggedEvent]) -> None:
        """Events this process has just committed, in seq order: into the ring without a read of the
        log when they follow what the tail holds; otherwise the read their notice starts finds them."""
        if self.loaded < 0 or not events or events[0].seq != self.loaded + 1:
            return
        self.ring.extend(events)
        self._loaded_up_to(events[-1].seq)

    def _loaded_up_to(self, seq: int) -> None:
        self.loaded = seq
        advanced, self._advanced = self._advanced, asyncio.Event()
        advanced.set()

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
                read = await read_events(db, self.tenant_id, self.loaded, self.feed.batch_size)
                batch = [e for e in read if e.seq > self.loaded]  # not those handed over meanwhile
                if batch:
                    self.ring.extend(batch)
                    self._loaded_up_to(batch[-1].seq)
                if len(read) == self.feed.batch_size:
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

    def committed(self, buffer: EventBuffer) -> None:
        """A commit listener: a transaction of this process committed ``buffer``'s events. The tenant's
        tail takes them as they were written (``TenantTail.take``), so a busy writer's events do not
        cost a read each time, then hears of them as of any other commit (a tail that could not take
        them reads them). ``data`` goes through JSON as the log stores it, so they are what a read
        would give."""
        tail = self.tails.get(buffer.tenant_id)
        if tail is None or not buffer.seqs:
            return
        try:
            at = buffer.now.astimezone(UTC) if buffer.now.tzinfo else buffer.now.replace(tzinfo=UTC)
            data = json.loads(json.dumps([e.data for e in buffer.events]))
            tail.take(
                [
                    LoggedEvent(
                        seq,
                        buffer.tenant_id,
                        e.entity_type,
                        e.entity_id,
                        e.root_type,
                        e.root_id,
                        e.kind,
                        e.from_state,
                        e.to_state,
                        buffer.actor,
                        d,
                        at,
                    )
                    for seq, e, d in zip(buffer.seqs, buffer.events, data, strict=True)
                ]
            )
        finally:
            tail.announce(max(buffer.seqs))

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

    async def follow(
        self, tenant_id: str, after: int, *, page: int | None = None
    ) -> AsyncGenerator[list[LoggedEvent], None]:
        """Every event with seq > ``after``, in order, exactly once, in batches; then live ones, forever.

        ``page``: how many events to read from the table at a time while behind the ring (default: the
        feed's batch size)."""
        tail = self._acquire(tenant_id)
        # With ``page``, the next page is read while the caller sends this one (at most two are held).
        ahead: tuple[int, asyncio.Task[list[LoggedEvent]]] | None = None
        try:
            await tail.ready.wait()
            pos = after
            while True:
                batch = tail.after(pos)
                if batch is None:
                    if ahead is not None and ahead[0] == pos:
                        batch = await ahead[1]
                    else:
                        batch = await read_events(self.db, tenant_id, pos, page or self.batch_size)
                    ahead = None
                    if (batch and batch[0].seq != pos + 1) or (not batch and tail.loaded > pos):
                        # Seqs are gap-free, so a hole is events archived under this reader: it is told
                        # (HISTORY_TRUNCATED), never handed the events after the hole as if they followed.
                        async with self.db.read_connection() as conn:
                            await check_resume(conn, tenant_id, pos)
                    if page is not None and len(batch) == page:
                        task = asyncio.create_task(read_events(self.db, tenant_id, batch[-1].seq, page))
                        task.add_done_callback(_retrieved)  # one given up on may fail unheard
                        ahead = (batch[-1].seq, task)
                elif ahead is not None:  # caught up with the ring meanwhile
                    ahead[1].cancel()
                    ahead = None
                if batch:
                    yield batch
                    pos = batch[-1].seq
                    continue
                await tail.wait_beyond(pos, self.poll_seconds)
        finally:
            if ahead is not None:
                ahead[1].cancel()
            self._release(tail)
