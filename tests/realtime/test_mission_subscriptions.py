"""missionUpdated and the event stream of one mission, over graphql-transport-ws against a real server."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from server.loops.asset_expiry import expire_assets
from tests.api import mission_operations as mops
from tests.api.test_missions_api import approved_mission, register_search_tool, run_hop
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import EVENTS, collect, ws_session

MISSION_UPDATED = """
subscription($id: ID!) {
  missionUpdated(id: $id) {
    id status
    currentHop { id status toolSteps { edges { node { status } } } }
    assets { edges { node { id status } } }
  }
}
"""


async def wait_for_subscribers(live: LiveServer, count: int = 1) -> None:
    """Until ``count`` subscriptions follow the server's feed (they are live, not still starting)."""
    runtime = live.app.state.runtime

    async def following() -> int:
        return sum(t.refs for t in runtime.feed.tails.values())

    deadline = asyncio.get_running_loop().time() + 10
    while live.call(following()) < count:
        assert asyncio.get_running_loop().time() < deadline, "the subscription never started"
        await asyncio.sleep(0.02)


async def test_mission_updated_sends_the_mission_first_then_after_every_change(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    async with ws_session(live_server.ws_url) as ws:
        updates = asyncio.create_task(collect(ws, MISSION_UPDATED, {"id": mission_id}, 3))
        await wait_for_subscribers(live_server)
        hop = (
            await client.execute(
                mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h", "plan": "p"}}
            )
        )["proposeHop"]["hop"]
        await asyncio.sleep(0.2)  # one mutation, one snapshot: let it arrive before the next
        await client.execute(mops.hop_act("rejectHopPlan", reason=True), {"id": hop["id"], "reason": "no"})
        results = [r["missionUpdated"] for r in await updates]

    assert [(r["status"], r["currentHop"]) for r in results] == [
        ("APPROVED", None),
        ("BUILDING_HOP", {"id": hop["id"], "status": "PLAN_PROPOSED", "toolSteps": {"edges": []}}),
        ("APPROVED", None),
    ]


async def test_a_tool_step_completing_gives_one_snapshot_with_every_roll_up(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    hop = (
        await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h", "plan": "p"}})
    )["proposeHop"]["hop"]["id"]
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop})
    step = {"name": "s", "toolName": "web_search", "parameters": {"query": "q"}}
    done = await client.execute(mops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop, "toolSteps": [step]}})
    [step_id] = [s["id"] for s in done["proposeHopImplementation"]["toolSteps"]]
    await client.execute(mops.hop_act("approveHopImplementation"), {"id": hop})
    await client.execute(mops.hop_act("startHop"), {"id": hop})

    async with ws_session(live_server.ws_url) as ws:
        updates = asyncio.create_task(collect(ws, MISSION_UPDATED, {"id": mission_id}, 3))
        await wait_for_subscribers(live_server)
        # One commit: the step, the hop and the mission move together (four events, one snapshot) ...
        await client.execute(mops.COMPLETE_STEP, {"id": step_id, "result": None})
        await asyncio.sleep(0.2)
        # ... so the next snapshot is already the next change.
        await client.execute(mops.PROPOSE_ASSET, {"input": {"missionId": mission_id, "name": "r"}})
        running, completed, with_asset = [r["missionUpdated"] for r in await updates]

    assert running["status"] == "EXECUTING_HOP"
    assert running["currentHop"]["toolSteps"] == {"edges": [{"node": {"status": "EXECUTING"}}]}
    assert (completed["status"], completed["currentHop"], completed["assets"]["edges"]) == (
        "APPROVED",
        None,
        [],
    )
    assert [e["node"]["status"] for e in with_asset["assets"]["edges"]] == ["PROPOSED"]


async def test_the_event_stream_filtered_to_a_mission_carries_its_hops_steps_and_assets_only(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    other = await approved_mission(client)
    await run_hop(client, other, final=True, steps=1)
    await run_hop(client, mission_id, final=False, steps=1)
    history = (await client.execute(mops.mission_events_query(), {"id": mission_id}))["events"]["edges"]
    expected = [e["node"]["seq"] for e in history]
    assert expected, "the mission has events"
    filter_ = {"rootType": "mission", "rootId": mission_id}

    async with ws_session(live_server.ws_url) as ws:
        replay = asyncio.create_task(collect(ws, EVENTS, {"after": 0, "filter": filter_}, len(expected) + 6))
        await wait_for_subscribers(live_server)
        asset = (
            await client.execute(
                mops.PROPOSE_ASSET, {"input": {"missionId": mission_id, "name": "r", "ttlSeconds": 5}}
            )
        )["proposeAsset"]["asset"]
        live_server.clock.advance(timedelta(seconds=6))
        live_server.call(expire_assets(live_server.app.state.runtime))
        results = [r["events"] for r in await replay]

    assert [r["seq"] for r in results[: len(expected)]] == expected
    assert {r["rootId"] for r in results} == {mission_id}
    assert {r["entityType"] for r in results} >= {"mission", "hop", "tool_step"}
    live = [(r["kind"], r["entityId"]) for r in results[len(expected) :] if r["entityType"] == "asset"]
    assert live == [
        ("asset_proposed", asset["id"]),
        ("asset_transitioned", asset["id"]),
        ("asset_expired", asset["id"]),
    ]
    # The asset's acceptance opened a decision, withdrawn when the asset expired.
    decision = [r["kind"] for r in results[len(expected) :] if r["entityType"] == "decision"]
    assert decision == ["review_requested", "decision_transitioned", "decision_withdrawn"]
