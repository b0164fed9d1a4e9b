"""(c) One stall scan over 100,000 steps, 10,000 of them in progress."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert

from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import PlanStep, ResearchPlan
from server.loops.stalls import scan_stalls
from server.services.plans.stalls import stall_candidates
from server.services.runtime import Runtime

PLANS = 10_000
STEPS_PER_PLAN = 10


async def populate(db: Database, now: datetime, stalled: int) -> None:
    plans: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    for p in range(PLANS):
        plan_id = str(uuid.uuid4())
        plans.append(
            dict(
                id=plan_id,
                tenant_id="bench",
                title="",
                research_question="q",
                status="executing",
                created_at=now,
                updated_at=now,
            )
        )
        for s in range(STEPS_PER_PLAN):
            # Step 1 of every plan is in progress (10,000 in all); `stalled` of them started long ago.
            running = s == 0
            started = now - (timedelta(hours=2) if p < stalled else timedelta(minutes=5))
            steps.append(
                dict(
                    id=str(uuid.uuid4()),
                    tenant_id="bench",
                    plan_id=plan_id,
                    step_order=s + 1,
                    step_type="search",
                    title="",
                    instructions="x",
                    status="in_progress" if running else "pending",
                    started_at=started if running else None,
                    created_at=now,
                    updated_at=now,
                )
            )
    async with db.transaction() as session:
        for i in range(0, len(plans), 2000):
            await session.execute(insert(ResearchPlan), plans[i : i + 2000])
        for i in range(0, len(steps), 5000):
            await session.execute(insert(PlanStep), steps[i : i + 5000])


async def scan(database_url: str, stalled: int) -> dict[str, Any]:
    clock = FakeClock(datetime(2026, 6, 1, tzinfo=UTC))
    runtime = Runtime(Database(database_url), clock, Settings(database_url=database_url))
    try:
        await populate(runtime.db, clock.now(), stalled)
        async with runtime.db.reader() as session:  # warm the statement cache and the page cache
            await stall_candidates(session, clock.now(), runtime.settings.stall_threshold_seconds)
        started = time.perf_counter()
        found = await scan_stalls(runtime)
        elapsed_ms = (time.perf_counter() - started) * 1000
    finally:
        await runtime.db.dispose()
    return {
        "steps": PLANS * STEPS_PER_PLAN,
        "in_progress": PLANS,
        "stalled_found": len(found),
        "ms": round(elapsed_ms, 1),
    }
