"""Events for the retention tests: written straight into the log, as committed transactions write them."""

from __future__ import annotations

import uuid
from typing import Any

from server.clock import FakeClock
from server.db.engine import Database
from server.events.log import EventBuffer, write_events
from server.services.retention.archive import export_lines


async def log_events(
    db: Database, clock: FakeClock, count: int, tenant: str = "default", per_tx: int = 7
) -> None:
    """``count`` events in transactions of ``per_tx``, with assorted JSON (text beyond ASCII, floats,
    nested values, nulls) so that a round trip through an archive has something to get wrong."""
    written = 0
    while written < count:
        buffer = EventBuffer(tenant, "key:tester", clock.now())
        for n in range(written, min(count, written + per_tx)):
            buffer.record(
                "step_transitioned",
                entity_type="step",
                entity_id=str(uuid.uuid4()),
                root_type="plan",
                root_id=f"plan-{n % 5}",
                from_state="pending" if n % 3 else None,
                to_state="in_progress",
                data={"n": n, "note": 'é ✓ " \\ \u2028', "nested": {"b": [1, 2.5, None, True], "a": {}}},
            )
        async with db.transaction() as session:
            await write_events(session, buffer)
        written += len(buffer.events)


async def exported(
    db: Database, tenant: str = "default", first: int = 1, last: int | None = None
) -> list[str]:
    return [line async for line in export_lines(db, tenant, first, last)]


def seqs_of(lines: list[str]) -> list[int]:
    import json

    return [json.loads(line)["seq"] for line in lines]


async def counter_of(db: Database, tenant: str = "default") -> tuple[int, int]:
    from sqlalchemy import select

    from server.db.models import TenantCounter

    async with db.read_connection() as conn:
        row: Any = (
            await conn.execute(
                select(TenantCounter.last_seq, TenantCounter.archived_through).where(
                    TenantCounter.tenant_id == tenant
                )
            )
        ).one()
    return int(row[0]), int(row[1])
