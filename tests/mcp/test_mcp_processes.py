"""Two servers (each its own app, lifespan and session manager) on one database: MCP keeps no session."""

from __future__ import annotations

import httpx

from server.clock import FakeClock
from server.config import Settings
from tests.conftest import LiveServer, start_server, stop_server
from tests.mcp.helpers import mcp_client, ok, steps


async def test_a_plan_is_driven_through_two_servers_alternately(
    live_server: LiveServer, settings: Settings, clock: FakeClock
) -> None:
    other = start_server(settings, clock)
    try:
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
        async with httpx.AsyncClient(base_url=live_server.url) as http:
            answer = await http.post(
                "/mcp", json=initialize, headers={"accept": "application/json, text/event-stream"}
            )
        assert answer.status_code == 200, answer.text
        assert "mcp-session-id" not in answer.headers

        servers = [live_server.url, other.url]
        async with mcp_client(servers[0], mode="legacy") as first:
            plan = await ok(first, "create_research_plan", {"researchQuestion": "q", "steps": steps(4)})
        for i in range(4):
            async with mcp_client(servers[i % 2], mode="legacy") as a, mcp_client(servers[(i + 1) % 2]) as b:
                step = (await ok(a, "get_next_step", {"planId": plan["planId"]}))["step"]
                await ok(b, "submit_step_result", {"stepId": step["stepId"], "resultSummary": f"r{i}"})
        async with mcp_client(servers[1]) as last:
            assert (await ok(last, "get_next_step", {"planId": plan["planId"]}))["status"] == "plan_complete"
    finally:
        stop_server(other)
