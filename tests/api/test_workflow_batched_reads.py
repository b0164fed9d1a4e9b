"""Lists that select a workflow's compensations or a step's workflow read them in one statement, not one
per item (DataLoaders), counted with SQLAlchemy's before_cursor_execute on a real server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from server.config import Settings
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer


@pytest.fixture
def settings(db_url: str) -> Settings:
    # No background loop may read these tables while statements are counted.
    return Settings(
        database_url=db_url, workflow_timer_interval_seconds=3600, stall_scan_interval_seconds=3600
    )


ROLLED_BACK_LATER = {
    "name": "undo-me",
    "failurePolicy": "COMPENSATE",
    "steps": [{"name": "create"}, {"name": "configure", "dependsOn": ["create"]}],
    "compensation": [{"step": "create", "action": "Delete it", "agent": "undoer"}],
}
GATED = {
    "name": "gated",
    "steps": [{"name": "gate", "approval": True}, {"name": "ship", "dependsOn": ["gate"]}],
}

WORKFLOW_LIST = """
query List($first: Int!) {
  workflows(first: $first) { edges { node { id name compensations { stepName status position } } } }
}
"""
REVIEW_QUEUE = """
query Queue($first: Int!) {
  workflowStepsAwaitingReview(first: $first) { edges { node { id name workflow { id name status } } } }
}
"""


@contextmanager
def statements(live: LiveServer) -> Iterator[list[str]]:
    """Every SQL statement the server runs inside the block, on its read and write engines."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    db = live.app.state.runtime.db
    engines = {id(e): e.sync_engine for e in (db.read_engine, db.write_engine)}.values()
    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)


def reading(seen: list[str], table: str) -> list[str]:
    return [s for s in seen if s.lstrip().upper().startswith("SELECT") and f"FROM {table}" in s]


async def compensating(client: GraphQLClient) -> str:
    """A workflow whose second step failed: it compensates the first."""
    created = (await client.execute(ops.CREATE, {"input": ROLLED_BACK_LATER}))["createWorkflow"]
    workflow_id = str(created["workflow"]["id"])
    await client.execute(ops.START, {"id": workflow_id})
    first = (await client.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))["claimWorkflowStep"]
    await client.execute(ops.COMPLETE, {"stepId": first["step"]["id"], "agent": "w"})
    second = (await client.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))["claimWorkflowStep"]
    failed = await client.execute(
        ops.FAIL, {"stepId": second["step"]["id"], "agent": "w", "category": "VALIDATION", "message": "no"}
    )
    assert failed["failWorkflowStep"]["workflow"]["status"] == "COMPENSATING"
    return workflow_id


async def gated(client: GraphQLClient) -> str:
    created = (await client.execute(ops.CREATE, {"input": GATED}))["createWorkflow"]
    workflow_id = str(created["workflow"]["id"])
    started = await client.execute(ops.START, {"id": workflow_id})
    assert started["startWorkflow"]["workflow"]["status"] == "BLOCKED"  # the root gate opened at once
    return workflow_id


async def test_a_workflow_list_reads_every_workflows_compensations_in_one_statement(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    ids = [await compensating(client) for _ in range(3)]
    idle = (await client.execute(ops.CREATE, {"input": GATED}))["createWorkflow"]["workflow"]["id"]

    with statements(live_server) as seen:
        listed = (await client.execute(WORKFLOW_LIST, {"first": 10}))["workflows"]["edges"]
    assert len(reading(seen, "workflow_compensations")) == 1

    by_id = {e["node"]["id"]: e["node"]["compensations"] for e in listed}
    assert set(by_id) == {*ids, idle}
    assert by_id[idle] == []
    for workflow_id in ids:
        assert by_id[workflow_id] == [{"stepName": "create", "status": "PENDING", "position": 1}]


async def test_the_review_queue_reads_the_workflows_of_its_steps_in_one_statement(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    ids = [await gated(client) for _ in range(4)]

    with statements(live_server) as seen:
        queue = (await client.execute(REVIEW_QUEUE, {"first": 10}))["workflowStepsAwaitingReview"]["edges"]
    assert len(reading(seen, "workflows")) == 1

    assert sorted(e["node"]["workflow"]["id"] for e in queue) == sorted(ids)
    assert {
        (e["node"]["name"], e["node"]["workflow"]["name"], e["node"]["workflow"]["status"]) for e in queue
    } == {("gate", "gated", "BLOCKED")}
