"""Keys, tenants and roles through MCP: the same Authenticator and rules as GraphQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api.test_bad_input import Tables
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, refused, steps

READ_TOOLS = {"get_plan_status", "get_research_context", "get_step_context", "get_workflow", "get_mission"}
DRIVE_TOOLS = {
    "create_research_plan",
    "get_next_step",
    "submit_step_result",
    "request_user_review",
    "modify_plan",
    "store_research_output",
    "start_skill_execution",
    "complete_skill_execution",
    "retry_step",
    "fail_plan",
    "create_workflow_from_yaml",
    "start_workflow",
    "claim_workflow_step",
    "heartbeat_workflow_step",
    "complete_workflow_step",
    "fail_workflow_step",
    "complete_workflow_compensation",
    "fail_workflow_compensation",
    "register_tool",
    "propose_mission",
    "propose_hop",
    "propose_hop_implementation",
    "select_tool",
    "configure_tool_step",
    "complete_tool_step",
    "fail_tool_step",
    "retry_tool_step",
    "propose_asset",
    "start_asset_processing",
    "complete_asset_processing",
    "fail_asset",
    "retry_asset",
}
DECIDE_TOOLS = {
    "submit_user_decision",
    "start_hop",
    "cancel_hop",
    "cancel_mission",
    "cancel_workflow",
    "rerun_workflow",
}
# Every key may wait; not read-only, since a reviewer may answer in the client while it waits.
WAIT_TOOLS = {"wait_for_decision"}


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@dataclass
class Keys:
    a_agent: str
    a_reviewer: str
    a_viewer: str
    b_admin: str


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> AsyncIterator[Keys]:
    db = Database(settings.database_url)
    made = {}
    for name, tenant, role in [
        ("a_agent", "tenant-a", Role.AGENT),
        ("a_reviewer", "tenant-a", Role.REVIEWER),
        ("a_viewer", "tenant-a", Role.VIEWER),
        ("b_admin", "tenant-b", Role.ADMIN),
    ]:
        made[name] = (await create_key(db, tenant, role, name, clock.now()))[1]
    yield Keys(**made)
    await db.dispose()


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(settings.database_url)
    yield Tables(engine)
    await engine.dispose()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_each_role_lists_only_the_tools_it_may_call(
    keys: Keys, live_server: LiveServer, mode: str
) -> None:
    expected = {
        keys.a_viewer: READ_TOOLS | WAIT_TOOLS,
        keys.a_reviewer: READ_TOOLS | DECIDE_TOOLS | WAIT_TOOLS,
        keys.a_agent: READ_TOOLS | DRIVE_TOOLS | WAIT_TOOLS,
        keys.b_admin: READ_TOOLS | DRIVE_TOOLS | DECIDE_TOOLS | WAIT_TOOLS,
    }
    for key, names in expected.items():
        async with mcp_client(live_server.url, key, mode=mode) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == names
            for tool in listed.tools:
                assert tool.annotations is not None
                assert bool(tool.annotations.read_only_hint) is (tool.name in READ_TOOLS)


async def test_a_tool_a_role_may_not_call_is_refused_and_writes_nothing(
    keys: Keys, live_server: LiveServer, tables: Tables
) -> None:
    async with mcp_client(live_server.url, keys.a_agent) as agent:
        plan = await ok(agent, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)})
        step = (await ok(agent, "get_next_step", {"planId": plan["planId"]}))["step"]
        await ok(agent, "request_user_review", {"stepId": step["stepId"], "summary": "look"})
    async with tables.unchanged():
        async with mcp_client(live_server.url, keys.a_viewer) as viewer:
            error = await refused(
                viewer, "create_research_plan", {"researchQuestion": "q", "steps": steps(1)}
            )
            assert error == {
                "code": "FORBIDDEN",
                "message": "this key's role may not drive plans or missions (needs agent or admin)",
                "field": [],
            }
            error = await refused(
                viewer, "submit_user_decision", {"stepId": step["stepId"], "decision": "approve"}
            )
            assert error["message"] == "only reviewer or admin keys may take user decisions"
            # Reads are allowed: the plan is there, unchanged.
            status = await ok(viewer, "get_plan_status", {"planId": plan["planId"]})
            assert status["status"] == "awaiting_review"
        async with mcp_client(live_server.url, keys.a_reviewer) as reviewer:
            error = await refused(reviewer, "get_next_step", {"planId": plan["planId"]})
            assert error["code"] == "FORBIDDEN"
    async with mcp_client(live_server.url, keys.a_reviewer) as reviewer:
        await ok(reviewer, "submit_user_decision", {"stepId": step["stepId"], "decision": "skip"})


async def test_another_tenant_sees_and_changes_nothing(
    keys: Keys, live_server: LiveServer, tables: Tables
) -> None:
    async with mcp_client(live_server.url, keys.a_agent) as agent:
        plan = await ok(agent, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
        step = (await ok(agent, "get_next_step", {"planId": plan["planId"]}))["step"]
    plan_id, step_id = plan["planId"], step["stepId"]
    calls = [
        ("get_plan_status", {"planId": plan_id}, "planId"),
        ("get_research_context", {"planId": plan_id, "sessionId": "b-session"}, "planId"),
        ("get_step_context", {"stepId": step_id}, "stepId"),
        ("get_next_step", {"planId": plan_id}, "planId"),
        ("submit_step_result", {"stepId": step_id, "resultSummary": "mine now"}, "stepId"),
        ("request_user_review", {"stepId": step_id, "summary": "s"}, "stepId"),
        ("submit_user_decision", {"stepId": step_id, "decision": "approve"}, "stepId"),
        (
            "modify_plan",
            {"planId": plan_id, "action": "fail_step", "stepId": step_id, "reason": "r"},
            "planId",
        ),
        ("retry_step", {"stepId": step_id}, "stepId"),
        ("fail_plan", {"planId": plan_id, "reason": "r"}, "planId"),
        ("store_research_output", {"planId": plan_id, "content": "c", "mediaType": "text/plain"}, "planId"),
    ]
    async with tables.unchanged(), mcp_client(live_server.url, keys.b_admin) as other:
        for tool, args, field in calls:
            error = await refused(other, tool, args)
            assert (error["code"], error["field"]) == ("NOT_FOUND", [field]), tool


async def test_without_a_valid_key_nothing_is_served(keys: Keys, live_server: LiveServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        for auth in (None, "Bearer fdk_not-a-key", "Basic abc"):
            sent = {**headers, **({"authorization": auth} if auth else {})}
            response = await http.post("/mcp", json=body, headers=sent)
            assert response.status_code == 401
            assert response.headers["www-authenticate"] == "Bearer"
            assert response.json()["error"]["data"] == {"code": "UNAUTHENTICATED"}


async def test_a_foreign_origin_is_refused_and_the_servers_own_is_not(
    keys: Keys, live_server: LiveServer
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "authorization": f"Bearer {keys.a_viewer}",
    }
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        foreign = await http.post("/mcp", json=body, headers={**headers, "origin": "https://evil.example"})
        assert foreign.status_code == 403
        assert foreign.json()["error"]["data"] == {"code": "FORBIDDEN"}
        own = await http.post("/mcp", json=body, headers={**headers, "origin": live_server.url})
        assert own.status_code == 200, own.text
        assert {t["name"] for t in own.json()["result"]["tools"]} == READ_TOOLS | WAIT_TOOLS


async def test_another_tenant_sees_and_changes_none_of_the_workflows_and_missions(
    keys: Keys, live_server: LiveServer, tables: Tables
) -> None:
    async with mcp_client(live_server.url, keys.a_agent) as agent:
        yaml = "metadata:\n  name: w\nspec:\n  steps:\n    - name: a\n"
        workflow = (await ok(agent, "create_workflow_from_yaml", {"yaml": yaml}))["workflow"]["workflowId"]
        await ok(agent, "start_workflow", {"workflowId": workflow})
        step = (await ok(agent, "claim_workflow_step", {"agent": "w", "workflowId": workflow}))["step"]
        mission = (await ok(agent, "propose_mission", {"title": "t", "goal": "g"}))["mission"]["missionId"]
    calls = [
        ("get_workflow", {"workflowId": workflow}, "workflowId"),
        ("start_workflow", {"workflowId": workflow}, "workflowId"),
        ("claim_workflow_step", {"agent": "w", "workflowId": workflow}, "workflowId"),
        ("complete_workflow_step", {"stepId": step["stepId"], "agent": "w"}, "stepId"),
        ("heartbeat_workflow_step", {"stepId": step["stepId"], "agent": "w"}, "stepId"),
        ("get_mission", {"missionId": mission}, "missionId"),
        ("propose_hop", {"missionId": mission, "name": "h", "plan": "p"}, "missionId"),
        ("propose_asset", {"missionId": mission, "name": "a"}, "missionId"),
    ]
    async with tables.unchanged(), mcp_client(live_server.url, keys.b_admin) as other:
        for tool, args, field in calls:
            error = await refused(other, tool, args)
            assert (error["code"], error["field"]) == ("NOT_FOUND", [field]), tool
        # Nothing of A's is handed to B's workers.
        assert (await ok(other, "claim_workflow_step", {"agent": "w"}))["outcome"] == "none"
    async with mcp_client(live_server.url, keys.a_viewer) as viewer:
        error = await refused(viewer, "claim_workflow_step", {"agent": "w"})
        assert error["code"] == "FORBIDDEN"
        shown = await ok(viewer, "get_workflow", {"workflowId": workflow})
        assert shown["workflow"]["status"] == "executing"
    async with mcp_client(live_server.url, keys.a_agent) as agent:
        error = await refused(agent, "start_hop", {"hopId": mission})
        assert error["message"] == "only reviewer or admin keys may take user decisions"
