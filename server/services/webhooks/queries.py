"""Reading a tenant's endpoints and their delivery log (admin keys only; the API checks)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.webhook_models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from ...errors import invalid, not_found
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


async def list_deliveries(
    session: AsyncSession,
    tenant_id: str,
    endpoint_id: str,
    status: DeliveryStatus | None,
    first: int,
    before_seq: int | None,
) -> tuple[list[WebhookDelivery], bool]:
    """An endpoint's deliveries, newest event first; and whether older ones follow."""
    await get_endpoint(session, tenant_id, endpoint_id)
    if before_seq is not None and before_seq < 1:
        raise invalid("beforeSeq must be at least 1", ["beforeSeq"])
    query = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
    if status is not None:
        query = query.where(WebhookDelivery.status == status.value)
    if before_seq is not None:
        query = query.where(WebhookDelivery.seq < before_seq)
    rows = list(
        (await session.execute(query.order_by(WebhookDelivery.seq.desc()).limit(first + 1))).scalars()
    )
    return rows[:first], len(rows) > first


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
