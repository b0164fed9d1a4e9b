"""workAvailable over graphql-transport-ws against a real server: driven by the event
log, resumable with a cursor, held to the agent a key acts as, and scoped to the tenant."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.loops.workflow_timers import run_workflow_timers
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import collect, ws_session

WORK = """
subscription Work($agent: String!, $workflowId: ID, $after: Int) {
  workAvailable(agent: $agent, workflowId: $workflowId, after: $after) { seq workflowId reason }
}
"""
RETRY = {"maxRetries": 2, "backoff": "CONSTANT", "initialDelay": "10s"}


@pytest.fixture
def settings(db_url: str) -> Settings:
    # The test runs the timers itself; no key cache.
    return Settings(database_url=db_url, workflow_timer_interval_seconds=3600, auth_cache_seconds=0)


async def started(client: GraphQLClient, *steps: dict[str, Any], **spec: Any) -> str:
    created = await client.execute(ops.CREATE, {"input": {"name": "w", "steps": list(steps), **spec}})
    assert created["createWorkflow"]["userErrors"] == [], created
    workflow_id: str = created["createWorkflow"]["workflow"]["id"]
    await client.execute(ops.START, {"id": workflow_id})
    return workflow_id


def wakes(results: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["workAvailable"]["workflowId"], r["workAvailable"]["reason"]) for r in results]


async def test_wake_ups_follow_the_log_resume_and_skip_other_agents_retries(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    first = await started(client, {"name": "a"}, {"name": "b", "dependsOn": ["a"]})
    a = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
    await client.execute(ops.COMPLETE, {"stepId": a["id"], "agent": "w"})
    second = await started(client, {"name": "theirs", "agent": "x", "retryPolicy": RETRY})
    theirs = (await client.execute(ops.CLAIM, {"agent": "x", "workflowId": second}))["claimWorkflowStep"][
        "step"
    ]
    failed = {"stepId": theirs["id"], "agent": "x", "category": "TRANSIENT", "message": "503"}
    await client.execute(ops.FAIL, failed)  # a retry with back-off: no wake-up yet
    live_server.clock.advance(timedelta(seconds=10))
    live_server.call(run_workflow_timers(live_server.app.state.runtime))  # the back-off ends
    b = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
    await client.execute(ops.COMPLETE, {"stepId": b["id"], "agent": "w"})  # the workflow completes
    sentinel = await started(client, {"name": "later"})  # what comes after b's completion
    async with ws_session(live_server.ws_url) as ws:
        for_w = await collect(ws, WORK, {"agent": "w", "after": 0}, 4)
        for_x = await collect(ws, WORK, {"agent": "x", "after": 0}, 5)
        resumed = await collect(ws, WORK, {"agent": "w", "after": for_w[0]["workAvailable"]["seq"]}, 1)
        only_first = await collect(ws, WORK, {"agent": "x", "workflowId": first, "after": 0}, 2)
    assert wakes(for_w) == [
        (first, "workflow_executing"),
        (first, "step_completed"),  # a: b depends on it (b's completion, the last, wakes nobody)
        (second, "workflow_executing"),
        (sentinel, "workflow_executing"),
    ]
    # x's step: only x hears its back-off end
    assert wakes(for_x)[3:] == [(second, "retry_due"), (sentinel, "workflow_executing")]
    assert resumed == for_w[1:2]
    assert wakes(only_first) == [(first, "workflow_executing"), (first, "step_completed")]


async def test_a_queued_workflow_that_gets_a_slot_wakes_workers(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    live_server.app.state.runtime.settings = live_server.settings.model_copy(
        update={"workflow_slots_per_tenant": 1}
    )
    busy = await started(client, {"name": "only"})
    waiting = await started(client, {"name": "next"})
    claim = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]
    assert claim["workflow"]["id"] == busy
    await client.execute(ops.COMPLETE, {"stepId": claim["step"]["id"], "agent": "w"})  # frees the slot
    live_server.call(run_workflow_timers(live_server.app.state.runtime))  # promotes the queued one
    async with ws_session(live_server.ws_url) as ws:
        results = await collect(ws, WORK, {"agent": "w", "workflowId": waiting, "after": 0}, 1)
    assert wakes(results) == [(waiting, "workflow_executing")]


@pytest.fixture
async def bound_keys(settings: Settings, clock: FakeClock) -> AsyncIterator[dict[str, str]]:
    db = Database(settings.database_url)
    keys = {
        "alice": (await create_key(db, "tenant-a", Role.AGENT, "alice", clock.now(), ["alice"]))[1],
        "other": (await create_key(db, "tenant-b", Role.AGENT, "b", clock.now()))[1],
    }
    yield keys
    await db.dispose()


async def test_a_bound_key_hears_only_its_agent_and_its_tenant(
    bound_keys: dict[str, str], live_server: LiveServer
) -> None:
    alice, other = (
        GraphQLClient(live_server.url, bound_keys["alice"]),
        GraphQLClient(live_server.url, bound_keys["other"]),
    )
    try:
        refused = await alice.post(ops.CLAIM, {"agent": "bob"})
        errors = refused.json()["data"]["claimWorkflowStep"]["userErrors"]
        assert [(e["code"], e["field"]) for e in errors] == [("FORBIDDEN", ["agent"])]
        await started(other, {"name": "elsewhere"})
        mine = await started(alice, {"name": "here"})
        async with ws_session(live_server.ws_url, bound_keys["alice"]) as ws:
            with pytest.raises(Exception, match="acts as alice, not as bob"):
                await collect(ws, WORK, {"agent": "bob", "after": 0}, 1, within=10)
        async with ws_session(live_server.ws_url, bound_keys["alice"]) as ws:
            results = await collect(ws, WORK, {"agent": "alice", "after": 0}, 1)
        assert wakes(results) == [(mine, "workflow_executing")]
    finally:
        await alice.aclose()
        await other.aclose()


async def claim_one(client: GraphQLClient, workflow_id: str) -> dict[str, Any]:
    claimed: dict[str, Any] = (await client.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))[
        "claimWorkflowStep"
    ]
    return claimed


async def test_only_finishing_a_step_that_others_depend_on_wakes_workers(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    """Completing or skipping a step wakes workers only when a step depends on it;
    compensation still wakes its agent when it is planned and after each one is undone."""
    no_retry = {"maxRetries": 0, "backoff": "CONSTANT", "initialDelay": "1s"}
    skip = {"onFailure": "SKIP", "retryPolicy": no_retry}
    dag = await started(
        client,
        {"name": "lone"},
        {"name": "a"},
        {"name": "s", **skip},
        {"name": "s2", **skip},
        {"name": "b", "dependsOn": ["a"]},
        {"name": "t", "dependsOn": ["s"]},
    )
    for expected in ["lone", "a", "s", "s2", "b", "t"]:
        step = (await claim_one(client, dag))["step"]
        assert step["name"] == expected
        if expected.startswith("s"):
            failed = {"stepId": step["id"], "agent": "w", "category": "TRANSIENT", "message": "no"}
            assert (await client.execute(ops.FAIL, failed))["failWorkflowStep"]["userErrors"] == []
        else:
            await client.execute(ops.COMPLETE, {"stepId": step["id"], "agent": "w"})
    undo = await started(
        client,
        {"name": "x"},
        {"name": "y", "dependsOn": ["x"], "retryPolicy": no_retry},
        compensation=[{"step": "x", "action": "undo x", "agent": "w"}],
        failurePolicy="COMPENSATE",
    )
    x = (await claim_one(client, undo))["step"]
    await client.execute(ops.COMPLETE, {"stepId": x["id"], "agent": "w"})
    y = (await claim_one(client, undo))["step"]
    failed = {"stepId": y["id"], "agent": "w", "category": "TRANSIENT", "message": "no"}
    await client.execute(ops.FAIL, failed)  # the workflow compensates: x is undone
    compensation = (await claim_one(client, undo))["compensation"]
    await client.execute(ops.COMPLETE_COMPENSATION, {"id": compensation["id"], "agent": "w"})
    sentinel = await started(client, {"name": "later"})
    async with ws_session(live_server.ws_url) as ws:
        results = await collect(ws, WORK, {"agent": "w", "after": 0}, 8)
    assert wakes(results) == [
        (dag, "workflow_executing"),
        (dag, "step_completed"),  # a (b depends on it); lone, b and t wake nobody
        (dag, "step_skipped"),  # s (t depends on it); s2 wakes nobody
        (undo, "workflow_executing"),
        (undo, "step_completed"),  # x
        (undo, "compensation_planned"),
        (undo, "compensation_completed"),
        (sentinel, "workflow_executing"),
    ]
