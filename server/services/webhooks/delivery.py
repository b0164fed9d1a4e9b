"""The delivery store: an endpoint's lease, what a pass sends, and the record of what came back.

A pass (``server/loops/webhooks.py``) takes the endpoint's lease, reads its due retries and the events
after its cursor, sends them one by one (renewing the lease so it never lapses mid-request) and records
every attempt, the deliveries and the new cursor in one transaction. Killed before that transaction, the
process loses nothing: the cursor has not moved, and the next holder of the lease sends the batch again
(at least once; receivers drop repeats by ``webhook-id``, the event's seq).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import insert, or_, select, update

from ...db.engine import Database
from ...db.models import Event, TenantCounter
from ...db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from .sender import Message, Outcome
from .topics import TopicFilter

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
    db: Database, endpoint_id: str, now: datetime, limit: int
) -> tuple[EndpointState, Work] | None:
    """The endpoint and its work in one read, for the holder of its lease; None when it is gone."""
    async with db.reader() as session:
        endpoint = await read_endpoint(session, endpoint_id, now)
        if endpoint is None:
            return None
        return endpoint, await _read_work(session, endpoint, now, limit)


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


async def read_work(db: Database, endpoint: EndpointState, now: datetime, limit: int) -> Work:
    """Due retries first (oldest due first), then the events after the cursor that match the topics."""
    async with db.reader() as session:
        return await _read_work(session, endpoint, now, limit)


async def _read_work(session: Any, endpoint: EndpointState, now: datetime, limit: int) -> Work:
    wanted = TopicFilter.of(endpoint.topics)
    due = (
        await session.execute(
            select(D.seq, D.topic, D.attempts, D.first_attempt_at)
            .where(
                D.endpoint_id == endpoint.id,
                D.status == DeliveryStatus.PENDING.value,
                D.next_attempt_at <= now,
            )
            .order_by(D.next_attempt_at, D.seq)
            .limit(limit)
        )
    ).all()
    retry_events = await _events(session, endpoint.tenant_id, [r.seq for r in due])
    items = [
        Item(
            r.seq,
            r.topic,
            message_of(retry_events[r.seq], r.topic),
            False,
            r.attempts,
            r.first_attempt_at,
        )
        for r in due
        if r.seq in retry_events
    ]
    room = limit - len(due)
    if room <= 0 or not wanted.kinds:
        return Work(items, endpoint.cursor_seq, more=room <= 0)
    # The counter first: every event up to it has committed (a seq is allocated in the transaction
    # that writes its event), so the cursor may pass events of other kinds up to it.
    last = (
        await session.execute(
            select(TenantCounter.last_seq).where(TenantCounter.tenant_id == endpoint.tenant_id)
        )
    ).scalar_one_or_none() or 0
    # Core rows, not ORM objects: this runs on every pass of every endpoint.
    rows = (
        await session.execute(
            select(*EVENT_COLUMNS)
            .where(
                Event.tenant_id == endpoint.tenant_id,
                Event.seq > endpoint.cursor_seq,
                Event.seq <= last,
                Event.kind.in_(wanted.kinds),
            )
            .order_by(Event.seq)
            .limit(room)
        )
    ).all()
    for event in rows:
        topic = wanted.topic_of(event.kind, event.from_state, event.to_state, event.data)
        if topic is not None:
            items.append(Item(event.seq, topic.value, message_of(event, topic.value), True))
    cursor = last if len(rows) < room else rows[-1].seq
    return Work(items, max(cursor, endpoint.cursor_seq), more=len(rows) >= room)


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


async def _events(session: Any, tenant_id: str, seqs: list[int]) -> dict[int, Any]:
    if not seqs:
        return {}
    rows = await session.execute(
        select(*EVENT_COLUMNS).where(Event.tenant_id == tenant_id, Event.seq.in_(seqs))
    )
    return {e.seq: e for e in rows}


def message_of(event: Any, topic: str) -> Message:
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
    return Message(str(event.seq), json.dumps(body, separators=(",", ":")).encode())


def settle(item: Item, outcome: Outcome, at: datetime) -> tuple[DeliveryStatus, datetime | None]:
    """A delivery's status after this attempt, and when it is tried next."""
    if outcome.succeeded:
        return DeliveryStatus.DELIVERED, None
    attempts = item.attempts + 1
    first = item.first_attempt_at or at
    if attempts >= MAX_ATTEMPTS or at - first >= GIVE_UP_AFTER:
        return DeliveryStatus.FAILED, None
    return DeliveryStatus.PENDING, at + RETRY_SCHEDULE[attempts - 1]


async def record(
    db: Database, endpoint: EndpointState, owner: str, process: str, sent: list[Sent], cursor: int
) -> bool:
    """Every attempt, the deliveries and the cursor, in one transaction. Returns False when the lease was
    lost meanwhile: then only the attempts are recorded (the new holder owns the cursor)."""
    async with db.transaction() as session:
        moved = await session.execute(
            update(E).where(E.id == endpoint.id, E.lease_owner == owner).values(cursor_seq=cursor)
        )
        held = _rowcount(moved) == 1
        if sent:
            await session.execute(
                insert(WebhookAttempt),
                [
                    {
                        "tenant_id": endpoint.tenant_id,
                        "endpoint_id": endpoint.id,
                        "seq": s.item.seq,
                        "attempt": s.item.attempts + 1,
                        "status_code": s.outcome.status_code,
                        "error": s.outcome.error,
                        "latency_ms": s.outcome.latency_ms,
                        "succeeded": s.outcome.succeeded,
                        "process": process,
                        "created_at": s.at,
                    }
                    for s in sent
                ],
            )
        if not held:
            return False
        fresh = []
        for s in sent:
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
                    {
                        **values,
                        "tenant_id": endpoint.tenant_id,
                        "endpoint_id": endpoint.id,
                        "seq": s.item.seq,
                        "topic": s.item.topic,
                        "created_at": s.at,
                    }
                )
            else:
                await session.execute(
                    update(D).where(D.endpoint_id == endpoint.id, D.seq == s.item.seq).values(**values)
                )
        if fresh:
            await session.execute(insert(D), fresh)
        return True


def _rowcount(result: Any) -> int:
    return int(result.rowcount)
