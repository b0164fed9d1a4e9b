"""MCP prompts (seed 003's loop, a worker's loop) and resources/list (the tenant's recent work, paged)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from mcp.shared.exceptions import MCPError

from server.clock import FakeClock
from server.config import Settings
from server.mcp import recent
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, steps
from tests.mcp.waiting_helpers import other_tenants_viewer

SQLITE = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)

YAML = "metadata:\n  name: {name}\nspec:\n  steps:\n    - name: a\n"


@SQLITE
async def test_the_prompts_give_each_loop_naming_only_tools_the_server_has(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url) as mcp:
        tools = {t.name for t in (await mcp.list_tools()).tools}
        listed = (await mcp.list_prompts()).prompts
        assert [(p.name, [(a.name, a.required) for a in p.arguments or []]) for p in listed] == [
            ("research_loop", [("researchQuestion", True), ("sessionId", False)]),
            ("work_workflow", [("agent", True), ("workflowId", False)]),
        ]
        research = await mcp.get_prompt(
            "research_loop", {"researchQuestion": "Why is the sky blue?", "sessionId": "s-1"}
        )
        worker = await mcp.get_prompt("work_workflow", {"agent": "crawler"})
    texts = {}
    for name, got in (("research_loop", research), ("work_workflow", worker)):
        [message] = got.messages
        assert message.role == "user"
        texts[name] = message.content.text  # type: ignore[union-attr]
    assert "Research question: Why is the sky blue?" in texts["research_loop"]
    assert 'create_research_plan with sessionId "s-1"' in texts["research_loop"]
    assert 'claim_workflow_step with agent "crawler".' in texts["work_workflow"]
    for name, text in texts.items():
        named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text)) - {"plan_complete", "plan_failed"}
        named -= {"awaiting_review", "no_pending_steps"}  # get_next_step's statuses
        assert named <= tools, (name, named - tools)
    assert {
        "create_research_plan",
        "get_next_step",
        "submit_step_result",
        "request_user_review",
        "wait_for_decision",
        "store_research_output",
        "get_research_context",
    } <= set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", texts["research_loop"]))
    assert {"claim_workflow_step", "complete_workflow_step", "fail_workflow_step"} <= set(
        re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", texts["work_workflow"])
    )


@SQLITE
async def test_bad_prompt_arguments_are_invalid_params_naming_the_argument(live_server: LiveServer) -> None:
    async with mcp_client(live_server.url) as mcp:
        for name, arguments, field in [
            ("research_loop", {}, "researchQuestion"),
            ("research_loop", {"researchQuestion": "  "}, "researchQuestion"),
            ("research_loop", {"researchQuestion": "a\x00b"}, "researchQuestion"),
            ("research_loop", {"researchQuestion": "x" * 70_000}, "researchQuestion"),
            ("research_loop", {"researchQuestion": "q", "sessionId": "s" * 201}, "sessionId"),
            ("research_loop", {"researchQuestion": "q", "colour": "red"}, "colour"),
            ("work_workflow", {"agent": "a\x07b"}, "agent"),
            ("no_such_prompt", {}, "name"),
        ]:
            with pytest.raises(MCPError) as refused:
                await mcp.get_prompt(name, arguments)
            assert refused.value.error.data == {"code": "VALIDATION_FAILED", "field": [field]}, arguments
            assert refused.value.error.message.startswith("VALIDATION_FAILED: ")


# On both databases: the keyset compares times, which each stores its own way.
async def test_resources_list_pages_the_tenants_recent_work_newest_first(
    live_server: LiveServer, settings: Settings, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recent, "PAGE_SIZE", 3)
    made: list[str] = []  # in the order they were created, one minute apart
    async with mcp_client(live_server.url) as mcp:
        assert (await mcp.list_resources()).resources == []
        for i in range(3):
            plan = await ok(mcp, "create_research_plan", {"researchQuestion": f"q{i}", "steps": steps(1)})
            made.append(f"flightdeck://plans/{plan['planId']}")
            clock.advance(timedelta(minutes=1))
            created = await ok(mcp, "create_workflow_from_yaml", {"yaml": YAML.format(name=f"w{i}")})
            made.append(f"flightdeck://workflows/{created['workflow']['workflowId']}")
            clock.advance(timedelta(minutes=1))
        mission = await ok(mcp, "propose_mission", {"title": "m", "goal": "g"})
        made.append(f"flightdeck://missions/{mission['mission']['missionId']}")

        pages = []
        cursor = None
        while True:
            page = await mcp.list_resources(cursor=cursor)
            pages.append(page.resources)
            cursor = page.next_cursor
            if cursor is None:
                break
        assert [len(p) for p in pages] == [3, 3, 1]
        listed = [r for p in pages for r in p]
        assert [r.uri for r in listed] == made[::-1]
        assert listed[0].title == "Mission: m"
        assert listed[-1].title == "Research plan: q0"
        assert all(r.mime_type == "application/json" for r in listed)
        # Each is read as its template says, with what the read tool of its kind gives.
        for r in (listed[0], listed[1], listed[-1]):
            read = await mcp.read_resource(r.uri)
            kind, ident = r.uri.removeprefix("flightdeck://").split("/")
            tool, argument = {
                "plans": ("get_research_context", "planId"),
                "workflows": ("get_workflow", "workflowId"),
                "missions": ("get_mission", "missionId"),
            }[kind]
            assert json.loads(read.contents[0].text) == await ok(mcp, tool, {argument: ident})  # type: ignore[union-attr]

        with pytest.raises(MCPError) as refused:
            await mcp.list_resources(cursor="not a cursor")
        assert refused.value.error.data == {"code": "VALIDATION_FAILED", "field": ["cursor"]}

    other = await other_tenants_viewer(settings.database_url, clock.now())
    async with mcp_client(live_server.url, other) as theirs:
        assert (await theirs.list_resources()).resources == []
