"""Event seq is gap-free per tenant in commit order, even with concurrent writers."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from server.auth import Principal, Role
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from server.services.plans import create as plan_create
from server.services.plans import execution as plan_execution
from server.services.plans.inputs import NewPlan, NewStep
from server.services.runtime import Runtime, unit_of_work

WRITERS = 8
PLANS_PER_WRITER = 12
TENANT = Principal("seq-tenant", Role.AGENT, "writer")


async def _writer(settings: Settings, clock: FakeClock, done: asyncio.Event) -> int:
    """One writer with its own engine (its own connections), like a separate server process."""
    runtime = Runtime(Database(settings.database_url, pool_size=2), clock, settings)
    try:
        for _ in range(PLANS_PER_WRITER):
            async with unit_of_work(runtime, TENANT) as tx:
                created = await plan_create.create_research_plan(
                    tx, NewPlan("q", [NewStep("search", "a"), NewStep("analyze", "b")])
                )
            async with unit_of_work(runtime, TENANT) as tx:
                await plan_execution.start_next_step(tx, created.plan.id)
        return PLANS_PER_WRITER
    finally:
        await runtime.db.dispose()


async def _tail(settings: Settings, stop: asyncio.Event) -> list[int]:
    """Read new events the way a resuming subscriber does; any hole seen here would be lost for good."""
    db = Database(settings.database_url)
    seen: list[int] = []
    try:
        while True:
            finished = stop.is_set()
            async with db.reader() as session:
                rows = (
                    await session.scalars(
                        select(Event.seq)
                        .where(Event.tenant_id == TENANT.tenant_id, Event.seq > (seen[-1] if seen else 0))
                        .order_by(Event.seq)
                    )
                ).all()
            for seq in rows:
                expected = (seen[-1] if seen else 0) + 1
                assert seq == expected, f"tail saw seq {seq} while {expected} was not yet visible"
                seen.append(seq)
            if finished:
                return seen
            await asyncio.sleep(0.005)
    finally:
        await db.dispose()


async def test_concurrent_writers_produce_gap_free_commit_ordered_seq(
    settings: Settings, clock: FakeClock
) -> None:
    stop = asyncio.Event()
    tail = asyncio.create_task(_tail(settings, stop))
    await asyncio.gather(*(_writer(settings, clock, stop) for _ in range(WRITERS)))
    stop.set()
    seen = await tail

    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            all_seqs = (
                await session.scalars(
                    select(Event.seq).where(Event.tenant_id == TENANT.tenant_id).order_by(Event.seq)
                )
            ).all()
    finally:
        await db.dispose()
    # create: 1 event; start: 2 transitions + step_started = 3 events per plan
    expected_total = WRITERS * PLANS_PER_WRITER * 4
    assert list(all_seqs) == list(range(1, expected_total + 1))
    assert seen == list(all_seqs)
