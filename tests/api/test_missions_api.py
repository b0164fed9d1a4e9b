"""The mission API over HTTP against a real server: the seed's happy path, errors as data, roles, tenants."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import mission_operations as mops
from tests.conftest import GraphQLClient, LiveServer

PARAMS = {"query": "lithium cold"}


async def register_search_tool(client: GraphQLClient) -> None:
    done = await client.execute(
        mops.REGISTER_TOOL, {"input": {"name": "web_search", "parameterSchema": mops.SEARCH_SCHEMA}}
    )
    assert done["registerTool"]["userErrors"] == []


async def approved_mission(client: GraphQLClient, reviewer: GraphQLClient | None = None) -> str:
    proposed = await client.execute(mops.PROPOSE_MISSION, {"input": {"title": "Study", "goal": "Understand"}})
    mission_id: str = proposed["proposeMission"]["mission"]["id"]
    await (reviewer or client).execute(mops.mission_act("approveMission"), {"id": mission_id})
    return mission_id


async def approved_hop_plan(client: GraphQLClient, mission_id: str) -> dict[str, Any]:
    """A hop READY_FOR_IMPLEMENTATION of ``mission_id``, as its proposal returned it."""
    hop: dict[str, Any] = (
        await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h", "plan": "p"}})
    )["proposeHop"]["hop"]
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop["id"]})
    return hop


async def run_hop(client: GraphQLClient, mission_id: str, final: bool, steps: int = 2) -> dict[str, Any]:
    """Plan, approval, implementation, approval, start, every step completed; the last payload."""
    hop = (
        await client.execute(
            mops.PROPOSE_HOP,
            {"input": {"missionId": mission_id, "name": "hop", "plan": "do it", "isFinal": final}},
        )
    )["proposeHop"]["hop"]
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop["id"]})
    implemented = await client.execute(
        mops.PROPOSE_IMPLEMENTATION,
        {"input": {"hopId": hop["id"], "toolSteps": [{"name": f"step {i}"} for i in range(steps)]}},
    )
    step_ids = [s["id"] for s in implemented["proposeHopImplementation"]["toolSteps"]]
    for step_id in step_ids:
        await client.execute(mops.SELECT_TOOL, {"id": step_id, "tool": "web_search"})
        await client.execute(mops.CONFIGURE, {"id": step_id, "parameters": PARAMS})
    await client.execute(mops.hop_act("approveHopImplementation"), {"id": hop["id"]})
    started = await client.execute(mops.hop_act("startHop"), {"id": hop["id"]})
    assert started["startHop"]["mission"]["status"] == "EXECUTING_HOP"
    assert [s["status"] for s in started["startHop"]["toolSteps"]] == ["EXECUTING"] * steps
    done: dict[str, Any] = {}
    for i, step_id in enumerate(step_ids):
        done = (await client.execute(mops.COMPLETE_STEP, {"id": step_id, "result": {"n": i}}))[
            "completeToolStep"
        ]
        assert done["userErrors"] == []
    return done


async def test_the_seeds_happy_path_over_http_two_hops_the_final_one_completing_the_mission(
    client: GraphQLClient,
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)

    first = await run_hop(client, mission_id, final=False)
    assert first["hop"]["status"] == "COMPLETED"
    assert first["mission"]["status"] == "APPROVED"

    last = await run_hop(client, mission_id, final=True, steps=1)
    assert last["mission"]["status"] == "COMPLETED"
    assert last["mission"]["completedAt"] is not None

    mission = (await client.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"]
    assert mission["currentHop"] is None
    assert [(h["sequence"], h["status"], h["isFinal"]) for h in _nodes(mission["hops"])] == [
        (1, "COMPLETED", False),
        (2, "COMPLETED", True),
    ]
    steps = _nodes(_nodes(mission["hops"])[0]["toolSteps"])
    assert [(s["position"], s["status"], s["toolName"], s["parameters"]) for s in steps] == [
        (1, "COMPLETED", "web_search", PARAMS),
        (2, "COMPLETED", "web_search", PARAMS),
    ]
    assert [s["result"] for s in steps] == [{"n": 0}, {"n": 1}]


def _nodes(connection: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["node"] for e in connection["edges"]]


async def test_parameters_the_schema_refuses_are_user_errors_with_paths_and_change_nothing(
    client: GraphQLClient,
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    hop = await approved_hop_plan(client, mission_id)
    implemented = await client.execute(
        mops.PROPOSE_IMPLEMENTATION,
        {"input": {"hopId": hop["id"], "toolSteps": [{"name": "s", "toolName": "web_search"}]}},
    )
    [step] = implemented["proposeHopImplementation"]["toolSteps"]
    assert step["status"] == "READY_TO_CONFIGURE"
    before = await client.execute(mops.MISSION_QUERY, {"id": mission_id})

    refused = (await client.execute(mops.CONFIGURE, {"id": step["id"], "parameters": {"query": ""}}))[
        "configureToolStep"
    ]

    assert refused["toolStep"] is None
    [error] = refused["userErrors"]
    assert (error["code"], error["field"]) == ("VALIDATION_FAILED", ["parameters", "query"])
    assert await client.execute(mops.MISSION_QUERY, {"id": mission_id}) == before


async def test_state_refusals_carry_entity_and_states_and_malformed_ids_are_validation_errors(
    client: GraphQLClient,
) -> None:
    mission_id = await approved_mission(client)
    again = (await client.execute(mops.mission_act("approveMission"), {"id": mission_id}))["approveMission"]
    [error] = again["userErrors"]
    assert (error["code"], error["entity"], error["fromState"], error["toState"], error["field"]) == (
        "INVALID_TRANSITION",
        "mission",
        "APPROVED",
        "APPROVED",
        ["missionId"],
    )
    bad = (await client.execute(mops.hop_act("startHop"), {"id": "nope"}))["startHop"]
    assert [(e["code"], e["field"]) for e in bad["userErrors"]] == [("VALIDATION_FAILED", ["hopId"])]
    empty = (
        await client.execute(mops.mission_act("cancelMission", reason=True), {"id": mission_id, "reason": ""})
    )["cancelMission"]
    assert [(e["code"], e["field"]) for e in empty["userErrors"]] == [("VALIDATION_FAILED", ["reason"])]


async def test_the_review_inbox_lists_what_waits_for_a_person(client: GraphQLClient) -> None:
    await register_search_tool(client)
    proposed = (await client.execute(mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}}))[
        "proposeMission"
    ]["mission"]["id"]
    building = await approved_mission(client)
    hop = (
        await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": building, "name": "h", "plan": "p"}})
    )["proposeHop"]["hop"]["id"]
    asset = (await client.execute(mops.PROPOSE_ASSET, {"input": {"missionId": building, "name": "a"}}))[
        "proposeAsset"
    ]["asset"]["id"]
    inbox = (await client.execute(mops.INBOX))["missionReviewInbox"]
    assert inbox == {
        "missions": [{"id": proposed}],
        "hopPlans": [{"id": hop}],
        "hopImplementations": [],
        "assets": [{"id": asset}],
    }
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop})
    await client.execute(mops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop, "toolSteps": [{"name": "s"}]}})
    inbox = (await client.execute(mops.INBOX))["missionReviewInbox"]
    assert (inbox["hopPlans"], inbox["hopImplementations"]) == ([], [{"id": hop}])


async def test_hops_page_through_with_cursors(client: GraphQLClient) -> None:
    mission_id = await approved_mission(client)
    for i in range(3):  # three rejected plans, then a fourth in progress
        hop = (
            await client.execute(
                mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": f"h{i}", "plan": "p"}}
            )
        )["proposeHop"]["hop"]["id"]
        await client.execute(mops.hop_act("rejectHopPlan", reason=True), {"id": hop, "reason": f"no {i}"})
    await client.execute(mops.PROPOSE_HOP, {"input": {"missionId": mission_id, "name": "h3", "plan": "p"}})
    seen, after = [], None
    while True:
        page = (await client.execute(mops.MISSION_QUERY, {"id": mission_id, "first": 3, "after": after}))[
            "mission"
        ]["hops"]
        assert page["totalCount"] == 4
        seen += [(n["name"], n["status"], n["statusReason"]) for n in _nodes(page)]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [
        ("h0", "CANCELLED", "no 0"),
        ("h1", "CANCELLED", "no 1"),
        ("h2", "CANCELLED", "no 2"),
        ("h3", "PLAN_PROPOSED", None),
    ]
    mission = (await client.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"]
    assert mission["currentHop"]["status"] == "PLAN_PROPOSED"


async def test_cancel_hop_cancels_a_running_hop_and_returns_the_mission_to_approved(
    client: GraphQLClient,
) -> None:
    await register_search_tool(client)
    mission_id = await approved_mission(client)
    hop = await approved_hop_plan(client, mission_id)
    steps = [{"name": f"s{i}", "toolName": "web_search", "parameters": PARAMS} for i in range(2)]
    implemented = await client.execute(
        mops.PROPOSE_IMPLEMENTATION, {"input": {"hopId": hop["id"], "toolSteps": steps}}
    )
    first, second = (s["id"] for s in implemented["proposeHopImplementation"]["toolSteps"])
    await client.execute(mops.hop_act("approveHopImplementation"), {"id": hop["id"]})
    await client.execute(mops.hop_act("startHop"), {"id": hop["id"]})
    await client.execute(mops.COMPLETE_STEP, {"id": first, "result": {"n": 1}})
    cancel = mops.hop_act("cancelHop", reason=True)

    empty = (await client.execute(cancel, {"id": hop["id"], "reason": ""}))["cancelHop"]
    assert [(e["code"], e["field"]) for e in empty["userErrors"]] == [("VALIDATION_FAILED", ["reason"])]
    done = (await client.execute(cancel, {"id": hop["id"], "reason": "wrong direction"}))["cancelHop"]

    assert done["userErrors"] == []
    assert (done["hop"]["status"], done["hop"]["statusReason"]) == ("CANCELLED", "wrong direction")
    assert done["mission"]["status"] == "APPROVED"
    assert [(s["id"], s["status"]) for s in done["toolSteps"]] == [(second, "CANCELLED")]
    mission = (await client.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"]
    assert mission["currentHop"] is None
    [listed] = _nodes(mission["hops"])
    # The cancelled step is history: listed only with includeCancelled.
    assert [s["status"] for s in _nodes(listed["toolSteps"])] == ["COMPLETED"]
    events = (await client.execute(mops.mission_events_query(), {"id": mission_id}))["events"]
    kinds = [e["node"]["kind"] for e in events["edges"]]
    assert kinds[-1] == "hop_cancelled"

    again = (await client.execute(cancel, {"id": hop["id"], "reason": "again"}))["cancelHop"]
    [error] = again["userErrors"]
    assert (error["code"], error["entity"], error["fromState"], error["toState"]) == (
        "INVALID_TRANSITION",
        "hop",
        "CANCELLED",
        "CANCELLED",
    )


# -- roles and tenants --


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@pytest.fixture
async def role_keys(settings: Settings, clock: FakeClock) -> dict[tuple[str, Role], str]:
    """Keys made before the server starts, so that it starts with keys (dev mode is decided then)."""
    db = Database(settings.database_url)
    keys: dict[tuple[str, Role], str] = {}
    for tenant in ("tenant-a", "tenant-b"):
        for role in Role:
            keys[(tenant, role)] = (await create_key(db, tenant, role, f"{tenant}-{role}", clock.now()))[1]
    await db.dispose()
    return keys


@pytest.fixture
async def as_role(
    role_keys: dict[tuple[str, Role], str], live_server: LiveServer
) -> AsyncIterator[Callable[[str, Role], GraphQLClient]]:
    assert not live_server.app.state.dev_mode
    opened: list[GraphQLClient] = []
    keys = role_keys

    def make(tenant: str, role: Role) -> GraphQLClient:
        c = GraphQLClient(live_server.url, keys[(tenant, role)])
        opened.append(c)
        return c

    yield make
    for c in opened:
        await c.aclose()


async def test_agents_propose_people_decide_and_viewers_only_read(
    as_role: Callable[[str, Role], GraphQLClient],
) -> None:
    agent, reviewer, viewer = (as_role("tenant-a", r) for r in (Role.AGENT, Role.REVIEWER, Role.VIEWER))
    mission_id = (await agent.execute(mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}}))[
        "proposeMission"
    ]["mission"]["id"]
    for client, document, variables in [
        (agent, mops.mission_act("approveMission"), {"id": mission_id}),
        (reviewer, mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}}),
        (viewer, mops.mission_act("cancelMission", reason=True), {"id": mission_id, "reason": "r"}),
        (agent, mops.hop_act("cancelHop", reason=True), {"id": mission_id, "reason": "r"}),
        (viewer, mops.hop_act("cancelHop", reason=True), {"id": mission_id, "reason": "r"}),
    ]:
        body = (await client.post(document, variables)).json()
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN", body
    await reviewer.execute(mops.mission_act("approveMission"), {"id": mission_id})
    seen = (await viewer.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"]
    assert seen["status"] == "APPROVED"


async def test_another_tenants_mission_does_not_exist(as_role: Callable[[str, Role], GraphQLClient]) -> None:
    mine = as_role("tenant-a", Role.ADMIN)
    theirs = as_role("tenant-b", Role.ADMIN)
    mission_id = await approved_mission(mine)
    assert (await theirs.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"] is None
    refused = (
        await theirs.execute(
            mops.mission_act("cancelMission", reason=True), {"id": mission_id, "reason": "mine now"}
        )
    )["cancelMission"]
    assert [e["code"] for e in refused["userErrors"]] == ["NOT_FOUND"]
    assert (await mine.execute(mops.MISSION_QUERY, {"id": mission_id}))["mission"]["status"] == "APPROVED"
    listed = await theirs.execute("{ missions { totalCount } tools { name } }")
    assert listed == {"missions": {"totalCount": 0}, "tools": []}
