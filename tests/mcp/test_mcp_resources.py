"""Plan, workflow and mission snapshots as MCP resources, scoped to the key's tenant."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError

from server.clock import FakeClock
from server.config import Settings
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, steps
from tests.mcp.waiting_helpers import other_tenants_viewer


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_plans_workflows_and_missions_read_as_resources_of_their_tenant(
    live_server: LiveServer, settings: Settings, clock: FakeClock
) -> None:
    async with mcp_client(live_server.url) as mcp:
        listed = await mcp.list_resource_templates()
        assert [t.uri_template for t in listed.resource_templates] == [
            "flightdeck://plans/{planId}",
            "flightdeck://workflows/{workflowId}",
            "flightdeck://missions/{missionId}",
        ]
        plan = await ok(mcp, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
        yaml = "metadata:\n  name: w\nspec:\n  steps:\n    - name: a\n"
        workflow = (await ok(mcp, "create_workflow_from_yaml", {"yaml": yaml}))["workflow"]["workflowId"]
        mission = (await ok(mcp, "propose_mission", {"title": "t", "goal": "g"}))["mission"]["missionId"]
        uris = {
            f"flightdeck://plans/{plan['planId']}": ("get_research_context", {"planId": plan["planId"]}),
            f"flightdeck://workflows/{workflow}": ("get_workflow", {"workflowId": workflow}),
            f"flightdeck://missions/{mission}": ("get_mission", {"missionId": mission}),
        }
        for uri, (tool, args) in uris.items():
            read = await mcp.read_resource(uri)
            [contents] = read.contents
            assert contents.mime_type == "application/json"
            # The resource is what the read tool of its kind returns.
            assert json.loads(contents.text) == await ok(mcp, tool, args)  # type: ignore[union-attr]

        for bad in ("flightdeck://plans/not-an-id", "flightdeck://things/1", "https://example.com/"):
            with pytest.raises(MCPError) as refused:
                await mcp.read_resource(bad)
            assert "Traceback" not in refused.value.error.message

    other = await other_tenants_viewer(settings.database_url, clock.now())
    async with mcp_client(live_server.url, other) as theirs:
        for uri in uris:
            with pytest.raises(MCPError) as refused:
                await theirs.read_resource(uri)
            assert refused.value.error.data["code"] == "NOT_FOUND"  # type: ignore[index]
