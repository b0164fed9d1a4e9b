"""The retention loop: archive-then-delete of old events, delivery-log retention, space given back.

Off unless configured (``event_archive_dir`` with ``event_retention_days`` and/or
``event_retention_max_events``; ``webhook_delivery_retention_days``; ``ended_root_retention_days``).
Events go per tenant: the cut-off is the larger of the age's and the size's, but at most
``MAX_EVENTS_PER_PASS`` beyond what was already archived, so one pass stays bounded however far behind
it starts; the next pass goes on. Ended roots go after the events (only those whose events are archived).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import select

from ..db.models import TenantCounter
from ..services.retention.archive import Archived, archive, cutoff_for_time
from ..services.retention.deliveries import prune_deliveries
from ..services.retention.roots import prune_ended_roots
from ..services.retention.space import DELIVERY_TABLES, EVENT_TABLES, ROOT_TABLES, give_back_space
from ..services.runtime import Runtime

MAX_EVENTS_PER_PASS = 200_000


@dataclass
class RetentionPass:
    archives: list[Archived] = field(default_factory=list)
    deliveries_deleted: int = 0
    roots_deleted: int = 0
    bytes_given_back: int = 0

    def deleted(self) -> int:
        return sum(a.deleted for a in self.archives) + self.deliveries_deleted + self.roots_deleted


async def run_retention(runtime: Runtime) -> RetentionPass:
    settings = runtime.settings
    db = runtime.db
    now = runtime.clock.now()
    done = RetentionPass()
    days, most = settings.event_retention_days, settings.event_retention_max_events
    if settings.event_archive_dir is not None and (days is not None or most is not None):
        async with db.read_connection() as conn:
            counters = (
                await conn.execute(
                    select(TenantCounter.tenant_id, TenantCounter.last_seq, TenantCounter.archived_through)
                )
            ).all()
        for tenant, last, through in counters:
            cut = 0
            if days is not None:
                cut = await cutoff_for_time(db, tenant, now - timedelta(days=days))
            if most is not None:
                cut = max(cut, last - most)
            cut = min(cut, through + MAX_EVENTS_PER_PASS)
            if cut > through:
                archived = await archive(
                    db, tenant, cut, settings.event_archive_dir, now, batch=settings.retention_batch_size
                )
                if archived is not None:
                    done.archives.append(archived)
    if settings.webhook_delivery_retention_days is not None:
        done.deliveries_deleted = await prune_deliveries(
            db,
            now - timedelta(days=settings.webhook_delivery_retention_days),
            batch=settings.retention_batch_size,
        )
    if settings.ended_root_retention_days is not None:
        done.roots_deleted = await prune_ended_roots(
            db, now - timedelta(days=settings.ended_root_retention_days), batch=settings.retention_batch_size
        )
    if done.deleted():
        touched = (
            (EVENT_TABLES if any(a.deleted for a in done.archives) else ())
            + (DELIVERY_TABLES if done.deliveries_deleted else ())
            + (ROOT_TABLES if done.roots_deleted else ())
        )
        done.bytes_given_back = await give_back_space(db, tables=touched)
    return done
