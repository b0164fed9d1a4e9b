"""Many workers claim workflow steps at once, through two server instances on one database."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from sqlalchemy import select

from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from server.db.workflow_models import WorkflowStep
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

WORKERS = 24
WIDTH = 10  # parallel branches after the root


async def test_every_parallel_branch_goes_to_exactly_one_worker(
    two_servers: tuple[LiveServer, LiveServer], settings: Settings
) -> None:
    clients = [GraphQLClient(s.url) for s in two_servers]
    try:
        steps = [{"name": "root"}] + [{"name": f"branch-{i}", "dependsOn": ["root"]} for i in range(WIDTH)]
        created = (await clients[0].execute(ops.CREATE, {"input": {"name": "fan-out", "steps": steps}}))[
            "createWorkflow"
        ]
        workflow_id = created["workflow"]["id"]
        await clients[1].execute(ops.START, {"id": workflow_id})
        root = (await clients[0].execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
        await clients[1].execute(ops.COMPLETE, {"stepId": root["id"], "agent": "w"})

        async def worker(i: int) -> dict[str, Any]:
            data = await clients[i % 2].execute(
                ops.CLAIM, {"agent": f"worker-{i}", "workflowId": workflow_id}
            )
            result: dict[str, Any] = data["claimWorkflowStep"]
            return result

        results = await asyncio.gather(*(worker(i) for i in range(WORKERS)))
    finally:
        for c in clients:
            await c.aclose()

    assert all(r["userErrors"] == [] for r in results)
    assert Counter(r["outcome"] for r in results) == {"STEP": WIDTH, "NONE": WORKERS - WIDTH}
    won = {r["step"]["name"]: r["step"]["claimedBy"] for r in results if r["outcome"] == "STEP"}
    assert sorted(won) == sorted(f"branch-{i}" for i in range(WIDTH))

    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            rows = (
                await session.scalars(select(WorkflowStep).where(WorkflowStep.workflow_id == workflow_id))
            ).all()
            claims = (
                await session.scalars(
                    select(Event.entity_id).where(
                        Event.root_id == workflow_id, Event.kind == "workflow_step_claimed"
                    )
                )
            ).all()
    finally:
        await db.dispose()
    branches = {r.name: r for r in rows if r.name != "root"}
    assert {(r.status, r.attempt) for r in branches.values()} == {("running", 1)}
    assert {name: r.claimed_by for name, r in branches.items()} == won
    assert Counter(claims) == {r.id: 1 for r in rows}


CLAIM_MANY = """
mutation ClaimMany($agent: String!, $workflowId: ID, $maxSteps: Int!) {
  claimWorkflowSteps(agent: $agent, workflowId: $workflowId, maxSteps: $maxSteps) {
    outcome reason steps { id name status attempt claimedBy } userErrors { code field }
  }
}
"""


async def test_batch_claims_through_two_servers_hand_every_step_out_once(
    two_servers: tuple[LiveServer, LiveServer], settings: Settings
) -> None:
    """claimWorkflowSteps racing single claims: 60 independent steps, 20 workers asking for up to 4."""
    clients = [GraphQLClient(s.url) for s in two_servers]
    try:
        steps = [{"name": f"s{i}"} for i in range(60)]
        created = await clients[0].execute(ops.CREATE, {"input": {"name": "wide", "steps": steps}})
        workflow_id = created["createWorkflow"]["workflow"]["id"]
        await clients[1].execute(ops.START, {"id": workflow_id})
        refused = await clients[0].execute(CLAIM_MANY, {"agent": "w", "maxSteps": 0})
        assert refused["claimWorkflowSteps"]["userErrors"] == [
            {"code": "VALIDATION_FAILED", "field": ["maxSteps"]}
        ]

        async def worker(i: int) -> list[dict[str, Any]]:
            client = clients[i % 2]
            if i % 5 == 0:  # some workers still claim one at a time
                one = (await client.execute(ops.CLAIM, {"agent": f"w{i}"}))["claimWorkflowStep"]
                return [one["step"]] if one["step"] else []
            many = await client.execute(
                CLAIM_MANY, {"agent": f"w{i}", "workflowId": workflow_id, "maxSteps": 4}
            )
            assert many["claimWorkflowSteps"]["userErrors"] == []
            got: list[dict[str, Any]] = many["claimWorkflowSteps"]["steps"]
            return got

        handed = [s for batch in await asyncio.gather(*(worker(i) for i in range(20))) for s in batch]
    finally:
        for c in clients:
            await c.aclose()
    # 4 single claims + 16 x 4 asked = 68 > 60: every step handed out, none twice.
    assert sorted(s["name"] for s in handed) == sorted(f"s{i}" for i in range(60))
    assert {(s["status"], s["attempt"]) for s in handed} == {("RUNNING", 1)}
    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            rows = (
                await session.scalars(select(WorkflowStep).where(WorkflowStep.workflow_id == workflow_id))
            ).all()
            claims = (
                await session.scalars(
                    select(Event.entity_id).where(
                        Event.root_id == workflow_id, Event.kind == "workflow_step_claimed"
                    )
                )
            ).all()
    finally:
        await db.dispose()
    assert {r.id: r.claimed_by for r in rows} == {s["id"]: s["claimedBy"] for s in handed}
    assert Counter(claims) == {r.id: 1 for r in rows}
