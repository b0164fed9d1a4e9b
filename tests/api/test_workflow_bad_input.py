"""Bad input to the workflow mutations, through a real server: a clear userError and not one row changed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from server.config import Settings
from tests.api import workflow_operations as ops
from tests.api.test_bad_input import TABLES as PLAN_TABLES
from tests.api.test_bad_input import Tables, assert_rejected, payload_of
from tests.conftest import GraphQLClient

MAX_TEXT = 64
MAX_RESULT = 256
MAX_STEPS = 5
TABLES = ("workflows", "workflow_steps", "workflow_compensations")
VALIDATION_FAILED, NOT_FOUND = "VALIDATION_FAILED", "NOT_FOUND"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(
        database_url=db_url, max_text_bytes=MAX_TEXT, max_result_bytes=MAX_RESULT, max_steps=MAX_STEPS
    )


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine, (*PLAN_TABLES, *TABLES))
    await engine.dispose()


@pytest.fixture
async def claimed(client: GraphQLClient) -> dict[str, str]:
    """A running workflow with one claimed step and a compensation-free second one."""
    created = await payload_of(
        client, ops.CREATE, {"input": {"name": "w", "steps": [{"name": "a"}, {"name": "b"}]}}
    )
    workflow_id = created["workflow"]["id"]
    await payload_of(client, ops.START, {"id": workflow_id})
    step = (await payload_of(client, ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))["step"]
    return {"workflow": workflow_id, "step": step["id"]}


async def test_oversized_or_overlong_definitions_are_refused(client: GraphQLClient, tables: Tables) -> None:
    async with tables.unchanged():
        payload = await payload_of(client, ops.CREATE_FROM_YAML, {"yaml": "name: x\n# " + "y" * MAX_RESULT})
        assert_rejected(payload, (VALIDATION_FAILED, ["yaml"]))
        too_many = {"name": "x", "steps": [{"name": f"s{i}"} for i in range(MAX_STEPS + 1)]}
        assert_rejected(
            await payload_of(client, ops.CREATE, {"input": too_many}), (VALIDATION_FAILED, ["steps"])
        )
        long_name = {"name": "x", "steps": [{"name": "n" * 201}]}
        assert_rejected(
            await payload_of(client, ops.CREATE, {"input": long_name}),
            (VALIDATION_FAILED, ["steps", "0", "name"]),
        )
        long_action = {
            "name": "x",
            "steps": [{"name": "a"}],
            "compensation": [{"step": "a", "action": "z" * (MAX_TEXT + 1), "agent": "u"}],
        }
        assert_rejected(
            await payload_of(client, ops.CREATE, {"input": long_action}),
            (VALIDATION_FAILED, ["compensation", "0", "action"]),
        )


async def test_bad_reports_are_refused(
    client: GraphQLClient, tables: Tables, claimed: dict[str, str]
) -> None:
    step_id = claimed["step"]
    async with tables.unchanged():
        big = {"stepId": step_id, "agent": "w", "output": {"blob": "x" * MAX_RESULT}}
        assert_rejected(await payload_of(client, ops.COMPLETE, big), (VALIDATION_FAILED, ["output"]))
        empty = {"stepId": step_id, "agent": "w", "category": "TRANSIENT", "message": ""}
        assert_rejected(await payload_of(client, ops.FAIL, empty), (VALIDATION_FAILED, ["message"]))
        assert_rejected(await payload_of(client, ops.CLAIM, {"agent": ""}), (VALIDATION_FAILED, ["agent"]))
        assert_rejected(
            await payload_of(client, ops.REJECT, {"stepId": step_id, "reason": ""}),
            (VALIDATION_FAILED, ["reason"]),
        )
        response = await client.post(ops.FAIL, {**empty, "message": "m", "category": "COSMIC_RAY"})
        assert response.status_code == 400
        assert "errors" in response.json()


IdCase = tuple[str, Callable[[str], dict[str, Any]], list[str]]
ID_CASES: dict[str, IdCase] = {
    "startWorkflow": (ops.START, lambda x: {"id": x}, ["workflowId"]),
    "claimWorkflowStep": (ops.CLAIM, lambda x: {"agent": "w", "workflowId": x}, ["workflowId"]),
    "completeWorkflowStep": (ops.COMPLETE, lambda x: {"stepId": x, "agent": "w"}, ["stepId"]),
    "failWorkflowStep": (
        ops.FAIL,
        lambda x: {"stepId": x, "agent": "w", "category": "TRANSIENT", "message": "m"},
        ["stepId"],
    ),
    "heartbeatWorkflowStep": (ops.HEARTBEAT, lambda x: {"stepId": x, "agent": "w"}, ["stepId"]),
    "approveWorkflowStep": (ops.APPROVE, lambda x: {"stepId": x}, ["stepId"]),
    "rejectWorkflowStep": (ops.REJECT, lambda x: {"stepId": x, "reason": "no"}, ["stepId"]),
    "completeWorkflowCompensation": (
        ops.COMPLETE_COMPENSATION,
        lambda x: {"id": x, "agent": "u"},
        ["compensationId"],
    ),
    "failWorkflowCompensation": (
        ops.FAIL_COMPENSATION,
        lambda x: {"id": x, "agent": "u", "message": "m"},
        ["compensationId"],
    ),
}


@pytest.mark.parametrize("case", sorted(ID_CASES))
async def test_unknown_and_malformed_ids(
    client: GraphQLClient, tables: Tables, claimed: dict[str, str], case: str
) -> None:
    document, variables, field = ID_CASES[case]
    async with tables.unchanged():
        assert_rejected(await payload_of(client, document, variables(str(uuid.uuid4()))), (NOT_FOUND, field))
        assert_rejected(
            await payload_of(client, document, variables("not-an-id")), (VALIDATION_FAILED, field)
        )
    # Ids of the other kind are not found either: a step id is not a workflow id.
    other = claimed["step"] if field == ["workflowId"] else claimed["workflow"]
    async with tables.unchanged():
        assert_rejected(await payload_of(client, document, variables(other)), (NOT_FOUND, field))
