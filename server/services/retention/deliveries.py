"""Retention of the webhook delivery log: deliveries that ended long ago, with their attempts.

A delivery that ended (delivered, or failed for good) before the cut-off goes, and so do the attempts
recorded for it; a pending delivery (a retry still due) never does, however old. Deleted a batch of
deliveries per transaction, paced as archival's deletes are (``pacing.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import delete, select

from ...db.engine import Database
from ...db.webhook_models import WebhookAttempt, WebhookDelivery
from .pacing import Paced

D = WebhookDelivery
A = WebhookAttempt


async def prune_deliveries(db: Database, before: datetime, *, batch: int) -> int:
    """Delete the deliveries that ended before ``before`` (and their attempts); how many deliveries."""
    total = 0
    paced = Paced(batch)
    while True:
        async with paced.batch() as size, db.transaction() as session:
            ended = (
                await session.execute(
                    select(D.id, D.endpoint_id, D.seq)
                    .where(D.status != "pending", D.updated_at < before)
                    .order_by(D.id)
                    .limit(size)
                )
            ).all()
            if not ended:
                return total
            for endpoint_id, seqs in _by_endpoint(ended).items():
                await session.execute(delete(A).where(A.endpoint_id == endpoint_id, A.seq.in_(seqs)))
            gone = await session.execute(delete(D).where(D.id.in_([row.id for row in ended])))
            total += int(cast(Any, gone).rowcount or 0)
        if len(ended) < size:
            return total


def _by_endpoint(rows: Any) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for row in rows:
        grouped.setdefault(row.endpoint_id, []).append(int(row.seq))
    return grouped
