"""The Worker's completions ride on its claims (issue 13 item 7, session 6), against a real server.

``CompleteThenClaimWorkflowSteps`` is one mutation document with ``completeWorkflowSteps`` then
``claimWorkflowSteps``: the completions commit first (their dependents may be claimed in the same
request), each part answers with its own userErrors, and a completion part that fails as a whole stops
the claim from running at all (a mutation's root fields run in order; a failed one ends the rest).
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
from server.services.workflows import reports
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

STEPS = """
query Steps($id: ID!) {
  workflow(id: $id) { status steps(first: 100) { edges { node { id name status attempt claimedBy } } } }
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


def done(step_id: str, attempt: int = 1) -> StepCompletionInput:
    return StepCompletionInput(stepId=step_id, attempt=attempt, output={"ok": True})


async def test_completions_commit_before_the_claim_and_each_part_answers_for_itself(
    client: GraphQLClient, typed: FlightdeckGraphQL
) -> None:
    workflow_id = await started(client, {"name": "a"}, {"name": "b", "dependsOn": ["a"]}, {"name": "c"})
    a = (await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id)).claim_workflow_steps.steps[0]
    c_id = (await steps_of(client, workflow_id))["c"]["id"]
    # a is ours; c is not claimed by anyone: refused, and the rest goes on.
    both = await typed.complete_then_claim_workflow_steps(
        "w", [done(a.id), done(c_id)], 2, workflow_id=workflow_id
    )
    first, second = both.complete_workflow_steps.results
    assert first.user_errors == []
    assert first.step is not None
    assert first.step.status.value == "COMPLETED"
    assert [(e.code.value, e.field) for e in second.user_errors] == [
        ("INVALID_TRANSITION", ["steps", "1", "stepId"])
    ]
    # b became claimable by a's completion in the same request: the completions ran first.
    assert [s.name for s in both.claim_workflow_steps.steps] == ["b", "c"]
    assert both.claim_workflow_steps.user_errors == []
    # A refused claim part (maxSteps out of range) does not take the completions' answers with it.
    b = both.claim_workflow_steps.steps[0]
    refused = await typed.complete_then_claim_workflow_steps("w", [done(b.id)], 0, workflow_id=workflow_id)
    assert refused.complete_workflow_steps.results[0].user_errors == []
    assert [e.code.value for e in refused.claim_workflow_steps.user_errors] == ["VALIDATION_FAILED"]
    assert (await steps_of(client, workflow_id))["b"]["status"] == "COMPLETED"


async def test_a_completion_part_that_fails_as_a_whole_claims_nothing(
    client: GraphQLClient, typed: FlightdeckGraphQL, monkeypatch: pytest.MonkeyPatch
) -> None:
    workflow_id = await started(client, {"name": "a"}, {"name": "b"})
    a = (await typed.claim_workflow_steps("w", 1, workflow_id=workflow_id)).claim_workflow_steps.steps[0]

    async def broken(*_: Any) -> list[Any]:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(reports, "complete_workflow_steps", broken)
    with pytest.raises(GraphQLClientGraphQLMultiError) as raised:
        await typed.complete_then_claim_workflow_steps("w", [done(a.id)], 1, workflow_id=workflow_id)
    assert [e.path for e in raised.value.errors] == [["completeWorkflowSteps"]]
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
        sent.append((body["operationName"], len(body.get("variables", {}).get("steps") or [])))

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
    assert {op for op, _ in while_claiming} <= {"ClaimWorkflowSteps", "CompleteThenClaimWorkflowSteps"}
    assert sum(n for op, n in while_claiming if op == "CompleteThenClaimWorkflowSteps") == len(names)
    assert after_stop == [("CompleteWorkflowSteps", 1)]
