"""wait_for_decision over HTTP: woken by the event feed, with progress, bounded, capped per key.

Heartbeats are released by the test (ReleasedSleep), so a wait that returns before any was released
was woken by the event feed, and one that reaches its bound did so because the test said so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import mcp_types as types
import pytest

from server.auth import Role
from server.clock import FakeClock
from server.config import Settings
from tests.api.operations import DECIDE
from tests.conftest import GraphQLClient, LiveServer, keys_per_role, start_server, stop_server
from tests.mcp.helpers import ok, refused
from tests.mcp.waiting_helpers import Progress, ReleasedSleep, http_client, step_awaiting_review

SQLITE = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)


@pytest.fixture
def released(live_server: LiveServer) -> ReleasedSleep:
    sleep = ReleasedSleep()
    live_server.app.state.runtime.decision_waits.sleep = sleep.sleep
    return sleep


# On both databases: the wait wakes from the feed either reads.
async def test_a_wait_returns_the_decision_a_reviewer_makes_over_graphql_with_progress_meanwhile(
    live_server: LiveServer, released: ReleasedSleep, client: GraphQLClient
) -> None:
    async with http_client(live_server.url) as mcp:
        plan_id, step_id = await step_awaiting_review(mcp)
        progress = Progress()
        waiting = asyncio.create_task(
            mcp.call_tool("wait_for_decision", {"id": step_id}, progress_callback=progress)
        )
        await progress.first.wait()  # the wait has read the decision and follows the feed
        assert not waiting.done()

        async def reviewer() -> None:
            decided = await client.execute(DECIDE, {"stepId": step_id, "decision": "APPROVE"})
            assert decided["submitUserDecision"]["userErrors"] == []

        await asyncio.gather(reviewer(), waiting)
        result = waiting.result()
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None
    assert data["status"] == "decided"
    assert data["decision"]["outcome"] == "approve"
    assert data["decision"]["subjectId"] == step_id
    assert data["decision"]["rootId"] == plan_id
    assert data["askedInClient"] is False
    assert data["waitedSeconds"] == 0
    assert "get_next_step" in result.content[0].text  # type: ignore[union-attr]
    assert released.asked == [10]
    assert released.ended == 0
    assert progress.seen[0][:2] == (0, 50)  # the default bound
    assert "waiting for a person to decide (plan_review" in (progress.seen[0][2] or "")


@SQLITE
async def test_at_its_bound_a_wait_says_still_waiting_after_a_progress_notification_per_heartbeat(
    live_server: LiveServer, released: ReleasedSleep
) -> None:
    async with http_client(live_server.url) as mcp:
        plan_id, step_id = await step_awaiting_review(mcp)
        progress = Progress()
        waiting = asyncio.create_task(
            mcp.call_tool(
                "wait_for_decision", {"id": step_id, "timeoutSeconds": 25}, progress_callback=progress
            )
        )
        await progress.first.wait()
        live_server.call(released.release(3))
        result = await waiting
        # A wait answered by now holds no slot: another one starts (and is ended by its one heartbeat).
        live_server.call(released.release())
        # The plan's id finds its open review.
        again = await ok(mcp, "wait_for_decision", {"id": plan_id, "timeoutSeconds": 1})
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None
    assert data["status"] == "waiting"
    assert data["decision"]["status"] == "open"
    assert data["waitedSeconds"] == 25
    assert data["retryAfterSeconds"] == 0
    assert "call wait_for_decision again" in result.content[0].text  # type: ignore[union-attr]
    assert released.asked == [10, 10, 5, 1]  # heartbeats of 10 s, the last one cut to the bound
    assert [(p, t) for p, t, _ in progress.seen] == [(0, 25), (10, 25), (20, 25)]
    assert again["status"] == "waiting"
    assert again["decision"]["subjectId"] == step_id
    assert again["waitedSeconds"] == 1


@SQLITE
async def test_an_answered_decision_returns_at_once_and_bad_arguments_are_refused(
    live_server: LiveServer, released: ReleasedSleep, client: GraphQLClient
) -> None:
    async with http_client(live_server.url) as mcp:
        _, step_id = await step_awaiting_review(mcp)
        await client.execute(DECIDE, {"stepId": step_id, "decision": "MODIFY", "feedback": "more"})
        data = await ok(mcp, "wait_for_decision", {"id": step_id})
        assert data["status"] == "decided"
        assert data["decision"]["outcome"] == "modify"
        # Its own id finds the same decision.
        by_id = await ok(mcp, "wait_for_decision", {"id": data["decision"]["decisionId"]})
        assert by_id["decision"] == data["decision"]

        plan = await ok(
            mcp,
            "create_research_plan",
            {"researchQuestion": "q", "steps": [{"stepType": "search", "instructions": "x"}]},
        )
        unasked = plan["stepIds"][0]
        for args, code, field in [
            ({"id": unasked}, "NOT_FOUND", ["id"]),
            ({"id": "not-an-id"}, "VALIDATION_FAILED", ["id"]),
            ({"id": step_id, "timeoutSeconds": 0}, "VALIDATION_FAILED", ["timeoutSeconds"]),
            ({"id": step_id, "timeoutSeconds": 301}, "VALIDATION_FAILED", ["timeoutSeconds"]),
            ({"id": step_id, "timeoutSeconds": "soon"}, "VALIDATION_FAILED", ["timeoutSeconds"]),
            ({"id": step_id, "extra": 1}, "VALIDATION_FAILED", []),
        ]:
            error = await refused(mcp, "wait_for_decision", args)
            assert error["code"] == code, (args, error)
            if field:
                assert error["field"] == field, (args, error)
    assert released.asked == []  # nothing waited


@pytest.fixture
async def keyed(settings: Settings, clock: FakeClock) -> dict[Role, str]:
    return await keys_per_role(settings.database_url, clock.now())


@pytest.fixture
def keyed_server(keyed: dict[Role, str], settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    live = start_server(settings, clock)  # after the keys: not in dev mode
    yield live
    stop_server(live)


@SQLITE
async def test_waits_are_capped_per_key_and_a_client_over_http_is_not_asked(
    keyed: dict[Role, str], keyed_server: LiveServer
) -> None:
    live = keyed_server
    released = ReleasedSleep()
    waits = live.app.state.runtime.decision_waits
    waits.sleep, waits.per_key = released.sleep, 2
    asked: list[types.ElicitRequestParams] = []

    async def answer(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    async with (
        http_client(live.url, keyed[Role.AGENT]) as agent,
        http_client(live.url, keyed[Role.ADMIN], elicitation_callback=answer) as admin,
    ):
        _, step_id = await step_awaiting_review(agent)
        held = [Progress(), Progress()]
        waits_held = [
            asyncio.create_task(agent.call_tool("wait_for_decision", {"id": step_id}, progress_callback=p))
            for p in held
        ]
        for p in held:
            await p.first.wait()
        over = await refused(agent, "wait_for_decision", {"id": step_id})
        assert over["code"] == "TOO_MANY_WAITS"
        assert "call again when one of those waits has returned" in over["message"]

        # Another key is not held back; an admin key over stateless HTTP has no back-channel, so it
        # is not asked: the reviewer's answer over GraphQL ends every wait.
        mine = Progress()
        admin_wait = asyncio.create_task(
            admin.call_tool("wait_for_decision", {"id": step_id}, progress_callback=mine)
        )
        await mine.first.wait()
        graphql = GraphQLClient(live.url, keyed[Role.REVIEWER])
        try:
            await graphql.execute(DECIDE, {"stepId": step_id, "decision": "SKIP"})
        finally:
            await graphql.aclose()
        results = await asyncio.gather(*waits_held, admin_wait)
    for result in results:
        assert not result.is_error, result.content
        assert result.structured_content is not None
        assert result.structured_content["decision"]["outcome"] == "skip"
        assert result.structured_content["askedInClient"] is False
    assert asked == []
    assert waits.held == {}  # every slot given back


APPROVE_GATE = "mutation($id: ID!) { approveWorkflowStep(stepId: $id) { userErrors { code message } } }"
APPROVE_MISSION = "mutation($id: ID!) { approveMission(missionId: $id) { userErrors { code message } } }"
GATED = "metadata:\n  name: gated\nspec:\n  steps:\n    - name: gate\n      approval: true\n"


@SQLITE
async def test_a_workflow_gate_and_a_mission_approval_are_waited_for_the_same_way(
    live_server: LiveServer, released: ReleasedSleep, client: GraphQLClient
) -> None:
    async with http_client(live_server.url) as mcp:
        workflow = (await ok(mcp, "create_workflow_from_yaml", {"yaml": GATED}))["workflow"]["workflowId"]
        await ok(mcp, "start_workflow", {"workflowId": workflow})
        [gate] = (await ok(mcp, "get_workflow", {"workflowId": workflow}))["steps"]
        mission = (await ok(mcp, "propose_mission", {"title": "t", "goal": "g"}))["mission"]["missionId"]
        answers = []
        for subject, approve, kind in [
            (gate["stepId"], APPROVE_GATE, "workflow_gate"),
            (mission, APPROVE_MISSION, "mission_approval"),
        ]:
            progress = Progress()
            waiting = asyncio.create_task(
                mcp.call_tool("wait_for_decision", {"id": subject}, progress_callback=progress)
            )
            await progress.first.wait()
            assert f"({kind}" in (progress.seen[0][2] or "")
            decided = await client.execute(approve, {"id": subject})
            assert next(iter(decided.values()))["userErrors"] == []
            result = await waiting
            assert not result.is_error, result.content
            answers.append(result.structured_content)
    for data, kind in zip(answers, ["workflow_gate", "mission_approval"], strict=True):
        assert data is not None
        assert (data["status"], data["decision"]["kind"], data["decision"]["outcome"]) == (
            "decided",
            kind,
            "approve",
        )
    assert released.ended == 0


@SQLITE
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_that_goes_away_gives_its_wait_back(
    live_server: LiveServer, released: ReleasedSleep, mode: str
) -> None:
    waits = live_server.app.state.runtime.decision_waits
    async with http_client(live_server.url, mode=mode) as mcp:
        _, step_id = await step_awaiting_review(mcp)
        progress = Progress()
        waiting = asyncio.create_task(
            mcp.call_tool("wait_for_decision", {"id": step_id}, progress_callback=progress)
        )
        await progress.first.wait()
        assert sum(waits.held.values()) == 1
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
    for _ in range(400):  # the server hears of the closed response in its own time
        if not waits.held:
            break
        await asyncio.sleep(0.05)
    assert waits.held == {}
    assert released.ended == 0
