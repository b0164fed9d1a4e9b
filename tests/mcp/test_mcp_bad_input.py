"""Bad arguments through MCP: a tool error naming the argument, with GraphQL's code, nothing written."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from server.config import Settings
from server.limits import MAX_JSON_DEPTH
from tests.api.test_bad_input import Tables
from tests.conftest import LiveServer
from tests.mcp.helpers import mcp_client, ok, refusal_errors, refused, steps

MAX_STEPS = 5


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, max_steps=MAX_STEPS)


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine)
    await engine.dispose()


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


PLAN = {"researchQuestion": "q", "steps": steps(1)}

# tool, arguments (``STEP`` stands for an in-progress step's id), the field, the message (None: any).
CASES: dict[str, tuple[str, dict[str, Any], list[str], str | None]] = {
    "nul in text": (
        "create_research_plan",
        {**PLAN, "researchQuestion": "a\x00b"},
        ["researchQuestion"],
        "researchQuestion contains a NUL character (U+0000)",
    ),
    "nul in a nested step": (
        "create_research_plan",
        {**PLAN, "steps": [{"stepType": "search", "instructions": "x\x00"}]},
        ["steps", "0", "instructions"],
        "steps.0.instructions contains a NUL character (U+0000)",
    ),
    "nul in a JSON key": (
        "submit_step_result",
        {"stepId": "STEP", "resultSummary": "s", "resultData": {"a\x00": 1}},
        ["resultData"],
        None,
    ),
    "json nested too deeply": (
        "submit_step_result",
        {"stepId": "STEP", "resultSummary": "s", "resultData": nested(MAX_JSON_DEPTH + 1)},
        ["resultData"],
        f"resultData is nested deeper than {MAX_JSON_DEPTH} levels",
    ),
    "missing argument": ("create_research_plan", {"researchQuestion": "q"}, ["steps"], "steps is required"),
    "unknown argument": ("get_next_step", {"planId": "STEP", "plan": 1}, ["plan"], None),
    "unknown enum value": (
        "create_research_plan",
        {**PLAN, "steps": [{"stepType": "browse", "instructions": "x"}]},
        ["steps", "0", "stepType"],
        "steps.0.stepType must be one of: search, extract, analyze, critique, synthesize, checkpoint, custom",
    ),
    "wrong type": (
        "submit_step_result",
        {"stepId": "STEP", "resultSummary": "s", "confidence": "high"},
        ["confidence"],
        None,
    ),
    "confidence over one": (
        "submit_step_result",
        {"stepId": "STEP", "resultSummary": "s", "confidence": 1.5},
        ["confidence"],
        None,
    ),
    "too many steps": ("create_research_plan", {**PLAN, "steps": steps(MAX_STEPS + 1)}, ["steps"], None),
    "no steps": ("create_research_plan", {**PLAN, "steps": []}, ["steps"], None),
    "malformed id": ("get_next_step", {"planId": "not-an-id"}, ["planId"], None),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
async def test_a_bad_argument_is_a_tool_error_on_its_field_and_writes_nothing(
    live_server: LiveServer, tables: Tables, case: tuple[str, dict[str, Any], list[str], str | None]
) -> None:
    tool, arguments, field, message = case
    async with mcp_client(live_server.url) as client:
        plan = await ok(client, "create_research_plan", PLAN)
        step_id = (await ok(client, "get_next_step", {"planId": plan["planId"]}))["step"]["stepId"]
        arguments = {k: step_id if v == "STEP" else v for k, v in arguments.items()}
        async with tables.unchanged():
            error = await refused(client, tool, arguments)
        assert (error["code"], error["field"]) == ("VALIDATION_FAILED", field)
        if message is not None:
            assert error["message"] == message
        assert "Traceback" not in error["message"]


# What the SDK's client cannot send (it encodes strict UTF-8 JSON) but another client can. The SDK's
# JSON parser refuses a lone surrogate escape itself (a JSON-RPC parse error, HTTP 400); non-finite
# numbers get through it and are refused on their argument, as GraphQL refuses them.
RAW_CASES = {
    "lone surrogate": ('"summary": "s", "questions": ["ok", "\\ud800"]', "request_user_review", None),
    "NaN": ('"resultSummary": "s", "confidence": NaN', "submit_step_result", "confidence is nan"),
    "1e309": ('"resultSummary": "s", "confidence": 1e309', "submit_step_result", "confidence is inf"),
}


@pytest.mark.parametrize("case", RAW_CASES.values(), ids=RAW_CASES.keys())
async def test_text_and_numbers_no_database_stores_alike_are_refused(
    live_server: LiveServer, tables: Tables, case: tuple[str, str, str | None]
) -> None:
    fragment, tool, message = case
    async with mcp_client(live_server.url) as client:
        plan = await ok(client, "create_research_plan", PLAN)
        step_id = (await ok(client, "get_next_step", {"planId": plan["planId"]}))["step"]["stepId"]
    arguments = f'{{"stepId": "{step_id}", {fragment}}}'
    params = f'{{"name": "{tool}", "arguments": {arguments}}}'
    body = f'{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {params}}}'
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    async with tables.unchanged(), httpx.AsyncClient(base_url=live_server.url) as http:
        response = await http.post("/mcp", content=body.encode(), headers=headers)
    answer = response.json()
    if message is None:
        assert (response.status_code, answer["error"]["code"]) == (400, -32700)
        return
    result = answer["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    error = refusal_errors(result["content"][0]["text"])[0]
    assert (error["code"], error["field"]) == ("VALIDATION_FAILED", ["confidence"])
    assert error["message"] == f"{message}: a number must be finite"
