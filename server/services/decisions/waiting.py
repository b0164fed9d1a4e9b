"""Waiting for a person: until a decision point is answered, for a bounded time, woken by the event feed.

A wait reads the decision once (a short read, no transaction held), then follows the tenant's event
feed, the one every subscription follows, and reads the decision again only when an event is about it.
Its bound is counted in heartbeats of an injected sleep, so a test ends a wait by releasing the sleep,
never by sleeping itself. Waits are capped per key: a wait holds a task, a feed subscription and, over
HTTP, an open response, so one key cannot hold them without limit.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from ...auth import Principal
from ...db.decision_models import Decision
from ...errors import ErrorCode, fail, invalid, not_found
from ...machines.decision import OPEN_STATUSES, DecisionStatus
from ..validation import parse_id
from .inbox import decision_by_id, decisions_about

if TYPE_CHECKING:  # the runtime holds the waits
    from ..runtime import Runtime

LONGEST_WAIT_SECONDS = 300
"""The longest one call waits: past it the caller is told to call again, so no request outlives
the proxies and client timeouts it passes through by much."""


def checked_bound(seconds: float, field: str = "timeoutSeconds") -> float:
    if not 1 <= seconds <= LONGEST_WAIT_SECONDS:
        raise invalid(f"{field} must be in [1, {LONGEST_WAIT_SECONDS}] seconds", [field])
    return seconds


Progress = Callable[[float, float, str], Awaitable[None]]  # (waited seconds, bound, message)


@dataclass
class DecisionWaits:
    """The waits of one process: how many each key holds, and the sleep their heartbeats take."""

    per_key: int = 4
    heartbeat_seconds: float = 10.0
    sleep: Callable[[float], Coroutine[Any, Any, None]] = asyncio.sleep
    held: Counter[tuple[str, str]] = field(default_factory=Counter)

    @contextlib.contextmanager
    def slot(self, principal: Principal) -> Iterator[None]:
        key = (principal.tenant_id, principal.name)
        if self.held[key] >= self.per_key:
            raise fail(
                ErrorCode.TOO_MANY_WAITS,
                f"this key already waits for {self.held[key]} decisions, the most one key may wait for at "
                "once; call again when one of those waits has returned",
            )
        self.held[key] += 1
        try:
            yield
        finally:
            self.held[key] -= 1
            if not self.held[key]:
                del self.held[key]


def slot(runtime: Runtime, principal: Principal) -> contextlib.AbstractContextManager[None]:
    """One of the key's waits, or TOO_MANY_WAITS when it holds them all."""
    waits: DecisionWaits = runtime.decision_waits
    return waits.slot(principal)


@dataclass(frozen=True)
class Waited:
    decision: Decision
    waited_seconds: float

    @property
    def ended(self) -> bool:
        return DecisionStatus(self.decision.status) not in OPEN_STATUSES


async def find_decision(runtime: Runtime, tenant_id: str, ident: str, field: str = "id") -> Decision:
    """The decision with this id; else the newest about this subject (a plan step, a workflow step at a
    gate, a mission, a hop, an asset), preferring one still open; else the oldest still open under this
    root (a plan's review, a workflow's gate, a mission's approvals)."""
    ident = parse_id(ident, field)
    async with runtime.db.reader() as session:
        found = await decision_by_id(session, tenant_id, ident)
        if found is not None:
            return found
        about = await decisions_about(session, tenant_id, ident)
        if not about:
            under = await session.scalars(
                select(Decision)
                .where(
                    Decision.tenant_id == tenant_id,
                    Decision.root_id == ident,
                    Decision.status.in_([s.value for s in OPEN_STATUSES]),
                )
                .order_by(Decision.created_at, Decision.id)
                .limit(1)
            )
            if (first := under.first()) is not None:
                return first
    waiting = [d for d in about if DecisionStatus(d.status) in OPEN_STATUSES]
    if not about:
        # Nothing asked a person about it: request_user_review (or a gate, a proposal) opens a decision.
        raise not_found("open decision about", ident, [field])
    return (waiting or about)[-1]


async def wait_for_decision(
    runtime: Runtime,
    principal: Principal,
    decision: Decision,
    seconds: float,
    progress: Progress,
) -> Waited:
    """``decision`` (as read) once it has ended, or as it is after ``seconds`` of waiting for it. The
    caller holds one of the key's slots (``slot``) for as long as it waits, and asks, on its behalf."""
    checked_bound(seconds)
    waits: DecisionWaits = runtime.decision_waits
    tenant = principal.tenant_id
    # The feed from before the read, so that an answer between the two is not missed.
    after = await runtime.feed.position(tenant)
    decision = await _reread(runtime, tenant, decision.id)
    if DecisionStatus(decision.status) not in OPEN_STATUSES:
        return Waited(decision, 0.0)
    touched = asyncio.Event()
    watcher = asyncio.create_task(_watch(runtime, tenant, after, decision.id, touched))
    waited = 0.0
    heartbeat: asyncio.Task[None] | None = None
    step = 0.0
    try:
        await progress(waited, seconds, _waiting_message(decision))
        while True:
            if touched.is_set():
                touched.clear()
                decision = await _reread(runtime, tenant, decision.id)
                if DecisionStatus(decision.status) not in OPEN_STATUSES:
                    return Waited(decision, waited)
            if heartbeat is not None and heartbeat.done():
                heartbeat = None
                waited += step
                if waited >= seconds:
                    return Waited(decision, waited)
                await progress(waited, seconds, _waiting_message(decision))
            if heartbeat is None:
                step = min(waits.heartbeat_seconds, seconds - waited)
                heartbeat = asyncio.create_task(waits.sleep(step))
            woken = asyncio.create_task(touched.wait())
            try:
                await asyncio.wait({heartbeat, woken, watcher}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                woken.cancel()
            if watcher.done():
                watcher.result()  # the feed failed: say so rather than wait blind
    finally:
        for task in (heartbeat, watcher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def _watch(runtime: Runtime, tenant: str, after: int, decision_id: str, touched: asyncio.Event) -> None:
    async for batch in runtime.feed.follow(tenant, after):
        if any(e.entity_id == decision_id for e in batch):
            touched.set()


async def _reread(runtime: Runtime, tenant: str, decision_id: str) -> Decision:
    async with runtime.db.reader() as session:
        found = await decision_by_id(session, tenant, decision_id)
    if found is None:  # decisions are never deleted while their tenant lives
        raise not_found("decision", decision_id)
    return found


def _waiting_message(decision: Decision) -> str:
    who = f", assigned to {decision.assignee}" if decision.assignee else ""
    deadline = (
        f", defaults to {decision.default_outcome} at {decision.deadline_at.isoformat()}"
        if (decision.deadline_at is not None and decision.default_outcome)
        else ""
    )
    return f"waiting for a person to decide ({decision.kind}{who}{deadline})"
