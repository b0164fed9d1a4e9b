"""Toolsets: a host enables sets of tools by name and pays in context only for those."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from bench.mcp_tool_list import LIST, tool_list_bytes
from bench.mcp_transitions import MCP_HEADERS
from server.mcp.plan_tools import plan_tools
from server.mcp.server import all_tools
from server.mcp.toolsets import Toolset, selected
from server.services.runtime import Runtime
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client
from tests.waiting import patient

SEED_003_TOOLS = {
    "create_research_plan",
    "get_next_step",
    "submit_step_result",
    "request_user_review",
    "submit_user_decision",
    "modify_plan",
    "get_plan_status",
    "get_research_context",
    "get_step_context",
    "store_research_output",
    "start_skill_execution",
    "complete_skill_execution",
    "retry_step",
    "fail_plan",
}


# Waiting for a person serves every domain's agents: it is listed with any of these sets.
SHARED = {"wait_for_decision"}


def members(runtime: Runtime, *toolsets: Toolset) -> set[str]:
    return {
        t.name
        for t in all_tools(runtime)
        if t.toolset is not None and selected(t.toolset, frozenset(toolsets))
    }


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_each_toolset_lists_its_own_tools_and_the_lists_fit_their_byte_targets(
    live_server: LiveServer, runtime: Runtime
) -> None:
    assert members(runtime, Toolset.PLANS) == SEED_003_TOOLS | SHARED
    assert {t.name for t in plan_tools(runtime.settings)} == SEED_003_TOOLS
    overrides = {"start_hop", "cancel_hop", "cancel_mission", "cancel_workflow", "rerun_workflow"}
    assert members(runtime, Toolset.ADMIN) == overrides
    assert {"cancel_workflow", "rerun_workflow"} <= members(runtime, Toolset.WORKFLOWS)
    for chosen in ([Toolset.PLANS], [Toolset.WORKFLOWS], [Toolset.MISSIONS, Toolset.ADMIN]):
        query = ",".join(t.value for t in chosen)
        async with mcp_client(live_server.url, query=f"toolsets={query}") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == members(runtime, *chosen), query
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        # The bench's figures (python -m bench --only mcp_tools); sizes are deterministic, not timings.
        assert await tool_list_bytes(http, "plans") <= 25 * 1024
        assert await tool_list_bytes(http) <= 50 * 1024


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_an_unknown_toolset_is_refused_naming_the_known_ones(live_server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live_server.url) as http:
        for query in ("plans,nope", "", " , "):
            response = await http.post("/mcp", params={"toolsets": query}, json=LIST, headers=MCP_HEADERS)
            assert response.status_code == 400, query
            error = response.json()["error"]
            assert (error["code"], error["data"]) == (-32602, {"code": "VALIDATION_FAILED"})
            assert error["message"].endswith("known sets: plans, workflows, missions, admin"), error


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_tool_outside_the_chosen_toolsets_cannot_be_called(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url, query="toolsets=plans") as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("get_workflow", {"workflowId": "00000000-0000-4000-8000-000000000000"})
    assert refused.value.error.code == -32602
    assert "in the toolset 'workflows', which this connection did not enable" in refused.value.error.message


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_stdio_serves_the_toolsets_it_is_given_and_refuses_an_unknown_one(
    tmp_path: Path, db_url: str
) -> None:
    env = {**os.environ, "DATABASE_URL": db_url, "FLIGHTDECK_API_KEY": ""}

    async def listed() -> set[str]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "server", "mcp", "--toolsets", "plans"], env=env
        )
        async with Client(params, cache=None) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert asyncio.run(listed()) == SEED_003_TOOLS | SHARED
    refused = subprocess.run(
        [sys.executable, "-m", "server", "mcp", "--toolsets", "plans,everything"],
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=patient(120),
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "flightdeck mcp: unknown toolset 'everything'; known sets: plans, workflows, missions, admin"
    ]
