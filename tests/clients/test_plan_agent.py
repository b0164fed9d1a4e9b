"""PlanAgent (the seed 003 loop) and the typed operations against a real server."""

from __future__ import annotations

import pytest
from flightdeck_client import ClientError, PlanAgent, connect
from flightdeck_client.generated.enums import PlanStatus

from tests.conftest import LiveServer


async def test_the_seed_003_loop_create_next_submit_review_resume(live_server: LiveServer) -> None:
    async with PlanAgent(live_server.url, session_id="s1") as agent:
        await _loop(agent, live_server)


async def _loop(agent: PlanAgent, live_server: LiveServer) -> None:
    plan_id = await agent.create(
        "Why is the sky blue?", [("search", "Find sources"), ("synthesize", "Write it up")], title="sky"
    )
    first = await agent.next_step(plan_id)
    assert first is not None
    assert first.instructions == "Find sources"
    await agent.submit(first.id, "three sources", data={"sources": 3}, confidence=0.9)
    second = await agent.next_step(plan_id)
    assert second is not None
    assert second.instructions == "Write it up"
    await agent.ask_for_review(second.id, "draft ready", ["Is the tone right?"])
    async with connect(live_server.url) as client:
        plan = (await client.start_next_step(plan_id, "s1")).start_next_step.plan
    assert plan is not None
    assert plan.status is PlanStatus.AWAITING_REVIEW
    assert await agent.resume(plan_id, "s2") is True
    with pytest.raises(ClientError) as refused:
        await agent.submit("00000000-0000-0000-0000-000000000000", "nothing")
    assert refused.value.code == "NOT_FOUND"
