"""The delivery store: an endpoint's lease, what a pass sends, and the record of what came back.

A pass (``server/loops/webhooks.py``) takes the endpoint's lease, reads its due retries and the events
after its cursor (those through the process's shared ``EventWindow``), sends them a few at a time
(renewing the lease so it never lapses mid-request) and records every attempt, the deliveries and the
new cursor in one transaction, shared with the passes of other endpoints that end at the same time
(``record_many``). Killed before that transaction, the process loses nothing: the cursor has not moved,
and the next holder of the lease sends the batch again (at least once; receivers drop repeats by
``webhook-id``, unique per endpoint and event, the same on every attempt).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, cast

from sqlalchemy import Table, insert, or_, select, update

from ...db.engine import Database
from ...db.models import Event
from ...db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from .sender import Message, Outcome
from .topics import TopicFilter
from .window import EVENT_COLUMNS, EventWindow, body_of, last_seq, read_after

# After the first attempt fails, retries follow at these delays (Standard Webhooks' suggested schedule):
# eight attempts in all, the last 27 h 35 min 5 s after the first; then the delivery is FAILED.
RETRY_SCHEDULE: tuple[timedelta, ...] = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
GIVE_UP_AFTER = sum(RETRY_SCHEDULE, timedelta())


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


@dataclass(frozen=True)
class EndpointState:
    id: str
    tenant_id: str
    url: str
    topics: list[str]
    secrets: list[str]
    cursor_seq: int


@dataclass(frozen=True)
class Item:
    """One event to send: a due retry (``new`` False) or an event after the cursor."""

    seq: int
    topic: str
    message: Message
    new: bool
    attempts: int = 0
    first_attempt_at: datetime | None = None
    updated_at: datetime | None = None  # a retry's row as read: a redelivery meanwhile changes it


@dataclass(frozen=True)
class Work:
    items: list[Item]
    cursor: int  # where the cursor goes once every new item is handled
    more: bool = False  # the batch was full: more may be waiting


@dataclass(frozen=True)
class Sent:
    item: Item
    outcome: Outcome
    at: datetime


E = WebhookEndpoint
D = WebhookDelivery
Windows = Callable[[str], EventWindow]  # a tenant's shared window
# The tables themselves: a Core insert of many rows skips the ORM's bulk machinery (measured: most of
# the recording transaction's time, which on SQLite is time the writer lock is held).
ATTEMPTS = cast(Table, WebhookAttempt.__table__)
DELIVERIES = cast(Table, WebhookDelivery.__table__)


def secrets_of(row: WebhookEndpoint, now: datetime) -> list[str]:
    """The current secret, and the previous one while its overlap lasts."""
    overlap = row.previous_secret_until is not None and row.previous_secret_until > now
    return [row.secret, row.previous_secret] if overlap and row.previous_secret else [row.secret]


async def take_lease(
    db: Database, endpoint_id: str, owner: str, now: datetime, ttl: timedelta
) -> EndpointState | None:
    """The endpoint, now held by ``owner`` until ``now + ttl``; None when another process holds it (or it
    is disabled or gone)."""
    async with db.transaction() as session:
        taken = await session.execute(
            update(E)
            .where(
                E.id == endpoint_id,
                E.enabled.is_(True),
                or_(E.lease_owner.is_(None), E.lease_owner == owner, E.lease_expires_at < now),
            )
            .values(lease_owner=owner, lease_expires_at=now + ttl)
        )
        if _rowcount(taken) != 1:
            return None
        row = (await session.execute(select(E).where(E.id == endpoint_id))).scalar_one()
        return EndpointState(
            row.id, row.tenant_id, row.url, list(row.topics), secrets_of(row, now), row.cursor_seq
        )


async def read_endpoint(session: Any, endpoint_id: str, now: datetime) -> EndpointState | None:
    """The endpoint as it is now, for a process that already holds its lease (a read, not a write)."""
    row = (
        await session.execute(select(E).where(E.id == endpoint_id, E.enabled.is_(True)))
    ).scalar_one_or_none()
    if row is None:
        return None
    return EndpointState(
        row.id, row.tenant_id, row.url, list(row.topics), secrets_of(row, now), row.cursor_seq
    )


async def read_held(
    db: Database, endpoint_id: str, now: datetime, limit: int, windows: Windows | None = None
) -> tuple[EndpointState, Work] | None:
    """The endpoint and its work, for the holder of its lease; None when it is gone."""
    async with db.reader() as session:
        endpoint = await read_endpoint(session, endpoint_id, now)
        if endpoint is None:
            return None
        retries = await _due_retries(session, endpoint, now, limit)
    return endpoint, await _work(db, endpoint, retries, limit, windows)


async def renew_lease(db: Database, endpoint_id: str, owner: str, now: datetime, ttl: timedelta) -> bool:
    async with db.transaction() as session:
        renewed = await session.execute(
            update(E).where(E.id == endpoint_id, E.lease_owner == owner).values(lease_expires_at=now + ttl)
        )
        return _rowcount(renewed) == 1


async def release_lease(db: Database, endpoint_id: str, owner: str) -> None:
    async with db.transaction() as session:
        await session.execute(
            update(E)
            .where(E.id == endpoint_id, E.lease_owner == owner)
            .values(lease_owner=None, lease_expires_at=None)
        )


async def read_work(
    db: Database, endpoint: EndpointState, now: datetime, limit: int, windows: Windows | None = None
) -> Work:
    """Due retries first (oldest due first), then the events after the cursor that match the topics."""
    async with db.reader() as session:
        retries = await _due_retries(session, endpoint, now, limit)
    return await _work(db, endpoint, retries, limit, windows)


async def _due_retries(session: Any, endpoint: EndpointState, now: datetime, limit: int) -> list[Item]:
    due = (
        await session.execute(
            select(D.seq, D.topic, D.attempts, D.first_attempt_at, D.updated_at)
            .where(
                D.endpoint_id == endpoint.id,
                D.status == DeliveryStatus.PENDING.value,
                D.next_attempt_at <= now,
            )
            .order_by(D.next_attempt_at, D.seq)
            .limit(limit)
        )
    ).all()
    events = await _events(session, endpoint.tenant_id, [r.seq for r in due])
    return [
        Item(
            r.seq,
            r.topic,
            Message(msg_id(endpoint.id, r.seq), body_of(events[r.seq], r.topic)),
            False,
            r.attempts,
            r.first_attempt_at,
            r.updated_at,
        )
        for r in due
        if r.seq in events
    ]


async def _work(
    db: Database, endpoint: EndpointState, retries: list[Item], limit: int, windows: Windows | None
) -> Work:
    """The due retries, then the new events after the cursor (from the window when it covers them)."""
    room = limit - len(retries)
    wanted = TopicFilter.of(endpoint.topics)
    if room <= 0 or not wanted.kinds:
        return Work(retries, endpoint.cursor_seq, more=room <= 0)
    window = None if windows is None else windows(endpoint.tenant_id)
    shared = None if window is None else await window.after(db, endpoint.cursor_seq, wanted, room)
    if window is not None and shared is not None:
        found, cursor, more = shared
        items = [
            Item(e.seq, topic, Message(msg_id(endpoint.id, e.seq), window.body(e, topic)), True)
            for e, topic in found
        ]
        return Work(retries + items, max(cursor, endpoint.cursor_seq), more=more)
    async with db.reader() as session:
        last = await last_seq(session, endpoint.tenant_id)
        rows = await read_after(session, endpoint.tenant_id, endpoint.cursor_seq, last, wanted.kinds, room)
    items = list(retries)
    for event in rows:
        topic = wanted.topic_of(event.kind, event.from_state, event.to_state, event.data)
        if topic is not None:
            items.append(
                Item(
                    event.seq,
                    topic.value,
                    Message(msg_id(endpoint.id, event.seq), body_of(event, topic.value)),
                    True,
                )
            )
    cursor = last if len(rows) < room else rows[-1].seq
    return Work(items, max(cursor, endpoint.cursor_seq), more=len(rows) >= room)


async def _events(session: Any, tenant_id: str, seqs: list[int]) -> dict[int, Any]:
    if not seqs:
        return {}
    rows = await session.execute(
        select(*EVENT_COLUMNS).where(Event.tenant_id == tenant_id, Event.seq.in_(seqs))
    )
    return {e.seq: e for e in rows}


def msg_id(endpoint_id: str, seq: int) -> str:
    """The ``webhook-id``: unique per message (an event to an endpoint), the same on every attempt and
    redelivery. The event's seq alone is unique only within a tenant and an endpoint; it stays in the
    body (``data.seq``), the idempotency key of the event itself."""
    return f"msg_{endpoint_id}_{seq}"


def settle(item: Item, outcome: Outcome, at: datetime) -> tuple[DeliveryStatus, datetime | None]:
    """A delivery's status after this attempt, and when it is tried next."""
    if outcome.succeeded:
        return DeliveryStatus.DELIVERED, None
    attempts = item.attempts + 1
    first = item.first_attempt_at or at
    if attempts >= MAX_ATTEMPTS or at - first >= GIVE_UP_AFTER:
        return DeliveryStatus.FAILED, None
    return DeliveryStatus.PENDING, at + RETRY_SCHEDULE[attempts - 1]


@dataclass(frozen=True)
class Record:
    """What one pass of one endpoint sent, and where its cursor goes."""

    endpoint: EndpointState
    sent: list[Sent]
    cursor: int


async def record(
    db: Database, endpoint: EndpointState, owner: str, process: str, sent: list[Sent], cursor: int
) -> bool:
    """``record_many`` for one endpoint."""
    [held] = await record_many(db, owner, process, [Record(endpoint, sent, cursor)])
    return held


async def record_many(db: Database, owner: str, process: str, records: list[Record]) -> list[bool]:
    """Every attempt, the deliveries and the cursors of several passes, in one transaction (one write
    lock, however many endpoints). For each, whether its lease was still held: when it was lost meanwhile
    only the attempts are recorded (the new holder owns the cursor).

    A retry's row is updated only while it is as the pass read it: a redelivery requested while the
    attempt was in flight (attempts counted afresh, due now) is kept, and the event is sent again."""
    attempts: list[dict[str, Any]] = []
    fresh: list[dict[str, Any]] = []
    for r in records:
        for s in r.sent:
            attempts.append(
                {
                    "tenant_id": r.endpoint.tenant_id,
                    "endpoint_id": r.endpoint.id,
                    "seq": s.item.seq,
                    "attempt": s.item.attempts + 1,
                    "status_code": s.outcome.status_code,
                    "error": s.outcome.error,
                    "latency_ms": s.outcome.latency_ms,
                    "succeeded": s.outcome.succeeded,
                    "process": process,
                    "created_at": s.at,
                }
            )
    held: list[bool] = []
    async with db.transaction() as session:
        for r in records:
            moved = await session.execute(
                update(E).where(E.id == r.endpoint.id, E.lease_owner == owner).values(cursor_seq=r.cursor)
            )
            held.append(_rowcount(moved) == 1)
        if attempts:
            await session.execute(insert(ATTEMPTS), attempts)
        for r, still in zip(records, held, strict=True):
            if not still:
                continue
            for s in r.sent:
                status, next_at = settle(s.item, s.outcome, s.at)
                values = {
                    "status": status.value,
                    "attempts": s.item.attempts + 1,
                    "last_status_code": s.outcome.status_code,
                    "last_error": s.outcome.error,
                    "next_attempt_at": next_at,
                    "first_attempt_at": s.item.first_attempt_at or s.at,
                    "updated_at": s.at,
                }
                if s.item.new:
                    fresh.append(
                        values
                        | {
                            "tenant_id": r.endpoint.tenant_id,
                            "endpoint_id": r.endpoint.id,
                            "seq": s.item.seq,
                            "topic": s.item.topic,
                            "created_at": s.at,
                        }
                    )
                else:
                    await session.execute(
                        update(D)
                        .where(
                            D.endpoint_id == r.endpoint.id,
                            D.seq == s.item.seq,
                            D.status == DeliveryStatus.PENDING.value,
                            D.attempts == s.item.attempts,
                            D.updated_at == s.item.updated_at,
                        )
                        .values(**values)
                    )
        if fresh:
            await session.execute(insert(DELIVERIES), fresh)
    return held


def _rowcount(result: Any) -> int:
    return int(result.rowcount)
