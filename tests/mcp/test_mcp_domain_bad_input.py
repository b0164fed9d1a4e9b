"""The workflow and mission bad-input cases of the GraphQL suite (tests/api/test_workflow_bad_input.py,
tests/api/test_mission_bad_input.py), once more through MCP: the same code on the same field, nothing
written."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from sqlalchemy.ext.asyncio import create_async_engine

from server.config import Settings
from tests.api import mission_operations as mops
from tests.api.test_bad_input import TABLES as PLAN_TABLES
from tests.api.test_bad_input import Tables
from tests.api.test_workflow_bad_input import TABLES as WORKFLOW_TABLES
from tests.conftest import GraphQLClient, LiveServer
from tests.mcp.helpers import mcp_client, ok, refused

MAX_TEXT, MAX_RESULT, MAX_STEPS = 64, 256, 3
MISSION_TABLES = ("tools", "missions", "hops", "tool_steps", "assets")
UNKNOWN = "00000000-0000-0000-0000-000000000000"
V, N = "VALIDATION_FAILED", "NOT_FOUND"


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(
        database_url=db_url, max_text_bytes=MAX_TEXT, max_result_bytes=MAX_RESULT, max_steps=MAX_STEPS
    )


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine, (*PLAN_TABLES, *WORKFLOW_TABLES, *MISSION_TABLES, "events"))
    await engine.dispose()


async def world(mcp: Client, client: GraphQLClient) -> dict[str, str]:
    """A running workflow with a claimed step; a mission whose hop has a READY_TO_CONFIGURE tool step."""
    created = await ok(
        mcp, "create_workflow_from_yaml", {"yaml": "steps:\n  - name: a\n  - name: b\n", "name": "w"}
    )
    workflow = created["workflow"]["workflowId"]
    await ok(mcp, "start_workflow", {"workflowId": workflow})
    step = (await ok(mcp, "claim_workflow_step", {"agent": "w", "workflowId": workflow}))["step"]["stepId"]
    await ok(mcp, "register_tool", {"name": "web_search", "parameterSchema": mops.SEARCH_SCHEMA})
    mission = (await ok(mcp, "propose_mission", {"title": "t", "goal": "g"}))["mission"]["missionId"]
    await client.execute(mops.mission_act("approveMission"), {"id": mission})
    hop = (await ok(mcp, "propose_hop", {"missionId": mission, "name": "h", "plan": "p"}))["hop"]["hopId"]
    await client.execute(mops.hop_act("approveHopPlan"), {"id": hop})
    done = await ok(
        mcp,
        "propose_hop_implementation",
        {"hopId": hop, "toolSteps": [{"name": "s", "toolName": "web_search"}]},
    )
    tool_step = done["toolSteps"][0]["toolStepId"]
    return {"workflow": workflow, "step": step, "mission": mission, "hop": hop, "toolStep": tool_step}


# tool, arguments ("{name}" stands for an id of the world), code, field
CASES: dict[str, tuple[str, dict[str, Any], str, list[str]]] = {
    # workflows
    "yaml too large": ("create_workflow_from_yaml", {"yaml": "name: x\n# " + "y" * MAX_RESULT}, V, ["yaml"]),
    "output too large": (
        "complete_workflow_step",
        {"stepId": "{step}", "agent": "w", "output": {"blob": "x" * MAX_RESULT}},
        V,
        ["output"],
    ),
    "empty failure message": (
        "fail_workflow_step",
        {"stepId": "{step}", "agent": "w", "category": "transient", "message": ""},
        V,
        ["message"],
    ),
    "unknown category": (
        "fail_workflow_step",
        {"stepId": "{step}", "agent": "w", "category": "cosmic_ray", "message": "m"},
        V,
        ["category"],
    ),
    "empty agent": ("claim_workflow_step", {"agent": ""}, V, ["agent"]),
    "unknown workflow": ("start_workflow", {"workflowId": UNKNOWN}, N, ["workflowId"]),
    "malformed workflow id": ("claim_workflow_step", {"agent": "w", "workflowId": "wf-1"}, V, ["workflowId"]),
    "unknown workflow step": ("heartbeat_workflow_step", {"stepId": UNKNOWN, "agent": "w"}, N, ["stepId"]),
    "a workflow id for a step id": (
        "complete_workflow_step",
        {"stepId": "{workflow}", "agent": "w"},
        N,
        ["stepId"],
    ),
    "unknown compensation": (
        "complete_workflow_compensation",
        {"compensationId": UNKNOWN, "agent": "u"},
        N,
        ["compensationId"],
    ),
    "malformed compensation id": (
        "fail_workflow_compensation",
        {"compensationId": "c-1", "agent": "u", "message": "m"},
        V,
        ["compensationId"],
    ),
    "unknown workflow to read": ("get_workflow", {"workflowId": UNKNOWN}, N, ["workflowId"]),
    # missions
    "empty title": ("propose_mission", {"title": "", "goal": "g"}, V, ["title"]),
    "long goal": ("propose_mission", {"title": "t", "goal": "g" * (MAX_TEXT + 1)}, V, ["goal"]),
    "unknown mission": ("propose_hop", {"missionId": UNKNOWN, "name": "h", "plan": "p"}, N, ["missionId"]),
    "malformed mission id": ("propose_hop", {"missionId": "m-1", "name": "h", "plan": "p"}, V, ["missionId"]),
    "parameters not an object": (
        "configure_tool_step",
        {"toolStepId": "{toolStep}", "parameters": ["q"]},
        V,
        ["parameters"],
    ),
    "parameters too large": (
        "configure_tool_step",
        {"toolStepId": "{toolStep}", "parameters": {"query": "q" * 300}},
        V,
        ["parameters"],
    ),
    "parameters the schema refuses": (
        "configure_tool_step",
        {"toolStepId": "{toolStep}", "parameters": {"query": ""}},
        V,
        ["parameters", "query"],
    ),
    "schema not a schema": (
        "register_tool",
        {"name": "t", "parameterSchema": {"type": 5}},
        V,
        ["parameterSchema"],
    ),
    "negative ttl": (
        "propose_asset",
        {"missionId": "{mission}", "name": "a", "ttlSeconds": -1},
        V,
        ["ttlSeconds"],
    ),
    "empty reason": ("fail_tool_step", {"toolStepId": "{toolStep}", "reason": ""}, V, ["reason"]),
    "select a tool twice": (
        "select_tool",
        {"toolStepId": "{toolStep}", "toolName": "web_search"},
        "INVALID_TRANSITION",
        ["toolStepId"],
    ),
    "unknown hop": ("start_hop", {"hopId": UNKNOWN}, N, ["hopId"]),
    "too many tool steps": (
        "propose_hop_implementation",
        {"hopId": "{hop}", "toolSteps": [{"name": f"s{i}"} for i in range(MAX_STEPS + 1)]},
        V,
        ["toolSteps"],
    ),
    "unknown mission to read": ("get_mission", {"missionId": UNKNOWN}, N, ["missionId"]),
}


def _fill(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, ids) for v in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") and value[1:-1] in ids:
        return ids[value[1:-1]]
    return value


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_every_bad_input_case_is_the_same_tool_error_through_mcp(
    live_server: LiveServer, client: GraphQLClient, tables: Tables
) -> None:
    failures = []
    async with mcp_client(live_server.url) as mcp:
        ids = await world(mcp, client)
        for name, (tool, arguments, code, field) in CASES.items():
            async with tables.unchanged():
                error = await refused(mcp, tool, _fill(arguments, ids))
            if (error["code"], error["field"][: len(field)]) != (code, field):
                failures.append((name, error))
            assert "Traceback" not in error["message"]
    assert failures == []
    assert str(uuid.UUID(ids["step"])) == ids["step"]
