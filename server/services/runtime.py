"""What every service needs (database, clock, settings) and the unit of work that wraps one mutation."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from ..auth import Principal
from ..clock import Clock
from ..config import Settings
from ..db.engine import Database
from ..db.write_through import write
from ..events.log import EventBuffer, write_events
from ..machines.decision import Terms
from ..metrics import record_transitions
from ..oplog import OperationLogWriter
from ..realtime import EventFeed
from .decisions.waiting import DecisionWaits

logger = logging.getLogger(__name__)

# Called after commit with what the transaction logged (its tenant, seqs and events); must not block.
# Each is called even when one before it raised (the error is logged).
CommitListener = Callable[[EventBuffer], None]


@dataclass
class Runtime:
    db: Database
    clock: Clock
    settings: Settings
    commit_listeners: list[CommitListener] = field(default_factory=list)
    operation_log: OperationLogWriter | None = None
    # Called after a webhook endpoint was created, changed or deleted here (the delivery tasks re-read).
    endpoint_listeners: list[Callable[[], None]] = field(default_factory=list)
    tool_call_log: OperationLogWriter | None = None  # MCP tool calls (seed 003's mcp_tool_call_log)
    feed: EventFeed = field(init=False)
    # The waits for decisions in this process (MCP wait_for_decision): their per-key cap and sleep.
    decision_waits: DecisionWaits = field(default_factory=DecisionWaits)

    def __post_init__(self) -> None:
        self.feed = EventFeed(
            self.db,
            ring_size=self.settings.feed_ring_size,
            poll_seconds=self.settings.feed_poll_seconds,
        )
        self.commit_listeners.append(self.feed.committed)  # first: the local tail before the broker

    def notify_committed(self, buffer: EventBuffer) -> None:
        for listener in self.commit_listeners:
            try:
                listener(buffer)
            except Exception:  # a listener's bug must not turn a committed change into an error
                logger.exception("commit listener failed")


@dataclass
class Tx:
    """One open write transaction: the session, who acts, the time it acts at, and its events."""

    session: AsyncSession
    principal: Principal
    runtime: Runtime
    events: EventBuffer
    # A request's own deadline, assignee and escalation, by the id of what it asks about:
    # the decision opened when the transaction ends starts with them (services/decisions/book.py).
    decision_terms: dict[str, Terms] = field(default_factory=dict)

    def write(self, row: object, **values: object) -> None:
        """Set columns of a row: written with one Core ``UPDATE`` at the next flush, not by the ORM's
        unit of work, when the row is persistent in this transaction's session (``db.write_through``)."""
        write(self.session.sync_session, row, values)

    @property
    def tenant_id(self) -> str:
        return self.principal.tenant_id

    @property
    def now(self) -> datetime:
        return self.events.now

    @property
    def settings(self) -> Settings:
        return self.runtime.settings


async def track_decisions(tx: Tx) -> None:
    """Open and close decisions for what the transaction did (imported here: it reads every domain)."""
    from .decisions.book import track_decisions as track

    await track(tx)


@asynccontextmanager
async def unit_of_work(runtime: Runtime, principal: Principal) -> AsyncIterator[Tx]:
    """One transaction: changes and their events commit together; on an exception, neither does."""
    async with runtime.db.transaction() as session:
        buffer = EventBuffer(principal.tenant_id, principal.name, runtime.clock.now())
        tx = Tx(session, principal, runtime, buffer)
        yield tx
        await track_decisions(tx)
        await write_events(session, buffer)
    if buffer.seqs:
        runtime.notify_committed(buffer)
        record_transitions(
            (e.entity_type, e.from_state, e.to_state)
            for e in buffer.events
            if e.from_state is not None and e.to_state is not None and e.kind.endswith("_transitioned")
        )
