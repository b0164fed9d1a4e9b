"""A tool annotated read-only writes nothing: every such tool, called on live objects, leaves every table
as it was (DESIGN.md rule 10). The call log is off here: recording calls is the log's job, not the tool's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from server.config import Settings
from server.db.models import Base
from tests.api.test_bad_input import Tables
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, steps
from tests.services.workflow_helpers import seed_4_3_yaml


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, operation_log=False)


@pytest.fixture
async def every_table(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine, tuple(t.name for t in Base.metadata.sorted_tables))
    await engine.dispose()


async def test_every_read_only_tool_leaves_every_table_unchanged(
    live_server: LiveServer, every_table: Tables
) -> None:
    async with mcp_client(live_server.url) as client:
        plan = await ok(client, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
        started = await ok(client, "get_next_step", {"planId": plan["planId"], "sessionId": "first"})
        workflow = await ok(client, "create_workflow_from_yaml", {"yaml": seed_4_3_yaml()})
        await ok(client, "start_workflow", {"workflowId": workflow["workflow"]["workflowId"]})
        mission = await ok(client, "propose_mission", {"title": "t", "goal": "g"})
        calls: dict[str, dict[str, Any]] = {
            "get_plan_status": {"planId": plan["planId"], "stallThresholdSeconds": 1},
            # A session other than the plan's last one: the answer says so, and records nothing.
            "get_research_context": {"planId": plan["planId"], "sessionId": "second"},
            "get_step_context": {"stepId": started["step"]["stepId"]},
            "get_workflow": {"workflowId": workflow["workflow"]["workflowId"]},
            "get_mission": {"missionId": mission["mission"]["missionId"]},
        }
        read_only = {
            t.name
            for t in (await client.list_tools()).tools
            if t.annotations and t.annotations.read_only_hint
        }
        assert read_only == set(calls)
        async with every_table.unchanged():
            answers = {name: await ok(client, name, arguments) for name, arguments in calls.items()}
    context = answers["get_research_context"]
    assert (context["resuming"], context["plan"]["sessionId"]) == (True, "first")
