"""workflowUpdated and the workflow's event stream over graphql-transport-ws against a real server."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from gql import GraphQLRequest

from server.config import Settings
from server.loops.workflow_timers import run_workflow_timers
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import EVENTS, collect, ws_session


@pytest.fixture
def settings(db_url: str) -> Settings:
    # The server's own timer loop stays out of the way: the test runs the timers itself, when it chooses.
    return Settings(database_url=db_url, workflow_timer_interval_seconds=3600)


DEFINITION = {
    "name": "watched",
    "steps": [
        {"name": "fetch", "retryPolicy": {"maxRetries": 1, "backoff": "CONSTANT", "initialDelay": "10s"}},
        {"name": "slow", "dependsOn": ["fetch"], "timeout": "1m", "onFailure": "SKIP"},
        {"name": "gate", "dependsOn": ["slow"], "approval": True},
    ],
}


async def started(client: GraphQLClient) -> str:
    created = (await client.execute(ops.CREATE, {"input": DEFINITION}))["createWorkflow"]
    workflow_id: str = created["workflow"]["id"]
    await client.execute(ops.START, {"id": workflow_id})
    return workflow_id


def state(update: dict[str, Any]) -> tuple[str, dict[str, tuple[str, int, str | None]]]:
    w = update["workflowUpdated"]
    steps = {
        e["node"]["name"]: (e["node"]["status"], e["node"]["attempt"], e["node"]["blockedOn"])
        for e in w["steps"]["edges"]
    }
    return w["status"], steps


async def test_workflow_updated_sends_a_snapshot_then_every_change_retries_and_timeouts_included(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    workflow_id = await started(client)
    runtime = live_server.app.state.runtime
    async with ws_session(live_server.ws_url) as ws:
        updates: list[dict[str, Any]] = []
        seen = asyncio.Event()

        async def watch() -> None:
            async for result in ws.subscribe(
                GraphQLRequest(ops.WORKFLOW_UPDATED, variable_values={"id": workflow_id})
            ):
                updates.append(result)
                seen.set()

        async def next_update(count: int) -> None:
            async with asyncio.timeout(20):
                while len(updates) < count:
                    seen.clear()
                    await seen.wait()

        task = asyncio.create_task(watch())
        try:
            await next_update(1)  # the snapshot
            fetch = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
            await next_update(2)
            await client.execute(
                ops.FAIL, {"stepId": fetch["id"], "agent": "w", "category": "TRANSIENT", "message": "429"}
            )
            await next_update(3)
            live_server.clock.advance(timedelta(seconds=10))
            again = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
            await next_update(4)
            await client.execute(ops.COMPLETE, {"stepId": again["id"], "agent": "w"})
            await next_update(5)
            await client.execute(ops.CLAIM, {"agent": "w"})  # slow
            await next_update(6)
            live_server.clock.advance(timedelta(minutes=1))
            live_server.call(run_workflow_timers(runtime))
            await next_update(7)
        finally:
            task.cancel()
    states = [state(u) for u in updates]
    assert states[0] == (
        "EXECUTING",
        {"fetch": ("PENDING", 0, None), "slow": ("PENDING", 0, None), "gate": ("PENDING", 0, None)},
    )
    assert states[1][1]["fetch"] == ("RUNNING", 1, None)
    assert states[2][1]["fetch"] == ("PENDING", 1, None)  # the retry: running -> pending
    assert states[3][1]["fetch"] == ("RUNNING", 2, None)
    assert states[4][1]["fetch"] == ("COMPLETED", 2, None)
    assert states[5][1]["slow"] == ("RUNNING", 1, None)
    # The timeout skipped "slow", which opened the gate and blocked the workflow: one commit, one update.
    assert states[6] == (
        "BLOCKED",
        {"fetch": ("COMPLETED", 2, None), "slow": ("SKIPPED", 1, None), "gate": ("RUNNING", 0, "APPROVAL")},
    )


async def test_the_event_stream_filters_to_one_workflow(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    first, _second = await started(client), await started(client)
    await client.execute(ops.CLAIM, {"agent": "w", "workflowId": first})  # after the second's events
    async with ws_session(live_server.ws_url) as ws:
        results = await collect(
            ws, EVENTS, {"after": 0, "filter": {"rootType": "workflow", "rootId": first}}, 5
        )
    assert {r["events"]["rootId"] for r in results} == {first}
    assert [(r["events"]["kind"], r["events"]["toState"]) for r in results] == [
        ("workflow_created", None),
        ("workflow_transitioned", "queued"),
        ("workflow_transitioned", "executing"),
        ("workflow_step_transitioned", "running"),
        ("workflow_step_claimed", None),
    ]


async def test_workflow_updated_for_an_unknown_workflow_is_an_error(live_server: LiveServer) -> None:
    async with ws_session(live_server.ws_url) as ws:
        with pytest.raises(Exception, match="not found"):
            await collect(
                ws, ops.WORKFLOW_UPDATED, {"id": "00000000-0000-0000-0000-000000000000"}, 1, within=10
            )
