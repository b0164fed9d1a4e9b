"""The tenant's recent events that some topic covers, read once per process for all of its endpoints.

Without it every endpoint's pass read the same events and encoded the same bodies: ten endpoints, ten
reads and ten ``json.dumps`` of every event. A window holds the covered events with ``start < seq <=
last``, ``last`` being a tenant counter value read before the events (every event up to it has
committed, so an endpoint's cursor may pass events no topic of it covers up to there). An endpoint
whose cursor lies before the window (a paused or new endpoint far behind) reads the log itself and leaves
the window alone; the window drops its oldest events beyond ``capacity``. That holds after the read a pass
makes too: a read that drops events after the cursor of the pass that made it sends that pass to the log.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from ...db.engine import Database
from ...db.models import Event, TenantCounter
from .topics import RULES, TopicFilter

# Events of these kinds are kept; the rest can never be delivered.
COVERED_KINDS = sorted({str(rule.kind) for rule in RULES})
# A window younger than this is served as it is while it still has events past the cursor asked about.
# A full window (its last read stopped at ``capacity``) is served as it is however old: reading more would
# only drop its oldest events, those the passes still working through it are about to take.
FRESH_SECONDS = 0.05

EVENT_COLUMNS = (
    Event.seq,
    Event.kind,
    Event.entity_type,
    Event.entity_id,
    Event.root_type,
    Event.root_id,
    Event.from_state,
    Event.to_state,
    Event.actor,
    Event.data,
    Event.created_at,
)


def event_time(body: bytes) -> datetime | None:
    """The ``timestamp`` a body made by ``body_of`` carries (read from its head, not parsed whole)."""
    start = body.find(b'"timestamp":"', 0, 256)
    end = body.find(b'"', start + 13) if start >= 0 else -1
    if end < 0:
        return None
    try:
        at = datetime.fromisoformat(body[start + 13 : end].decode().replace("Z", "+00:00"))
    except ValueError:
        return None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)  # the log's times are UTC


def body_of(event: Any, topic: str) -> bytes:
    """The Standard Webhooks payload: ``type``, ``timestamp`` and ``data`` (the event as the log has it)."""
    body = {
        "type": topic,
        "timestamp": event.created_at.isoformat().replace("+00:00", "Z"),
        "data": {
            "seq": event.seq,
            "kind": event.kind,
            "entityType": event.entity_type,
            "entityId": event.entity_id,
            "rootType": event.root_type,
            "rootId": event.root_id,
            "fromState": event.from_state,
            "toState": event.to_state,
            "actor": event.actor,
            "data": event.data,
        },
    }
    return json.dumps(body, separators=(",", ":")).encode()


async def last_seq(session: Any, tenant_id: str) -> int:
    """The tenant's counter: every event up to it has committed (a seq is allocated in the transaction
    that writes its event)."""
    found = await session.execute(select(TenantCounter.last_seq).where(TenantCounter.tenant_id == tenant_id))
    return int(found.scalar_one_or_none() or 0)


async def read_after(
    session: Any, tenant_id: str, after: int, upto: int, kinds: list[str], limit: int
) -> list[Any]:
    """Events with ``after < seq <= upto`` of ``kinds``, in seq order, at most ``limit`` (Core rows)."""
    rows = await session.execute(
        select(*EVENT_COLUMNS)
        .where(
            Event.tenant_id == tenant_id,
            Event.seq > after,
            Event.seq <= upto,
            Event.kind.in_(kinds),
        )
        .order_by(Event.seq)
        .limit(limit)
    )
    return list(rows.all())


class EventWindow:
    def __init__(
        self, tenant_id: str, capacity: int, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.tenant_id = tenant_id
        self.capacity = capacity
        self.start: int | None = None  # None: not started
        self.last = 0
        self.events: dict[int, Any] = {}  # seq -> row, in seq order
        self._bodies: dict[tuple[int, str], bytes] = {}
        self._read_at = 0.0
        self._behind = False  # the last read stopped at ``capacity`` short of the counter
        self._lock = asyncio.Lock()
        self._monotonic = monotonic

    async def after(
        self, db: Database, cursor: int, wanted: TopicFilter, limit: int
    ) -> tuple[list[tuple[Any, str]], int, bool] | None:
        """The events after ``cursor`` that ``wanted`` matches, each with its topic (at most ``limit``);
        where the cursor may go once they are handled; whether more may be waiting (the limit was
        reached, or the window is behind the log). None when the cursor lies before the window (the
        caller reads the log itself)."""
        async with self._lock:
            if self.start is None:
                self.start = self.last = cursor
            if cursor < self.start:
                return None
            stale = not self._behind and self._monotonic() - self._read_at > FRESH_SECONDS
            if self.last <= cursor or stale:
                await self._extend(db)
                # Extending may have dropped events after the cursor (the oldest go first): what is
                # left no longer holds every event after it, and the caller reads the log itself.
                if cursor < self.start:
                    return None
        found: list[tuple[Any, str]] = []
        for seq, event in self.events.items():
            if seq <= cursor or event.kind not in wanted.by_kind:
                continue
            topic = wanted.topic_of(event.kind, event.from_state, event.to_state, event.data)
            if topic is None:
                continue
            found.append((event, topic.value))
            if len(found) >= limit:
                return found, seq, True
        return found, max(self.last, cursor), self._behind

    def body(self, event: Any, topic: str) -> bytes:
        key = (event.seq, topic)
        body = self._bodies.get(key)
        if body is None:
            body = self._bodies[key] = body_of(event, topic)
        return body

    async def _extend(self, db: Database) -> None:
        async with db.reader() as session:
            upto = await last_seq(session, self.tenant_id)
            rows = await read_after(session, self.tenant_id, self.last, upto, COVERED_KINDS, self.capacity)
        self._read_at = self._monotonic()
        for row in rows:
            self.events[row.seq] = row
        self._behind = len(rows) >= self.capacity
        self.last = rows[-1].seq if self._behind else max(upto, self.last)
        while len(self.events) > self.capacity:
            seq = next(iter(self.events))
            del self.events[seq]
            self.start = seq
        if len(self._bodies) > 4 * self.capacity:
            self._bodies = {k: v for k, v in self._bodies.items() if k[0] in self.events}
