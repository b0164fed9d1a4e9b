"""Many agents call startNextStep on one plan at once, through two server instances on one database."""

from __future__ import annotations

import asyncio
from collections import Counter

from sqlalchemy import select

from server.config import Settings
from server.db.engine import Database
from server.db.models import Event, PlanStep
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer

AGENTS = 24
STEPS = 10


async def test_every_pending_step_starts_exactly_once_under_concurrent_agents(
    two_servers: tuple[LiveServer, LiveServer], settings: Settings
) -> None:
    clients = [GraphQLClient(s.url) for s in two_servers]
    try:
        created = await clients[0].execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        plan_id = created["createResearchPlan"]["plan"]["id"]
        more = [{"stepType": "ANALYZE", "instructions": f"extra {i}"} for i in range(STEPS - 1)]
        await clients[0].execute(
            ops.MODIFY, {"input": {"planId": plan_id, "action": "ADD_STEPS", "steps": more}}
        )

        async def agent(i: int) -> dict[str, object]:
            data = await clients[i % 2].execute(ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "s"})
            result: dict[str, object] = data["startNextStep"]
            return result

        results = await asyncio.gather(*(agent(i) for i in range(AGENTS)))
    finally:
        for c in clients:
            await c.aclose()

    outcomes = Counter(r["outcome"] for r in results)
    assert outcomes == {"STARTED": STEPS, "NO_PENDING_STEPS": AGENTS - STEPS}
    started_ids = [r["step"]["id"] for r in results if r["outcome"] == "STARTED"]  # type: ignore[index]
    assert len(set(started_ids)) == STEPS
    assert all(r["userErrors"] == [] for r in results)
    # A loser is told there is nothing pending only once every step is running.
    losers = [r for r in results if r["outcome"] == "NO_PENDING_STEPS"]
    assert all(r["inProgressCount"] == STEPS and r["failedCount"] == 0 for r in losers)

    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            statuses = (
                await session.scalars(select(PlanStep.status).where(PlanStep.plan_id == plan_id))
            ).all()
            started_events = (
                await session.scalars(
                    select(Event.entity_id).where(Event.root_id == plan_id, Event.kind == "step_started")
                )
            ).all()
    finally:
        await db.dispose()
    assert sorted(statuses) == ["in_progress"] * STEPS
    assert Counter(started_events) == dict.fromkeys(started_ids, 1)
