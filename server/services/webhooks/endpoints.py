"""Registering, changing and removing a tenant's webhook endpoints; secret rotation; redelivery.

Admin keys only (the API checks). Each change writes a ``webhook_endpoint_*`` event (never the secret).
A new endpoint starts at the tenant's current event: it hears what happens from now on.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import Event, TenantCounter
from ...db.webhook_models import WebhookDelivery, WebhookEndpoint
from ...errors import ErrorCode, fail, invalid, not_found
from ...limits import SHORT_TEXT
from ..retention.truncation import HistoryTruncated, archived_through
from ..runtime import Tx
from ..validation import Problems, check_text
from .delivery import DeliveryStatus
from .signing import new_secret
from .targets import check_url
from .topics import Topic, TopicFilter

MAX_ENDPOINTS_PER_TENANT = 50
MAX_REDELIVERY_RANGE = 10_000
MAX_ROTATION_OVERLAP = timedelta(days=7)
ENTITY = "webhook_endpoint"


class EndpointEvent:
    CREATED = "webhook_endpoint_created"
    UPDATED = "webhook_endpoint_updated"
    DELETED = "webhook_endpoint_deleted"
    SECRET_ROTATED = "webhook_endpoint_secret_rotated"
    REDELIVERY_REQUESTED = "webhook_redelivery_requested"


@dataclass(frozen=True)
class Created:
    endpoint: WebhookEndpoint
    secret: str


def _check_topics(problems: Problems, topics: list[Topic], field: list[str]) -> None:
    if not topics:
        problems.add("topics must name at least one topic", field)


def _check_fields(tx: Tx, url: str | None, topics: list[Topic] | None, description: str | None) -> None:
    problems = Problems()
    if url is not None:
        check_url(problems, url, tx.settings.webhook_allow_private_targets, ["url"])
    if topics is not None:
        _check_topics(problems, topics, ["topics"])
    problems.check(check_text, description, ["description"], SHORT_TEXT)
    problems.raise_if_any()


def _record(tx: Tx, kind: str, row: WebhookEndpoint, **data: object) -> None:
    tx.events.record(kind, entity_type=ENTITY, entity_id=row.id, root_type=ENTITY, root_id=row.id, data=data)


async def create_endpoint(
    tx: Tx, url: str, topics: list[Topic], description: str | None, enabled: bool
) -> Created:
    _check_fields(tx, url, topics, description)
    count = (
        await tx.session.execute(
            select(func.count()).select_from(WebhookEndpoint).where(WebhookEndpoint.tenant_id == tx.tenant_id)
        )
    ).scalar_one()
    if count >= MAX_ENDPOINTS_PER_TENANT:
        raise invalid(f"a tenant may have at most {MAX_ENDPOINTS_PER_TENANT} webhook endpoints", ["url"])
    last = (
        await tx.session.execute(
            select(TenantCounter.last_seq).where(TenantCounter.tenant_id == tx.tenant_id)
        )
    ).scalar_one_or_none()
    secret = new_secret()
    row = WebhookEndpoint(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        url=url,
        description=description or "",
        topics=sorted({t.value for t in topics}),
        enabled=enabled,
        secret=secret,
        cursor_seq=last or 0,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(row)
    _record(tx, EndpointEvent.CREATED, row, url=url, topics=row.topics, enabled=enabled)
    return Created(row, secret)


async def _locked(tx: Tx, endpoint_id: str) -> WebhookEndpoint:
    row = (
        await tx.session.execute(
            select(WebhookEndpoint)
            .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.tenant_id == tx.tenant_id)
            .with_for_update()
        )
    ).scalar_one_or_none()
    if row is None:
        raise not_found("webhook endpoint", endpoint_id, ["id"])
    return row


async def update_endpoint(
    tx: Tx,
    endpoint_id: str,
    url: str | None,
    topics: list[Topic] | None,
    description: str | None,
    enabled: bool | None,
) -> WebhookEndpoint:
    _check_fields(tx, url, topics, description)
    row = await _locked(tx, endpoint_id)
    if url is not None:
        row.url = url
    if topics is not None:
        row.topics = sorted({t.value for t in topics})
    if description is not None:
        row.description = description
    skipped: dict[str, int] = {}
    if enabled is not None:
        if enabled and not row.enabled:
            skipped = await _resume_past_archive(tx, row)
        row.enabled = enabled
    row.updated_at = tx.now
    _record(tx, EndpointEvent.UPDATED, row, url=row.url, topics=row.topics, enabled=row.enabled, **skipped)
    return row


async def _resume_past_archive(tx: Tx, row: WebhookEndpoint) -> dict[str, int]:
    """Enabling an endpoint whose cursor lies below the archived part of the log moves it to where the
    log resumes: the events between were archived undelivered, and the update event says which."""
    row.paused_reason = None
    through = await archived_through(tx.session, tx.tenant_id)
    if row.cursor_seq >= through:
        return {}
    skipped = {"skippedFromSeq": row.cursor_seq + 1, "skippedToSeq": through}
    row.cursor_seq = through
    return skipped


async def delete_endpoint(tx: Tx, endpoint_id: str) -> str:
    row = await _locked(tx, endpoint_id)
    _record(tx, EndpointEvent.DELETED, row, url=row.url)
    await tx.session.delete(row)
    return endpoint_id


async def rotate_secret(tx: Tx, endpoint_id: str, overlap_seconds: float) -> Created:
    """A new secret; the old one still signs (a second signature) for ``overlap_seconds``."""
    if not 0 <= overlap_seconds <= MAX_ROTATION_OVERLAP.total_seconds():
        raise invalid(
            f"overlapSeconds must be between 0 and {int(MAX_ROTATION_OVERLAP.total_seconds())}",
            ["overlapSeconds"],
        )
    row = await _locked(tx, endpoint_id)
    row.previous_secret = row.secret if overlap_seconds > 0 else None
    row.previous_secret_until = tx.now + timedelta(seconds=overlap_seconds) if overlap_seconds > 0 else None
    row.secret = new_secret()
    row.updated_at = tx.now
    _record(tx, EndpointEvent.SECRET_ROTATED, row, overlapSeconds=overlap_seconds)
    return Created(row, row.secret)


async def redeliver(tx: Tx, endpoint_id: str, from_seq: int, to_seq: int) -> int:
    """Send again every event from ``from_seq`` to ``to_seq`` (inclusive) that the endpoint's topics
    match and its cursor has passed: each becomes a pending delivery due now, its attempts counted
    afresh. Events past the cursor are on their way anyway. Returns how many were queued."""
    if from_seq < 1 or to_seq < from_seq:
        raise invalid("fromSeq must be at least 1 and toSeq at least fromSeq", ["fromSeq"])
    if to_seq - from_seq + 1 > MAX_REDELIVERY_RANGE:
        raise invalid(f"a redelivery covers at most {MAX_REDELIVERY_RANGE} events", ["toSeq"])
    through = await archived_through(tx.session, tx.tenant_id)
    if from_seq <= through:
        raise fail(ErrorCode.HISTORY_TRUNCATED, str(HistoryTruncated(through + 1)), ["fromSeq"])
    row = await _locked(tx, endpoint_id)
    wanted = TopicFilter.of(row.topics)
    events = (
        await tx.session.execute(
            select(Event.seq, Event.kind, Event.from_state, Event.to_state, Event.data).where(
                Event.tenant_id == tx.tenant_id,
                Event.seq >= from_seq,
                Event.seq <= min(to_seq, row.cursor_seq),
                Event.kind.in_(wanted.kinds),
            )
        )
    ).all()
    matched = {
        e.seq: topic
        for e in events
        if (topic := wanted.topic_of(e.kind, e.from_state, e.to_state, e.data)) is not None
    }
    if matched:
        await _queue(tx.session, row, matched, tx)
    _record(tx, EndpointEvent.REDELIVERY_REQUESTED, row, fromSeq=from_seq, toSeq=to_seq, queued=len(matched))
    return len(matched)


async def _queue(session: AsyncSession, row: WebhookEndpoint, matched: dict[int, Topic], tx: Tx) -> None:
    existing = set(
        (
            await session.execute(
                select(WebhookDelivery.seq).where(
                    WebhookDelivery.endpoint_id == row.id, WebhookDelivery.seq.in_(list(matched))
                )
            )
        ).scalars()
    )
    again = {
        "status": DeliveryStatus.PENDING.value,
        "attempts": 0,
        "next_attempt_at": tx.now,
        "first_attempt_at": None,
        "updated_at": tx.now,
    }
    if existing:
        await session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.endpoint_id == row.id, WebhookDelivery.seq.in_(list(existing)))
            .values(**again)
        )
    session.add_all(
        WebhookDelivery(
            tenant_id=row.tenant_id,
            endpoint_id=row.id,
            seq=seq,
            topic=topic.value,
            created_at=tx.now,
            **again,
        )
        for seq, topic in matched.items()
        if seq not in existing
    )
