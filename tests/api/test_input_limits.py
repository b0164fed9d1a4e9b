"""Inputs that used to slip past validation, on SQLite and PostgreSQL alike.

NUL characters, lone UTF-16 surrogates, strings longer than their column, NaN and Infinity, JSON
nested too deeply: each is refused before the database with a VALIDATION_FAILED userError naming the
field (a top-level error with the same code and field for a query), every table as it was. Each test
runs on both databases and expects the same answer, so both accept and refuse the same inputs.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import pytest
from gql.transport.exceptions import TransportQueryError
from sqlalchemy.ext.asyncio import create_async_engine

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Base
from server.limits import MAX_JSON_DEPTH, SHORT_TEXT
from tests.api import mission_operations as mops
from tests.api import operations as ops
from tests.api import workflow_operations as wops
from tests.api.test_bad_input import Driver, Tables, assert_rejected
from tests.conftest import GraphQLClient, LiveServer
from tests.realtime.wsclient import EVENTS, collect, ws_session

VALIDATION_FAILED = "VALIDATION_FAILED"
RESUME = (
    "mutation($id: ID!, $s: String!) { resumeSession(planId: $id, sessionId: $s) "
    "{ resumed userErrors { code field message } } }"
)
# Every table but the operation log, which records every request, refused or not.
TABLES = tuple(t.name for t in Base.metadata.sorted_tables if t.name != "operation_log")
SKILL = (
    "mutation($s: String!, $n: String!) { startSkillExecution(sessionId: $s, skillName: $n) "
    "{ skillExecution { id } userErrors { code message field } } }"
)


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine, TABLES)
    await engine.dispose()


@pytest.fixture
def driver(client: GraphQLClient) -> Driver:
    return Driver(client)


def body_of(document: str, variables: dict[str, Any]) -> bytes:
    # ensure_ascii: a lone surrogate travels as its \\uXXXX escape (httpx would fail to encode it).
    return json.dumps({"query": document, "variables": variables}, ensure_ascii=True).encode()


async def send(client: GraphQLClient, content: bytes) -> dict[str, Any]:
    response = await client.http.post(
        "/graphql", content=content, headers={"content-type": "application/json"}
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def payload(client: GraphQLClient, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = await send(client, body_of(document, variables))
    assert "errors" not in body, body
    (found,) = body["data"].values()
    assert isinstance(found, dict)
    return found


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


def plan_with_condition(**condition: Any) -> dict[str, Any]:
    cond = {
        "afterStepOrder": 1,
        "field": "confidence",
        "op": "LT",
        "value": 0.5,
        "action": "FAIL",
        **condition,
    }
    return {"input": ops.plan_input(2, branchingConditions=[cond])}


# -- characters: NUL and lone surrogates --

# (document, variables, the userError's field)
TEXT_CASES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "NUL in a plan's question": (
        ops.CREATE_PLAN,
        {"input": {**ops.plan_input(2), "researchQuestion": "why\x00"}},
        ["researchQuestion"],
    ),
    "lone surrogate in a step's instructions": (
        ops.CREATE_PLAN,
        {"input": ops.plan_input(2) | {"steps": [{"stepType": "SEARCH", "instructions": "look \ud800"}]}},
        ["steps", "0", "instructions"],
    ),
    "NUL in a session id": (SKILL, {"s": "a\x00b", "n": "n"}, ["sessionId"]),
    "lone surrogate in a skill name": (SKILL, {"s": "s", "n": "\udfff"}, ["skillName"]),
    "NUL in a mission title": (mops.PROPOSE_MISSION, {"input": {"title": "t\x00", "goal": "g"}}, ["title"]),
    "NUL in a JSON Schema key": (
        mops.REGISTER_TOOL,
        {"input": {"name": "t", "parameterSchema": {"properties": {"a\x00": {}}}}},
        ["parameterSchema"],
    ),
    "lone surrogate in a JSON Schema value": (
        mops.REGISTER_TOOL,
        {"input": {"name": "t", "parameterSchema": {"description": "\ud83d"}}},
        ["parameterSchema"],
    ),
    "NUL in a workflow step name": (
        wops.CREATE,
        {"input": {"name": "w", "steps": [{"name": "a\x00"}]}},
        ["steps", "0", "name"],
    ),
    "NUL in a branching value": (
        ops.CREATE_PLAN,
        plan_with_condition(op="EQ", value="a\x00"),
        ["branchingConditions", "0", "value"],
    ),
}


async def refused_on_its_field(
    case: tuple[str, dict[str, Any], list[str]], client: GraphQLClient, tables: Tables
) -> str:
    """The case's request is refused with VALIDATION_FAILED on its field, nothing written; the message."""
    document, variables, field = case
    async with tables.unchanged():
        found = await payload(client, document, variables)
    (error,) = assert_rejected(found, (VALIDATION_FAILED, field))
    message: str = error["message"]
    return message


@pytest.mark.parametrize("case", TEXT_CASES.values(), ids=TEXT_CASES.keys())
async def test_nul_and_lone_surrogates_are_refused_on_their_field_and_write_nothing(
    case: tuple[str, dict[str, Any], list[str]], client: GraphQLClient, tables: Tables
) -> None:
    message = await refused_on_its_field(case, client, tables)
    assert "NUL" in message or "surrogate" in message, message


async def test_a_caller_without_the_role_hears_forbidden_whatever_the_arguments_hold(
    settings: Settings, clock: FakeClock, live_server: LiveServer, tables: Tables
) -> None:
    db = Database(settings.database_url)
    _, token = await create_key(db, "tenant-a", Role.VIEWER, "viewer", clock.now())
    await db.dispose()
    viewer = GraphQLClient(live_server.url, token)
    try:
        async with tables.unchanged():
            body = await send(viewer, body_of(ops.CREATE_PLAN, TEXT_CASES["NUL in a plan's question"][1]))
    finally:
        await viewer.aclose()
    assert [e["extensions"]["code"] for e in body["errors"]] == ["FORBIDDEN"], body


async def test_nul_in_a_string_literal_is_refused_on_its_field(client: GraphQLClient, tables: Tables) -> None:
    document = (
        'mutation { startSkillExecution(sessionId: "a\\u0000b", skillName: "n") '
        "{ skillExecution { id } userErrors { code message field } } }"
    )
    async with tables.unchanged():
        found = await payload(client, document, {})
    assert_rejected(found, (VALIDATION_FAILED, ["sessionId"]))


async def test_nul_in_result_data_is_refused(client: GraphQLClient, driver: Driver, tables: Tables) -> None:
    plan = await driver.executing()
    variables = {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "resultData": {"k": "a\x00b"}}}
    async with tables.unchanged():
        found = await payload(client, ops.SUBMIT_RESULT, variables)
    (error,) = assert_rejected(found, (VALIDATION_FAILED, ["resultData"]))
    assert "at k" in error["message"], error


async def test_nul_decoded_from_a_yaml_escape_is_refused_on_its_field(
    client: GraphQLClient, tables: Tables
) -> None:
    # The YAML text itself is clean; its double-quoted "\0" escape decodes to NUL.
    yaml = 'metadata: {name: "w"}\nspec: {steps: [{name: "a\\0b"}]}'
    async with tables.unchanged():
        found = await payload(client, wops.CREATE_FROM_YAML, {"yaml": yaml})
    assert [(e["code"], e["field"]) for e in found["userErrors"]] == [
        (VALIDATION_FAILED, ["yaml", "spec", "steps", "0", "name"])
    ]
    assert found["workflow"] is None


async def test_a_query_argument_with_nul_is_a_coded_error(client: GraphQLClient) -> None:
    document = "query($s: String) { researchPlans(after: $s) { totalCount } }"
    body = await send(client, body_of(document, {"s": "a\x00b"}))
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"] == {"code": VALIDATION_FAILED, "field": ["after"]}
    assert "NUL" in error["message"]


async def test_nul_in_a_resuming_session_id_is_refused_and_records_nothing(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        found = await payload(client, RESUME, {"id": plan.id, "s": "a\x00b"})
    (error,) = assert_rejected(found, (VALIDATION_FAILED, ["sessionId"]))
    assert "NUL" in error["message"]


async def test_a_subscription_argument_with_nul_is_refused_with_its_code_and_field(
    live_server: LiveServer,
) -> None:
    # The replay behind `events(after:)` reads the log with the filter: PostgreSQL refused the NUL.
    async with ws_session(live_server.ws_url) as ws:
        with pytest.raises(TransportQueryError) as raised:
            await collect(ws, EVENTS, {"after": 0, "filter": {"kinds": ["plan_created\x00"]}}, 1, within=10)
    [error] = raised.value.errors or []
    assert error["extensions"] == {"code": VALIDATION_FAILED, "field": ["filter", "kinds", "0"]}


async def test_control_characters_other_than_nul_are_stored_alike_in_long_free_text(
    client: GraphQLClient,
) -> None:
    question = "\x1b[2J\x07\x08\r\n\t\x7f\u202e why?"
    found = await payload(
        client, ops.CREATE_PLAN, {"input": {**ops.plan_input(1), "researchQuestion": question}}
    )
    assert found["userErrors"] == []
    assert found["plan"]["researchQuestion"] == question


# Names, titles and short texts take no C0 control character but tab, line feed and carriage return
# (document, variables, the userError's field).
SHORT_TEXT_CASES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "ESC in a plan's title": (
        ops.CREATE_PLAN,
        {"input": {**ops.plan_input(1), "title": "\x1b[2J cleared"}},
        ["title"],
    ),
    "BEL in a step's title": (
        ops.CREATE_PLAN,
        {
            "input": ops.plan_input(2)
            | {"steps": [{"stepType": "SEARCH", "instructions": "i", "title": "t\x07"}]}
        },
        ["steps", "0", "title"],
    ),
    "a backspace in a session id": (SKILL, {"s": "a\x08b", "n": "n"}, ["sessionId"]),
    "U+001F in a mission title": (
        mops.PROPOSE_MISSION,
        {"input": {"title": "t\x1f", "goal": "g"}},
        ["title"],
    ),
    "ESC in a workflow's name": (
        wops.CREATE,
        {"input": {"name": "w\x1b", "steps": [{"name": "a"}]}},
        ["name"],
    ),
    "a vertical tab in a workflow step name": (
        wops.CREATE,
        {"input": {"name": "w", "steps": [{"name": "a\x0b"}]}},
        ["steps", "0", "name"],
    ),
}


@pytest.mark.parametrize("case", SHORT_TEXT_CASES.values(), ids=SHORT_TEXT_CASES.keys())
async def test_control_characters_in_names_and_titles_are_refused_and_write_nothing(
    case: tuple[str, dict[str, Any], list[str]], client: GraphQLClient, tables: Tables
) -> None:
    message = await refused_on_its_field(case, client, tables)
    assert "control character U+00" in message, message


async def test_tab_line_feed_carriage_return_and_other_characters_stay_allowed_in_a_title(
    client: GraphQLClient,
) -> None:
    title = "a\tb\r\nc \x7f\u202e\u0085"  # DEL, a bidi override and C1 NEL are not C0 controls
    found = await payload(client, ops.CREATE_PLAN, {"input": {**ops.plan_input(1), "title": title}})
    assert found["userErrors"] == []
    assert found["plan"]["title"] == title


# -- lengths: the String(200) columns --


async def test_a_branching_field_longer_than_its_column_is_refused(
    client: GraphQLClient, tables: Tables
) -> None:
    async with tables.unchanged():
        found = await payload(client, ops.CREATE_PLAN, plan_with_condition(field="x" * (SHORT_TEXT + 1)))
    assert_rejected(found, (VALIDATION_FAILED, ["branchingConditions", "0", "field"]))


async def test_a_branching_field_as_long_as_its_column_is_stored(client: GraphQLClient) -> None:
    found = await payload(client, ops.CREATE_PLAN, plan_with_condition(field="x" * SHORT_TEXT))
    assert found["userErrors"] == []


async def test_a_resuming_session_id_longer_than_its_column_is_refused(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.create(2)
    async with tables.unchanged():
        found = await payload(
            client, ops.START_NEXT_STEP, {"planId": plan.id, "sessionId": "s" * (SHORT_TEXT + 1)}
        )
    assert_rejected(found, (VALIDATION_FAILED, ["sessionId"]))


async def test_a_session_id_longer_than_its_column_in_resume_session_is_refused(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.create(2)
    async with tables.unchanged():
        found = await payload(client, RESUME, {"id": plan.id, "s": "s" * (SHORT_TEXT + 1)})
    assert_rejected(found, (VALIDATION_FAILED, ["sessionId"]))


# -- non-finite numbers --


async def test_a_float_literal_past_any_double_in_a_json_value_is_refused(
    client: GraphQLClient, tables: Tables
) -> None:
    document = (
        'mutation { createResearchPlan(input: {researchQuestion: "q", steps: [{stepType: SEARCH, '
        'instructions: "i"}], branchingConditions: [{afterStepOrder: 1, field: "confidence", op: LT, '
        "value: 1e309, action: FAIL}]}) { plan { id } userErrors { code message field } } }"
    )
    async with tables.unchanged():
        found = await payload(client, document, {})
    (error,) = assert_rejected(found, (VALIDATION_FAILED, ["branchingConditions", "0", "value"]))
    assert "Infinity" in error["message"], error


async def test_a_float_literal_past_any_double_is_refused_on_its_field(
    client: GraphQLClient, tables: Tables
) -> None:
    document = (
        'mutation { createResearchPlan(input: {researchQuestion: "q", stallThresholdSeconds: -1e309, '
        'steps: [{stepType: SEARCH, instructions: "i"}]}) { plan { id } userErrors { code message field } } }'
    )
    async with tables.unchanged():
        found = await payload(client, document, {})
    assert_rejected(found, (VALIDATION_FAILED, ["stallThresholdSeconds"]))


async def test_a_json_number_past_any_double_in_result_data_is_refused(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    # 1e309 is valid JSON (Python's json never writes it: it reads it as inf).
    plan = await driver.executing()
    content = (
        f'{{"query": {json.dumps(ops.SUBMIT_RESULT)}, "variables": {{"input": {{"stepId": '
        f'"{plan.step_ids[0]}", "resultSummary": "s", "resultData": {{"x": [1, 1e309]}}}}}}}}'
    ).encode()
    async with tables.unchanged():
        body = await send(client, content)
    (error,) = assert_rejected(body["data"]["submitStepResult"], (VALIDATION_FAILED, ["resultData"]))
    assert "x[1]" in error["message"], error


async def test_a_float_variable_past_any_double_is_a_request_error(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    content = (
        f'{{"query": {json.dumps(ops.SUBMIT_RESULT)}, "variables": {{"input": {{"stepId": '
        f'"{plan.step_ids[0]}", "resultSummary": "s", "confidence": -1e309}}}}}}'
    ).encode()
    async with tables.unchanged():
        response = await client.http.post(
            "/graphql", content=content, headers={"content-type": "application/json"}
        )
    assert response.status_code == 400, response.text
    assert "data" not in response.json()


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
async def test_nan_and_infinity_tokens_are_refused_before_anything_runs(
    token: str, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    content = (
        f'{{"query": {json.dumps(ops.SUBMIT_RESULT)}, "variables": {{"input": {{"stepId": '
        f'"{plan.step_ids[0]}", "resultSummary": "s", "resultData": {{"x": {token}}}}}}}}}'
    ).encode()
    async with tables.unchanged():
        response = await client.http.post(
            "/graphql", content=content, headers={"content-type": "application/json"}
        )
    assert response.status_code == 400, response.text
    [error] = response.json()["errors"]
    assert error["extensions"] == {"code": "BAD_REQUEST"}
    assert f"{token} is not JSON" in error["message"]


# -- JSON depth --


async def test_result_data_at_the_depth_limit_is_stored(client: GraphQLClient, driver: Driver) -> None:
    plan = await driver.executing()
    data = {"x": nested(MAX_JSON_DEPTH - 1)}  # the object is one level, the lists the rest
    found = await payload(
        client,
        ops.SUBMIT_RESULT,
        {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "resultData": data}},
    )
    assert found["userErrors"] == []


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, 300, 500])
async def test_result_data_nested_past_the_limit_is_refused_on_its_field(
    depth: int, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    data = {"x": nested(depth)}
    async with tables.unchanged():
        found = await payload(
            client,
            ops.SUBMIT_RESULT,
            {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "resultData": data}},
        )
    (error,) = assert_rejected(found, (VALIDATION_FAILED, ["resultData"]))
    assert f"deeper than {MAX_JSON_DEPTH}" in error["message"]


async def test_a_json_schema_nested_300_deep_is_refused(client: GraphQLClient, tables: Tables) -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(300):
        schema = {"type": "array", "items": schema}
    async with tables.unchanged():
        found = await payload(
            client, mops.REGISTER_TOOL, {"input": {"name": "deep", "parameterSchema": schema}}
        )
    assert_rejected(found, (VALIDATION_FAILED, ["parameterSchema"]))


# -- what is already stored reads back as JSON --


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_an_infinity_stored_before_the_check_reads_back_as_json_with_a_field_error(
    db_url: str, client: GraphQLClient
) -> None:
    # Only SQLite ever held one (PostgreSQL's jsonb has no Infinity): a branching value written before
    # input refused them. Every read of that plan used to answer `{"value": Infinity}`, not JSON.
    created = await payload(client, ops.CREATE_PLAN, plan_with_condition())
    plan_id = created["plan"]["id"]
    # closing(): a sqlite3 connection's own `with` commits but does not close (Python 3.13 warns).
    with contextlib.closing(sqlite3.connect(db_url.split("///", 1)[1])) as conn, conn:
        conn.execute("UPDATE branching_conditions SET value = 'Infinity' WHERE plan_id = ?", (plan_id,))
    response = await client.post(
        "query($id: ID!) { researchPlan(id: $id) { id branchingConditions { field value } } }",
        {"id": plan_id},
    )
    body = json.loads(response.text, parse_constant=lambda token: pytest.fail(f"{token} in the response"))
    # Only that value is withheld; the rest of the plan reads as usual.
    assert body["data"] == {
        "researchPlan": {"id": plan_id, "branchingConditions": [{"field": "confidence", "value": None}]}
    }
    [error] = body["errors"]
    assert error["extensions"]["code"] == "NON_FINITE_NUMBER"
    assert error["path"] == ["researchPlan", "branchingConditions", 0, "value"]
