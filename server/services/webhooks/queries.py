"""Reading a tenant's endpoints and their delivery log (admin keys only; the API checks)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ...errors import invalid, not_found
from ..pages import Page, decode_cursor, encode_cursor
from .delivery import DeliveryStatus

MAX_ATTEMPTS_LISTED = 100


async def list_endpoints(session: AsyncSession, tenant_id: str) -> Sequence[WebhookEndpoint]:
    rows = await session.execute(
        select(WebhookEndpoint)
        .where(WebhookEndpoint.tenant_id == tenant_id)
        .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
    )
    return rows.scalars().all()


async def get_endpoint(session: AsyncSession, tenant_id: str, endpoint_id: str) -> WebhookEndpoint:
    row = (
        await session.execute(
            select(WebhookEndpoint).where(
                WebhookEndpoint.id == endpoint_id, WebhookEndpoint.tenant_id == tenant_id
            )
        )
    ).scalar_one_or_none()
    if row is None:
        raise not_found("webhook endpoint", endpoint_id, ["endpointId"])
    return row


def delivery_cursor(row: WebhookDelivery) -> str:
    return encode_cursor(str(row.seq))


def _deliveries(endpoint_id: str, status: DeliveryStatus | None) -> Select[Any]:
    query = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status.value)
    return query


async def list_deliveries(
    session: AsyncSession,
    tenant_id: str,
    endpoint_id: str,
    status: DeliveryStatus | None,
    first: int,
    after: str | None,
) -> Page[WebhookDelivery]:
    """An endpoint's deliveries, newest event first, after the cursor ``after`` (``delivery_cursor``)."""
    await get_endpoint(session, tenant_id, endpoint_id)
    query = _deliveries(endpoint_id, status)
    if after is not None:
        (raw,) = decode_cursor(after, 1)
        if not raw.isdigit() or len(raw) > 18:
            raise invalid("after is not a cursor this server issued", ["after"])
        query = query.where(WebhookDelivery.seq < int(raw))
    rows = list(
        (await session.execute(query.order_by(WebhookDelivery.seq.desc()).limit(first + 1))).scalars()
    )
    return Page(rows[:first], len(rows) > first)


async def count_deliveries(session: AsyncSession, endpoint_id: str, status: DeliveryStatus | None) -> int:
    """How many deliveries ``list_deliveries`` pages through (the endpoint already checked)."""
    return int(await session.scalar(_deliveries(endpoint_id, status).with_only_columns(func.count())) or 0)


async def list_attempts(
    session: AsyncSession, tenant_id: str, endpoint_id: str, seq: int
) -> Sequence[WebhookAttempt]:
    """Every attempt to deliver one event to one endpoint, oldest first (the last 100)."""
    await get_endpoint(session, tenant_id, endpoint_id)
    rows = await session.execute(
        select(WebhookAttempt)
        .where(WebhookAttempt.endpoint_id == endpoint_id, WebhookAttempt.seq == seq)
        .order_by(WebhookAttempt.id.desc())
        .limit(MAX_ATTEMPTS_LISTED)
    )
    return list(reversed(rows.scalars().all()))
