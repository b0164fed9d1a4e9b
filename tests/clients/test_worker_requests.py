"""The Worker's completions ride on its claims, against a real server.

``claimWorkflowSteps(completed: ...)`` reports the completions first and claims in the same
transaction: their dependents may be
claimed in the same request, each completion answers with its own userErrors, a refused claim leaves
the completions done, and a request that fails on the server leaves both undone.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from flightdeck_client import StepRun, Worker
from flightdeck_client.connection import connect
from flightdeck_client.generated.client import FlightdeckGraphQL
from flightdeck_client.generated.exceptions import GraphQLClientGraphQLMultiError
from flightdeck_client.generated.input_types import StepCompletionInput

from server.config import Settings
from server.services.workflows import claims
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

STEPS = """
query Steps($id: ID!) {
  workflow(id: $id) { status steps(first: 100) { edges { node { id name status attempt claimedBy } } } }
}
"""

EVENTS = """
query Events($root: ID!, $after: Int!) {
  events(rootId: $root, after: $after) { edges { node { seq kind toState createdAt } } }
}
"""


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, workflow_timer_interval_seconds=0.05)


@pytest.fixture
async def typed(live_server: LiveServer) -> AsyncIterator[FlightdeckGraphQL]:
    made = connect(live_server.url)
    yield made
    await made.http_client.aclose()


async def started(client: GraphQLClient, *steps: dict[str, Any]) -> str:
    created = await client.execute(ops.CREATE, {"input": {"name": "w", "steps": list(steps)}})
    workflow_id: str = created["createWorkflow"]["workflow"]["id"]
    await client.execute(ops.START, {"id": workflow_id})
    return workflow_id


async def steps_of(client: GraphQLClient, workflow_id: str) -> dict[str, dict[str, Any]]:
    workflow = (await client.execute(STEPS, {"id": workflow_id}))["workflow"]
    return {e["node"]["name"]: e["node"] for e in workflow["steps"]["edges"]}


async def events_after(client: GraphQLClient, root_id: str, seq: int) -> list[dict[str, Any]]:
    page = await client.execute(EVENTS, {"root": root_id, "after": seq})
    return [edge["node"] for edge in page["events"]["edges"]]


def done(step_id: str, attempt: int = 1) -> StepCompletionInput:
    return StepCompletionInput(stepId=step_id, attempt=attempt, output={"ok": True})


async def test_completions_go_first_in_the_claims_transaction_and_each_answers_for_itself(
    client: GraphQLClient, typed: FlightdeckGraphQL
) -> None:
    workflow_id = await started(client, {"name": "a"}, {"name": "b", "dependsOn": ["a"]}, {"name": "c"})
    a = (await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id)).claim_workflow_steps.steps[0]
    c_id = (await steps_of(client, workflow_id))["c"]["id"]
    seq = (await typed.latest_seq()).latest_seq
    # a is ours; c is not claimed by anyone: refused, and the rest goes on.
    both = (
        await typed.claim_workflow_steps("w", 2, workflow_id=workflow_id, completed=[done(a.id), done(c_id)])
    ).claim_workflow_steps
    first, second = both.completed
    assert first.user_errors == []
    assert first.step is not None
    assert first.step.status.value == "COMPLETED"
    assert [(e.code.value, e.field) for e in second.user_errors] == [
        ("INVALID_TRANSITION", ["completed", "1", "stepId"])
    ]
    # b became claimable by a's completion in the same request: the completion went first.
    assert [s.name for s in both.steps] == ["b", "c"]
    assert both.user_errors == []
    # One transaction: a's completion and the two claims are consecutive events stamped at one time.
    events = await events_after(client, workflow_id, seq)
    kinds = [(e["kind"], e["toState"]) for e in events]
    assert kinds == [
        ("workflow_step_transitioned", "completed"),
        ("workflow_step_transitioned", "running"),
        ("workflow_step_claimed", None),
        ("workflow_step_transitioned", "running"),
        ("workflow_step_claimed", None),
    ], kinds
    assert len({e["createdAt"] for e in events}) == 1
    # A refused claim (maxSteps out of range) rolls back with its transaction; the completions are
    # then reported alone and stand.
    b = both.steps[0]
    refused = (
        await typed.claim_workflow_steps("w", 0, workflow_id=workflow_id, completed=[done(b.id)])
    ).claim_workflow_steps
    assert [r.user_errors for r in refused.completed] == [[]]
    assert [(e.code.value, e.field) for e in refused.user_errors] == [("VALIDATION_FAILED", ["maxSteps"])]
    assert (await steps_of(client, workflow_id))["b"]["status"] == "COMPLETED"


async def test_completions_of_two_workflows_commit_in_turn_and_the_claim_goes_with_the_last(
    client: GraphQLClient, typed: FlightdeckGraphQL
) -> None:
    one = await started(client, {"name": "a1"})
    two = await started(client, {"name": "a2"}, {"name": "b2", "dependsOn": ["a2"]})
    a1 = (await typed.claim_workflow_steps("w", 1, workflow_id=one)).claim_workflow_steps.steps[0]
    a2 = (await typed.claim_workflow_steps("w", 1, workflow_id=two)).claim_workflow_steps.steps[0]
    claimed = (
        await typed.claim_workflow_steps("w", 1, completed=[done(a1.id), done(a2.id)])
    ).claim_workflow_steps
    assert [(r.step.status.value if r.step else None, r.user_errors) for r in claimed.completed] == [
        ("COMPLETED", []),
        ("COMPLETED", []),
    ]
    assert [s.name for s in claimed.steps] == ["b2"]
    assert (await client.execute(ops.WORKFLOW, {"id": one}))["workflow"]["status"] == "COMPLETED"


async def test_too_many_completions_are_refused_before_anything_is_written(
    client: GraphQLClient, typed: FlightdeckGraphQL
) -> None:
    workflow_id = await started(client, {"name": "a"}, {"name": "b"})
    a = (await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id)).claim_workflow_steps.steps[0]
    refused = (
        await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id, completed=[done(a.id)] * 101)
    ).claim_workflow_steps
    assert [(e.code.value, e.field) for e in refused.user_errors] == [("VALIDATION_FAILED", ["completed"])]
    assert (refused.completed, refused.steps) == ([], [])
    after = await steps_of(client, workflow_id)
    assert (after["a"]["status"], after["b"]["status"]) == ("RUNNING", "PENDING")


async def test_a_request_that_fails_on_the_server_leaves_the_completions_and_the_claim_undone(
    client: GraphQLClient, typed: FlightdeckGraphQL, monkeypatch: pytest.MonkeyPatch
) -> None:
    workflow_id = await started(client, {"name": "a"}, {"name": "b"})
    a = (await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id)).claim_workflow_steps.steps[0]

    async def broken(*_: Any) -> list[Any]:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(claims, "claim_many", broken)
    with pytest.raises(GraphQLClientGraphQLMultiError) as raised:
        await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id, completed=[done(a.id)])
    assert [e.path for e in raised.value.errors] == [["claimWorkflowSteps"]]
    after = await steps_of(client, workflow_id)
    assert (after["a"]["status"], after["b"]["status"], after["b"]["attempt"]) == ("RUNNING", "PENDING", 0)


async def test_a_worker_sends_its_completions_with_its_claims_and_alone_once_stopping(
    live_server: LiveServer, client: GraphQLClient, typed: FlightdeckGraphQL
) -> None:
    names = [f"q{i}" for i in range(12)]
    workflow_id = await started(client, *({"name": n} for n in names), {"name": "slow"})
    sent: list[tuple[str, int]] = []  # operation, completions carried

    async def record(request: httpx.Request) -> None:
        body = json.loads(request.content)
        variables = body.get("variables", {})
        sent.append((body["operationName"], len(variables.get("completed") or variables.get("steps") or [])))

    typed.http_client.event_hooks["request"].append(record)
    worker = Worker(typed, "w", concurrency=4, workflow_id=workflow_id, wake_ups=False, idle_poll=0.2)
    release = asyncio.Event()
    ran: list[str] = []

    @worker.step("slow")
    async def slow(step: StepRun) -> str:
        await release.wait()
        return "late"

    async def quick(step: StepRun) -> str:
        ran.append(step.name)
        return step.name

    worker.default_handler = quick
    serving = asyncio.create_task(worker.serve())
    try:

        async def quick_ones_done() -> bool:
            now = await steps_of(client, workflow_id)
            return all(now[n]["status"] == "COMPLETED" for n in names) and now["slow"]["status"] == "RUNNING"

        for _ in range(200):
            if await quick_ones_done():
                break
            await asyncio.sleep(0.05)
        assert await quick_ones_done()
        stopped_at = len(sent)
        worker.stop()  # graceful: no more claims; the slow step's completion goes alone
        release.set()
        await asyncio.wait_for(serving, 10)
    finally:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        serving.cancel()
    assert sorted(ran) == sorted(names)
    assert (await steps_of(client, workflow_id))["slow"]["status"] == "COMPLETED"
    while_claiming, after_stop = sent[:stopped_at], sent[stopped_at:]
    assert {op for op, _ in while_claiming} == {"ClaimWorkflowSteps"}
    assert sum(n for _, n in while_claiming) == len(names)
    assert after_stop == [("CompleteWorkflowSteps", 1)]
