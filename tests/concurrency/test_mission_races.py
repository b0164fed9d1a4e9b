"""Agents and people racing on one mission, through two server instances on one database: the mission
row lock makes every roll-up happen once and every conflicting intent lose cleanly."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from sqlalchemy import select

from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from tests.api import mission_operations as mops
from tests.api.test_missions_api import approved_mission, register_search_tool
from tests.conftest import GraphQLClient, LiveServer

STEPS = 8


async def mission_events(settings: Settings, mission_id: str) -> list[Event]:
    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            rows = await session.scalars(select(Event).where(Event.root_id == mission_id).order_by(Event.seq))
            return list(rows.all())
    finally:
        await db.dispose()


async def test_concurrent_completions_roll_the_hop_and_mission_up_exactly_once(
    two_servers: tuple[LiveServer, LiveServer], settings: Settings
) -> None:
    clients = [GraphQLClient(s.url) for s in two_servers]
    try:
        await register_search_tool(clients[0])
        mission_id = await approved_mission(clients[0])
        hop = (
            await clients[0].execute(
                mops.PROPOSE_HOP,
                {"input": {"missionId": mission_id, "name": "h", "plan": "p", "isFinal": True}},
            )
        )["proposeHop"]["hop"]["id"]
        await clients[0].execute(mops.hop_act("approveHopPlan"), {"id": hop})
        steps = [
            {"name": f"s{i}", "toolName": "web_search", "parameters": {"query": "q"}} for i in range(STEPS)
        ]
        done = await clients[0].execute(
            mops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop, "toolSteps": steps}}
        )
        step_ids = [s["id"] for s in done["proposeHopImplementation"]["toolSteps"]]
        await clients[0].execute(mops.hop_act("approveHopImplementation"), {"id": hop})
        await clients[0].execute(mops.hop_act("startHop"), {"id": hop})

        async def complete(i: int) -> dict[str, Any]:
            # Every step reported twice, from both instances at once.
            data = await clients[i % 2].execute(mops.COMPLETE_STEP, {"id": step_ids[i % STEPS], "result": i})
            result: dict[str, Any] = data["completeToolStep"]
            return result

        results = await asyncio.gather(*(complete(i) for i in range(2 * STEPS)))
    finally:
        for c in clients:
            await c.aclose()

    accepted = [r for r in results if not r["userErrors"]]
    refused = [r for r in results if r["userErrors"]]
    assert len(accepted) == STEPS
    assert {e["code"] for r in refused for e in r["userErrors"]} == {"INVALID_TRANSITION"}
    assert [r["mission"]["status"] for r in accepted].count("COMPLETED") == 1
    events = await mission_events(settings, mission_id)
    moves = Counter(
        (e.entity_type, e.from_state, e.to_state) for e in events if e.kind.endswith("_transitioned")
    )
    assert moves[("tool_step", "EXECUTING", "COMPLETED")] == STEPS
    assert moves[("hop", "EXECUTING", "COMPLETED")] == 1
    assert moves[("mission", "EXECUTING_HOP", "COMPLETED")] == 1


async def test_of_two_hops_proposed_at_once_exactly_one_is_accepted(
    two_servers: tuple[LiveServer, LiveServer], settings: Settings
) -> None:
    clients = [GraphQLClient(s.url) for s in two_servers]
    try:
        mission_id = await approved_mission(clients[0])

        async def propose(i: int) -> dict[str, Any]:
            variables = {"input": {"missionId": mission_id, "name": f"h{i}", "plan": "p"}}
            result: dict[str, Any] = (await clients[i % 2].execute(mops.PROPOSE_HOP, variables))["proposeHop"]
            return result

        results = await asyncio.gather(*(propose(i) for i in range(6)))
    finally:
        for c in clients:
            await c.aclose()

    winners = [r for r in results if not r["userErrors"]]
    assert len(winners) == 1
    assert winners[0]["mission"]["status"] == "BUILDING_HOP"
    losers = [e for r in results for e in r["userErrors"]]
    assert [(e["code"], e["fromState"]) for e in losers] == [("INVALID_TRANSITION", "BUILDING_HOP")] * 5
    events = await mission_events(settings, mission_id)
    assert [e.kind for e in events].count("hop_proposed") == 1
