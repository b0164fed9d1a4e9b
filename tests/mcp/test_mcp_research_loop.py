"""Seed 003's loop through MCP with real keys: an agent drives, a reviewer decides, the plan completes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.mcp.helpers import mcp_client, ok, refused, steps


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@dataclass
class Keys:
    agent: str
    reviewer: str


@pytest.fixture
async def keys(settings: Settings, clock: FakeClock) -> AsyncIterator[Keys]:
    db = Database(settings.database_url)
    agent = await create_key(db, "tenant-a", Role.AGENT, "agent", clock.now())
    reviewer = await create_key(db, "tenant-a", Role.REVIEWER, "reviewer", clock.now())
    yield Keys(agent[1], reviewer[1])
    await db.dispose()


async def test_the_seed_003_loop_ends_in_plan_complete_with_every_formatting_note(
    keys: Keys, live_server: LiveServer
) -> None:
    async with (
        mcp_client(live_server.url, keys.agent) as agent,
        mcp_client(live_server.url, keys.reviewer) as rev,
    ):
        skill = await ok(
            agent,
            "start_skill_execution",
            {
                "sessionId": "session-1",
                "skillName": "deep-research",
                "outputMediaType": "text/markdown",
                "outputFormattingInstructions": "Use headings.",
            },
        )
        created = await ok(
            agent,
            "create_research_plan",
            {
                "researchQuestion": "Why is the sky blue?",
                "sessionId": "session-1",
                "outputFormattingNotes": "Cite every source.",
                "steps": [
                    {
                        "stepType": "search",
                        "instructions": "find sources",
                        "outputFormattingNotes": "as a list",
                    },
                    {"stepType": "checkpoint", "instructions": "check with the user"},
                    {"stepType": "synthesize", "instructions": "answer", "outputFormattingNotes": "one page"},
                ],
            },
        )
        plan_id = created["planId"]
        assert created["status"] == "planning"
        assert created["firstStep"]["status"] == "pending"

        first = await ok(agent, "get_next_step", {"planId": plan_id, "sessionId": "session-1"})
        assert (first["status"], first["planStatus"], first["step"]["order"]) == ("started", "executing", 1)
        done = await ok(
            agent,
            "submit_step_result",
            {"stepId": first["step"]["stepId"], "resultSummary": "3 sources", "confidence": 0.9},
        )
        assert (done["stepStatus"], done["planStatus"]) == ("completed", "executing")

        second = await ok(agent, "get_next_step", {"planId": plan_id})
        check_id = second["step"]["stepId"]
        review = await ok(
            agent, "request_user_review", {"stepId": check_id, "summary": "Happy?", "questions": ["More?"]}
        )
        assert (review["stepStatus"], review["planStatus"]) == ("awaiting_input", "awaiting_review")
        waiting = await ok(agent, "get_next_step", {"planId": plan_id})
        assert waiting["status"] == "awaiting_review"

        # The agent may not decide; the reviewer does not see the agent's tools.
        forbidden = await refused(agent, "submit_user_decision", {"stepId": check_id, "decision": "approve"})
        assert forbidden["code"] == "FORBIDDEN"
        decided = await ok(rev, "submit_user_decision", {"stepId": check_id, "decision": "approve"})
        assert (decided["stepStatus"], decided["planStatus"]) == ("completed", "executing")

        third = await ok(agent, "get_next_step", {"planId": plan_id})
        await ok(
            agent, "submit_step_result", {"stepId": third["step"]["stepId"], "resultSummary": "Rayleigh"}
        )
        complete = await ok(agent, "get_next_step", {"planId": plan_id})
        assert complete == {
            "status": "plan_complete",
            "planId": plan_id,
            "planStatus": "completed",
            "outputMediaType": "text/markdown",
            "outputFormattingInstructions": "Use headings.",
            "planFormattingNotes": "Cite every source.",
            "stepFormattingNotes": [
                {"stepId": created["stepIds"][0], "order": 1, "notes": "as a list"},
                {"stepId": created["stepIds"][2], "order": 3, "notes": "one page"},
            ],
        }
        stored = await ok(
            agent,
            "store_research_output",
            {"planId": plan_id, "content": "# Blue", "mediaType": "text/markdown"},
        )
        assert stored["planId"] == plan_id
        finished = await ok(
            agent,
            "complete_skill_execution",
            {"skillExecutionId": skill["skillExecutionId"], "resultSummary": "ok"},
        )
        assert (finished["status"], finished["planId"]) == ("completed", plan_id)

        status = await ok(rev, "get_plan_status", {"planId": plan_id})
        assert (status["status"], status["progressPercent"], status["counts"]["completed"]) == (
            "completed",
            100,
            3,
        )
        context = await ok(rev, "get_research_context", {"planId": plan_id})
        assert [s["resultSummary"] for s in context["steps"]] == ["3 sources", None, "Rayleigh"]
        step = await ok(rev, "get_step_context", {"stepId": third["step"]["stepId"]})
        assert [s["order"] for s in step["priorSteps"]] == [1, 2]


async def test_a_refusal_carries_the_code_message_and_field_graphql_gives(
    keys: Keys, live_server: LiveServer
) -> None:
    graphql = GraphQLClient(live_server.url, keys.agent)
    try:
        async with mcp_client(live_server.url, keys.agent) as agent:
            created = await ok(agent, "create_research_plan", {"researchQuestion": "q", "steps": steps(2)})
            started = await ok(agent, "get_next_step", {"planId": created["planId"]})
            step_id = started["step"]["stepId"]
            await ok(agent, "request_user_review", {"stepId": step_id, "summary": "look"})

            error = await refused(agent, "submit_step_result", {"stepId": step_id, "resultSummary": "x"})
            data = await graphql.execute(
                ops.SUBMIT_RESULT, {"input": {"stepId": step_id, "resultSummary": "x"}}
            )
            (user_error,) = data["submitStepResult"]["userErrors"]
            assert error == {k: v for k, v in user_error.items() if v is not None}
            assert error["code"] == "INVALID_TRANSITION"
            assert error["fromState"] == "awaiting_input"

            # Over a service limit: the same message as GraphQL's, too.
            long = "x" * (live_server.settings.max_text_bytes + 1)
            error = await refused(agent, "fail_plan", {"planId": created["planId"], "reason": long})
            data = await graphql.execute(ops.FAIL_PLAN, {"planId": created["planId"], "reason": long})
            (user_error,) = data["failPlan"]["userErrors"]
            assert (error["code"], error["message"], error["field"]) == (
                user_error["code"],
                user_error["message"],
                user_error["field"],
            )
    finally:
        await graphql.aclose()
