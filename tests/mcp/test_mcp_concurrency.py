"""20 agents asking for the next step of a 10-step plan at once: each step starts exactly once."""

from __future__ import annotations

import asyncio
from collections import Counter

from sqlalchemy import select

from server.db.models import Event
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, steps


async def test_parallel_get_next_step_calls_start_each_step_exactly_once(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url) as creator:
        plan = await ok(creator, "create_research_plan", {"researchQuestion": "q", "steps": steps(10)})
    plan_id = plan["planId"]

    async def one_agent() -> dict[str, object]:
        async with mcp_client(live_server.url) as agent:
            return await ok(agent, "get_next_step", {"planId": plan_id})

    answers = await asyncio.gather(*(one_agent() for _ in range(20)))
    started = [a["step"]["stepId"] for a in answers if a["status"] == "started"]  # type: ignore[index]
    assert sorted(started) == sorted(plan["stepIds"])
    assert Counter(a["status"] for a in answers) == {"started": 10, "no_pending_steps": 10}

    async def step_started_events() -> list[str]:
        async with live_server.app.state.runtime.db.reader() as session:
            rows = await session.scalars(
                select(Event.entity_id).where(Event.kind == "step_started", Event.root_id == plan_id)
            )
            return list(rows.all())

    assert sorted(live_server.call(step_started_events())) == sorted(plan["stepIds"])
