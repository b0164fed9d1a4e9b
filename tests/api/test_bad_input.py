"""Bad input through a real server over HTTP, on SQLite and PostgreSQL (DESIGN.md rule 7).

Every case checks three things: the client gets a clear ``userError`` with its stable code and the
input ``field`` path (HTTP 200; or a 400 request error where GraphQL itself rejects the document),
and not one row changed in any table.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.auth import Principal
from server.config import Settings
from server.errors import ErrorCode, ServiceError
from server.services.plans import create as plan_create
from server.services.plans import execution as plan_execution
from server.services.plans.inputs import NewPlan, NewStep, StepResult
from server.services.runtime import Runtime, unit_of_work
from tests.api import operations as ops
from tests.conftest import GraphQLClient

MAX_TEXT = 64
MAX_RESULT = 128
MAX_STEPS = 5

# Every table a mutation may write (the operation log is not one: it records every request).
TABLES = (
    "research_plans",
    "plan_steps",
    "branching_conditions",
    "events",
    "skill_executions",
    "research_outputs",
    "tenant_counters",
)

NOT_FOUND = ErrorCode.NOT_FOUND.value
VALIDATION_FAILED = ErrorCode.VALIDATION_FAILED.value
INVALID_TRANSITION = ErrorCode.INVALID_TRANSITION.value

Rows = dict[str, list[tuple[Any, ...]]]


@pytest.fixture
def settings(db_url: str) -> Settings:
    # Small limits keep the over-the-limit cases fast.
    return Settings(
        database_url=db_url, max_text_bytes=MAX_TEXT, max_result_bytes=MAX_RESULT, max_steps=MAX_STEPS
    )


class Tables:
    """Reads every table through an engine of its own, not the server's."""

    def __init__(self, engine: AsyncEngine, tables: tuple[str, ...] = TABLES) -> None:
        self.engine = engine
        self.tables = tables

    async def snapshot(self) -> Rows:
        rows: Rows = {}
        async with self.engine.connect() as conn:
            for table in self.tables:
                result = await conn.execute(text(f"SELECT * FROM {table}"))
                rows[table] = sorted((tuple(r) for r in result), key=repr)
        return rows

    @asynccontextmanager
    async def unchanged(self) -> AsyncIterator[Rows]:
        """Fails unless every table holds exactly the same rows after the block as before it."""
        before = await self.snapshot()
        yield before
        after = await self.snapshot()
        for table in self.tables:
            assert after[table] == before[table], f"{table} changed"


@pytest.fixture
async def tables(settings: Settings) -> AsyncIterator[Tables]:
    engine = create_async_engine(settings.database_url)
    yield Tables(engine)
    await engine.dispose()


async def payload_of(client: GraphQLClient, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    """The one mutation's payload; ``client.execute`` already asserts HTTP 200 and no top-level errors."""
    data = await client.execute(document, variables)
    (payload,) = data.values()
    assert isinstance(payload, dict)
    return payload


def assert_rejected(payload: dict[str, Any], *expected: tuple[str, list[str]]) -> list[dict[str, Any]]:
    """The payload carries exactly these (code, field) userErrors, each with a message, and nothing else."""
    errors: list[dict[str, Any]] = payload["userErrors"]
    assert [(e["code"], e["field"]) for e in errors] == list(expected), errors
    assert all(e["message"] for e in errors), errors
    for key, value in payload.items():
        if key != "userErrors":
            assert value in (None, []), f"{key} is set on a rejected mutation: {value!r}"
    return errors


@dataclass
class Plan:
    id: str
    step_ids: list[str]


class Driver:
    """Puts plans into the states the cases need, through the API."""

    def __init__(self, client: GraphQLClient) -> None:
        self.client = client

    async def create(self, n_steps: int = 3, **extra: object) -> Plan:
        created = await payload_of(self.client, ops.CREATE_PLAN, {"input": ops.plan_input(n_steps, **extra)})
        assert created["userErrors"] == []
        return Plan(created["plan"]["id"], created["stepIds"])

    async def start(self, plan: Plan) -> str:
        started = await payload_of(self.client, ops.START_NEXT_STEP, {"planId": plan.id})
        assert started["outcome"] == "STARTED", started
        step_id: str = started["step"]["id"]
        return step_id

    async def submit(self, step_id: str) -> dict[str, Any]:
        done = await payload_of(
            self.client, ops.SUBMIT_RESULT, {"input": {"stepId": step_id, "resultSummary": "found it"}}
        )
        assert done["userErrors"] == []
        return done

    async def review(self, step_id: str) -> None:
        asked = await payload_of(self.client, ops.REQUEST_REVIEW, {"stepId": step_id, "summary": "look"})
        assert asked["userErrors"] == []

    async def executing(self) -> Plan:
        """A three-step plan, executing, its first step in progress."""
        plan = await self.create(3)
        await self.start(plan)
        return plan

    async def awaiting_review(self) -> Plan:
        """A three-step plan awaiting review, its first step awaiting input."""
        plan = await self.executing()
        await self.review(plan.step_ids[0])
        return plan

    async def completed(self) -> Plan:
        plan = await self.create(1)
        await self.submit(await self.start(plan))
        return plan

    async def failed(self) -> Plan:
        plan = await self.create(2)
        await self.start(plan)
        failed = await payload_of(self.client, ops.FAIL_PLAN, {"planId": plan.id, "reason": "gave up"})
        assert failed["plan"]["status"] == "FAILED"
        return plan

    async def step_statuses(self, plan: Plan) -> list[str]:
        data = await self.client.execute(
            "query($id: ID!) { researchPlan(id: $id) { steps { status } } }", {"id": plan.id}
        )
        return [s["status"] for s in data["researchPlan"]["steps"]]


@pytest.fixture
def driver(client: GraphQLClient) -> Driver:
    return Driver(client)


# -- ids: unknown, malformed, of the wrong kind --

# (mutation, variables for (plan, the id under test), field of the id)
IdCase = tuple[str, Callable[[Plan, str], dict[str, Any]], list[str]]

ID_CASES: dict[str, IdCase] = {
    "startNextStep.planId": (ops.START_NEXT_STEP, lambda p, x: {"planId": x}, ["planId"]),
    "failPlan.planId": (ops.FAIL_PLAN, lambda p, x: {"planId": x, "reason": "r"}, ["planId"]),
    "storeResearchOutput.planId": (
        ops.STORE_OUTPUT,
        lambda p, x: {"planId": x, "content": "c", "mediaType": "text/plain", "title": ""},
        ["planId"],
    ),
    "modifyPlan.planId": (
        ops.MODIFY,
        lambda p, x: {
            "input": {
                "planId": x,
                "action": "UPDATE_STEP_INSTRUCTIONS",
                "stepId": p.step_ids[1],
                "instructions": "new",
            }
        },
        ["planId"],
    ),
    "modifyPlan.stepId (remove_step)": (
        ops.MODIFY,
        lambda p, x: {"input": {"planId": p.id, "action": "REMOVE_STEP", "stepId": x}},
        ["stepId"],
    ),
    "modifyPlan.stepId (update_step_instructions)": (
        ops.MODIFY,
        lambda p, x: {
            "input": {"planId": p.id, "action": "UPDATE_STEP_INSTRUCTIONS", "stepId": x, "instructions": "i"}
        },
        ["stepId"],
    ),
    "modifyPlan.stepId (fail_step)": (
        ops.MODIFY,
        lambda p, x: {"input": {"planId": p.id, "action": "FAIL_STEP", "stepId": x, "reason": "r"}},
        ["stepId"],
    ),
    "submitStepResult.stepId": (
        ops.SUBMIT_RESULT,
        lambda p, x: {"input": {"stepId": x, "resultSummary": "s"}},
        ["stepId"],
    ),
    "requestUserReview.stepId": (ops.REQUEST_REVIEW, lambda p, x: {"stepId": x, "summary": "s"}, ["stepId"]),
    "submitUserDecision.stepId": (ops.DECIDE, lambda p, x: {"stepId": x, "decision": "APPROVE"}, ["stepId"]),
    "retryStep.stepId": (ops.RETRY, lambda p, x: {"stepId": x}, ["stepId"]),
    "completeSkillExecution.skillExecutionId": (
        ops.COMPLETE_SKILL,
        lambda p, x: {"id": x, "summary": "s"},
        ["skillExecutionId"],
    ),
}


@pytest.mark.parametrize("case", ID_CASES.values(), ids=ID_CASES.keys())
async def test_an_unknown_id_is_not_found_on_its_field_and_writes_nothing(
    case: IdCase, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    document, variables, field = case
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, document, variables(plan, str(uuid.uuid4())))
    assert_rejected(payload, (NOT_FOUND, field))


@pytest.mark.parametrize("case", ID_CASES.values(), ids=ID_CASES.keys())
async def test_a_malformed_id_fails_validation_on_its_field_and_writes_nothing(
    case: IdCase, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    document, variables, field = case
    plan = await driver.executing()
    for malformed in ["not-an-id", "", "1 OR 1=1"]:
        async with tables.unchanged():
            payload = await payload_of(client, document, variables(plan, malformed))
        (error,) = assert_rejected(payload, (VALIDATION_FAILED, field))
        assert "not a valid id" in error["message"], malformed


async def test_a_step_id_given_as_a_plan_id_is_not_found(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.START_NEXT_STEP, {"planId": plan.step_ids[1]})
    assert_rejected(payload, (NOT_FOUND, ["planId"]))


# -- creating a plan --


async def test_a_plan_without_steps_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.CREATE_PLAN, {"input": {**ops.plan_input(), "steps": []}})
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["steps"]))
    assert "at least one step" in error["message"]


async def test_a_plan_with_more_steps_than_the_limit_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.CREATE_PLAN, {"input": ops.plan_input(MAX_STEPS + 1)})
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["steps"]))
    assert str(MAX_STEPS) in error["message"]


UNKNOWN_STEP_TYPE = {
    "variable": (
        ops.CREATE_PLAN,
        {"input": {"researchQuestion": "q", "steps": [{"stepType": "DAYDREAM", "instructions": "i"}]}},
    ),
    "literal": (
        """mutation { createResearchPlan(input: {researchQuestion: "q",
             steps: [{stepType: DAYDREAM, instructions: "i"}]}) { userErrors { code } } }""",
        {},
    ),
    "modifyPlan add_steps": (
        ops.MODIFY,
        {
            "input": {
                "planId": "00000000-0000-0000-0000-000000000000",
                "action": "ADD_STEPS",
                "steps": [{"stepType": "DAYDREAM", "instructions": "i"}],
            }
        },
    ),
}


@pytest.mark.parametrize("case", UNKNOWN_STEP_TYPE.values(), ids=UNKNOWN_STEP_TYPE.keys())
async def test_an_unknown_step_type_is_a_400_request_error_naming_the_value(
    case: tuple[str, dict[str, Any]], client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    document, variables = case
    await driver.executing()
    async with tables.unchanged():
        response = await client.post(document, variables)
    assert response.status_code == 400
    body = response.json()
    assert "data" not in body
    messages = [e["message"] for e in body["errors"]]
    assert any("DAYDREAM" in m and "StepType" in m for m in messages), messages
    assert not any("Did you mean" in m for m in messages), messages


async def test_a_non_positive_stall_threshold_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(
            client, ops.CREATE_PLAN, {"input": ops.plan_input(stallThresholdSeconds=0)}
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["stallThresholdSeconds"]))


# -- branching conditions --


def condition(after: int, target: int | None, action: str = "SKIP_TO") -> dict[str, Any]:
    return {
        "afterStepOrder": after,
        "field": "confidence",
        "op": "LT",
        "value": 0.5,
        "action": action,
        "targetStepOrder": target,
    }


BAD_CONDITIONS = {
    "target does not exist": (condition(1, 9), "targetStepOrder"),
    "target is zero": (condition(1, 0), "targetStepOrder"),
    "target points backwards": (condition(2, 1), "targetStepOrder"),
    "target is the same step": (condition(2, 2), "targetStepOrder"),
    "skip_to without a target": (condition(1, None), "targetStepOrder"),
    "fail with a target": (condition(1, 3, action="FAIL"), "targetStepOrder"),
    "afterStepOrder zero": (condition(0, 2), "afterStepOrder"),
    "afterStepOrder past the last step": (condition(4, None, action="FAIL"), "afterStepOrder"),
    "empty field": ({**condition(1, 3), "field": ""}, "field"),
    "ordering against a non-number": ({**condition(1, 3), "value": {"a": 1}}, "value"),
}


@pytest.mark.parametrize("case", BAD_CONDITIONS.values(), ids=BAD_CONDITIONS.keys())
async def test_a_bad_branching_condition_is_rejected_on_its_field(
    case: tuple[dict[str, Any], str], client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    cond, field = case
    await driver.executing()
    good = condition(1, 3)
    async with tables.unchanged():
        payload = await payload_of(
            client, ops.CREATE_PLAN, {"input": ops.plan_input(3, branchingConditions=[good, cond])}
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["branchingConditions", "1", field]))


async def test_every_problem_of_a_plan_is_reported_at_once(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    await driver.executing()
    plan = ops.plan_input(3, branchingConditions=[condition(2, 1), condition(1, 3), condition(7, 9)])
    plan["researchQuestion"] = ""
    plan["steps"][1]["instructions"] = "x" * (MAX_TEXT + 1)  # type: ignore[index]
    async with tables.unchanged():
        payload = await payload_of(client, ops.CREATE_PLAN, {"input": plan})
    assert_rejected(
        payload,
        (VALIDATION_FAILED, ["researchQuestion"]),
        (VALIDATION_FAILED, ["steps", "1", "instructions"]),
        (VALIDATION_FAILED, ["branchingConditions", "0", "targetStepOrder"]),
        (VALIDATION_FAILED, ["branchingConditions", "2", "afterStepOrder"]),
        (VALIDATION_FAILED, ["branchingConditions", "2", "targetStepOrder"]),
    )


# -- confidence --


@pytest.mark.parametrize("confidence", [1.0001, 2, -0.0001, -1, 1e308])
async def test_confidence_outside_zero_to_one_is_rejected(
    confidence: float, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(
            client,
            ops.SUBMIT_RESULT,
            {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "confidence": confidence}},
        )
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["confidence"]))
    assert "[0, 1]" in error["message"]
    assert await driver.step_statuses(plan) == ["IN_PROGRESS", "PENDING", "PENDING"]


@pytest.mark.parametrize("confidence", [0, 1])
async def test_confidence_at_the_bounds_is_accepted(
    confidence: float, client: GraphQLClient, driver: Driver
) -> None:
    plan = await driver.executing()
    payload = await payload_of(
        client,
        ops.SUBMIT_RESULT,
        {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "confidence": confidence}},
    )
    assert payload["userErrors"] == []
    assert payload["step"]["confidence"] == confidence


def _nan_body(query: str, variables: dict[str, Any]) -> bytes:
    # Python's json writes NaN/Infinity tokens (not standard JSON, but what a careless client sends).
    return json.dumps({"query": query, "variables": variables}, allow_nan=True).encode()


@pytest.mark.parametrize("confidence", [math.nan, math.inf, -math.inf])
async def test_a_non_finite_confidence_in_the_request_is_a_400_request_error(
    confidence: float, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    variables = {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "confidence": confidence}}
    async with tables.unchanged():
        response = await client.http.post(
            "/graphql",
            content=_nan_body(ops.SUBMIT_RESULT, variables),
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 400, response.text
    body = response.json()
    assert "data" not in body
    # The NaN / Infinity token is not JSON: the body is refused before any GraphQL runs.
    assert [e["extensions"]["code"] for e in body["errors"]] == ["BAD_REQUEST"], body
    assert "is not JSON" in body["errors"][0]["message"], body


async def test_a_non_finite_number_in_result_data_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    variables = {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "resultData": {"x": math.nan}}}
    async with tables.unchanged():
        response = await client.http.post(
            "/graphql",
            content=_nan_body(ops.SUBMIT_RESULT, variables),
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 400, response.text
    assert "NaN is not JSON" in response.json()["errors"][0]["message"]


@pytest.mark.parametrize("confidence", [math.nan, math.inf, -math.inf])
async def test_the_service_rejects_a_non_finite_confidence(
    confidence: float, runtime: Runtime, principal: Principal, tables: Tables
) -> None:
    async with unit_of_work(runtime, principal) as tx:
        created = await plan_create.create_research_plan(
            tx, NewPlan("q", [NewStep("search", "look"), NewStep("analyze", "think")])
        )
    async with unit_of_work(runtime, principal) as tx:
        started = await plan_execution.start_next_step(tx, created.plan.id)
    assert started.step is not None

    async with tables.unchanged():
        with pytest.raises(ServiceError) as raised:
            async with unit_of_work(runtime, principal) as tx:
                await plan_execution.submit_step_result(
                    tx, StepResult(started.step.id, "found", confidence=confidence)
                )
    (problem,) = raised.value.problems
    assert (problem.code, problem.field) == (ErrorCode.VALIDATION_FAILED, ["confidence"])


# -- sizes (this module's limits: MAX_TEXT, MAX_RESULT bytes) --


async def test_instructions_over_the_byte_limit_are_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    await driver.executing()
    plan = ops.plan_input(2)
    # Bytes, not characters: 33 characters, 66 bytes in UTF-8.
    plan["steps"][1]["instructions"] = "é" * (MAX_TEXT // 2 + 1)  # type: ignore[index]
    async with tables.unchanged():
        payload = await payload_of(client, ops.CREATE_PLAN, {"input": plan})
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["steps", "1", "instructions"]))
    assert f"limit is {MAX_TEXT}" in error["message"]


async def test_instructions_exactly_at_the_byte_limit_are_accepted(client: GraphQLClient) -> None:
    plan = ops.plan_input(1)
    plan["steps"][0]["instructions"] = "é" * (MAX_TEXT // 2)  # type: ignore[index]
    payload = await payload_of(client, ops.CREATE_PLAN, {"input": plan})
    assert payload["userErrors"] == []


async def test_a_result_summary_over_the_byte_limit_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(
            client,
            ops.SUBMIT_RESULT,
            {"input": {"stepId": plan.step_ids[0], "resultSummary": "s" * (MAX_TEXT + 1)}},
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["resultSummary"]))


async def test_result_data_over_the_byte_limit_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    data = {"notes": "n" * MAX_RESULT}
    async with tables.unchanged():
        payload = await payload_of(
            client,
            ops.SUBMIT_RESULT,
            {"input": {"stepId": plan.step_ids[0], "resultSummary": "s", "resultData": data}},
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["resultData"]))


async def test_several_oversized_result_fields_are_reported_at_once(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    result = {
        "stepId": plan.step_ids[0],
        "resultSummary": "s" * (MAX_TEXT + 1),
        "resultData": {"notes": "n" * MAX_RESULT},
        "confidence": 7,
    }
    async with tables.unchanged():
        payload = await payload_of(client, ops.SUBMIT_RESULT, {"input": result})
    assert_rejected(
        payload,
        (VALIDATION_FAILED, ["resultSummary"]),
        (VALIDATION_FAILED, ["resultData"]),
        (VALIDATION_FAILED, ["confidence"]),
    )


async def test_updated_instructions_over_the_byte_limit_are_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    mod = {
        "planId": plan.id,
        "action": "UPDATE_STEP_INSTRUCTIONS",
        "stepId": plan.step_ids[1],
        "instructions": "i" * (MAX_TEXT + 1),
    }
    async with tables.unchanged():
        payload = await payload_of(client, ops.MODIFY, {"input": mod})
    assert_rejected(payload, (VALIDATION_FAILED, ["instructions"]))


async def test_added_steps_over_the_byte_limit_are_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    mod = {
        "planId": plan.id,
        "action": "ADD_STEPS",
        "steps": [{"stepType": "SEARCH", "instructions": "ok"}, {"stepType": "CUSTOM", "instructions": ""}],
    }
    async with tables.unchanged():
        payload = await payload_of(client, ops.MODIFY, {"input": mod})
    assert_rejected(payload, (VALIDATION_FAILED, ["steps", "1", "instructions"]))


@pytest.mark.parametrize("after", [-1, 4])
async def test_adding_steps_after_an_order_out_of_range_is_rejected(
    after: int, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    mod = {
        "planId": plan.id,
        "action": "ADD_STEPS",
        "insertAfterOrder": after,
        "steps": [{"stepType": "SEARCH", "instructions": "more"}],
    }
    async with tables.unchanged():
        payload = await payload_of(client, ops.MODIFY, {"input": mod})
    assert_rejected(payload, (VALIDATION_FAILED, ["insertAfterOrder"]))


async def test_modify_feedback_that_would_push_instructions_over_the_limit_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.awaiting_review()
    # The feedback alone fits; appended to the instructions it does not.
    async with tables.unchanged():
        payload = await payload_of(
            client,
            ops.DECIDE,
            {"stepId": plan.step_ids[0], "decision": "MODIFY", "feedback": "f" * (MAX_TEXT - 10)},
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["feedback"]))


# -- reorder_steps --


async def _reorder(client: GraphQLClient, plan: Plan, step_ids: list[str]) -> dict[str, Any]:
    mod = {"planId": plan.id, "action": "REORDER_STEPS", "stepIds": step_ids}
    return await payload_of(client, ops.MODIFY, {"input": mod})


async def test_reorder_without_every_step_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    a, b, c = plan.step_ids
    async with tables.unchanged():
        payload = await _reorder(client, plan, [c, a])
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["stepIds"]))
    assert "missing" in error["message"]
    assert b in error["message"]


async def test_reorder_with_a_step_of_another_plan_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    other = await driver.create(2)
    a, b, c = plan.step_ids
    async with tables.unchanged():
        payload = await _reorder(client, plan, [c, b, a, other.step_ids[0]])
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["stepIds"]))
    assert "not in this plan" in error["message"]
    assert other.step_ids[0] in error["message"]


async def test_reorder_swapping_in_a_foreign_step_reports_both_problems(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    other = await driver.create(2)
    a, b, _ = plan.step_ids
    async with tables.unchanged():
        payload = await _reorder(client, plan, [b, a, other.step_ids[1]])
    errors = assert_rejected(payload, (VALIDATION_FAILED, ["stepIds"]), (VALIDATION_FAILED, ["stepIds"]))
    assert "not in this plan" in errors[0]["message"]
    assert "missing" in errors[1]["message"]


async def test_reorder_listing_a_step_twice_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    a, b, c = plan.step_ids
    async with tables.unchanged():
        payload = await _reorder(client, plan, [a, b, c, a])
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["stepIds"]))
    assert "more than once" in error["message"]


async def test_reorder_with_a_malformed_id_names_its_position(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    a, b, c = plan.step_ids
    async with tables.unchanged():
        payload = await _reorder(client, plan, [a, "nope", c, b])
    assert_rejected(payload, (VALIDATION_FAILED, ["stepIds", "1"]))


# -- user decisions --


DECISIONS = {
    "APPROVE": {"decision": "APPROVE"},
    "REJECT": {"decision": "REJECT", "feedback": "no"},
    "MODIFY": {"decision": "MODIFY", "feedback": "look again"},
    "SKIP": {"decision": "SKIP"},
}


@pytest.mark.parametrize("step_index", [0, 1], ids=["in_progress", "pending"])
@pytest.mark.parametrize("decision", DECISIONS.values(), ids=DECISIONS.keys())
async def test_a_decision_on_a_step_not_awaiting_input_is_an_invalid_transition(
    decision: dict[str, str], step_index: int, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.DECIDE, {"stepId": plan.step_ids[step_index], **decision})
    (error,) = assert_rejected(payload, (INVALID_TRANSITION, ["stepId"]))
    assert error["entity"] == "step"
    assert error["fromState"] == ["in_progress", "pending"][step_index]


@pytest.mark.parametrize("feedback", [None, ""], ids=["missing", "empty"])
async def test_modify_without_feedback_is_rejected(
    feedback: str | None, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.awaiting_review()
    async with tables.unchanged():
        payload = await payload_of(
            client, ops.DECIDE, {"stepId": plan.step_ids[0], "decision": "MODIFY", "feedback": feedback}
        )
    (error,) = assert_rejected(payload, (VALIDATION_FAILED, ["feedback"]))
    assert "must not be empty" in error["message"]
    assert await driver.step_statuses(plan) == ["AWAITING_INPUT", "PENDING", "PENDING"]


async def test_requesting_review_of_a_pending_step_is_an_invalid_transition(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.REQUEST_REVIEW, {"stepId": plan.step_ids[1], "summary": "s"})
    (error,) = assert_rejected(payload, (INVALID_TRANSITION, ["stepId"]))
    assert (error["entity"], error["fromState"], error["toState"]) == ("step", "pending", "awaiting_input")


# -- plans that are over --

# (mutation, variables for a plan and its first step, field)
TerminalCase = tuple[str, Callable[[Plan], dict[str, Any]], list[str]]

ON_A_FINISHED_PLAN: dict[str, TerminalCase] = {
    "submitStepResult": (
        ops.SUBMIT_RESULT,
        lambda p: {"input": {"stepId": p.step_ids[0], "resultSummary": "again"}},
        ["stepId"],
    ),
    "requestUserReview": (
        ops.REQUEST_REVIEW,
        lambda p: {"stepId": p.step_ids[0], "summary": "s"},
        ["stepId"],
    ),
    "submitUserDecision": (
        ops.DECIDE,
        lambda p: {"stepId": p.step_ids[0], "decision": "APPROVE"},
        ["stepId"],
    ),
    "retryStep": (ops.RETRY, lambda p: {"stepId": p.step_ids[0]}, ["stepId"]),
    "failPlan": (ops.FAIL_PLAN, lambda p: {"planId": p.id, "reason": "again"}, ["planId"]),
    "modifyPlan add_steps": (
        ops.MODIFY,
        lambda p: {
            "input": {
                "planId": p.id,
                "action": "ADD_STEPS",
                "steps": [{"stepType": "SEARCH", "instructions": "i"}],
            }
        },
        ["planId"],
    ),
    "modifyPlan update_step_instructions": (
        ops.MODIFY,
        lambda p: {
            "input": {
                "planId": p.id,
                "action": "UPDATE_STEP_INSTRUCTIONS",
                "stepId": p.step_ids[0],
                "instructions": "new",
            }
        },
        ["planId"],
    ),
    "modifyPlan fail_step": (
        ops.MODIFY,
        lambda p: {"input": {"planId": p.id, "action": "FAIL_STEP", "stepId": p.step_ids[0], "reason": "r"}},
        ["planId"],
    ),
    "modifyPlan reorder_steps": (
        ops.MODIFY,
        lambda p: {"input": {"planId": p.id, "action": "REORDER_STEPS", "stepIds": p.step_ids}},
        ["planId"],
    ),
}


@pytest.mark.parametrize("state", ["completed", "failed"])
@pytest.mark.parametrize("case", ON_A_FINISHED_PLAN.values(), ids=ON_A_FINISHED_PLAN.keys())
async def test_a_finished_plan_refuses_every_change(
    case: TerminalCase, state: str, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    document, variables, field = case
    plan = await (driver.completed() if state == "completed" else driver.failed())
    async with tables.unchanged():
        payload = await payload_of(client, document, variables(plan))
    errors = payload["userErrors"]
    assert [e["code"] for e in errors] == [INVALID_TRANSITION], errors
    (error,) = errors
    assert (error["entity"], error["fromState"]) == ("plan", state)
    assert state in error["message"]
    assert_rejected(payload, (INVALID_TRANSITION, field))


@pytest.mark.parametrize(("state", "outcome"), [("completed", "PLAN_COMPLETE"), ("failed", "PLAN_FAILED")])
async def test_start_next_step_on_a_finished_plan_reports_it_and_writes_nothing(
    state: str, outcome: str, client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await (driver.completed() if state == "completed" else driver.failed())
    async with tables.unchanged():
        payload = await payload_of(client, ops.START_NEXT_STEP, {"planId": plan.id})
    assert payload["userErrors"] == []
    assert payload["outcome"] == outcome
    assert payload["step"] is None


# -- other plain mistakes --


async def test_failing_a_plan_without_a_reason_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(client, ops.FAIL_PLAN, {"planId": plan.id, "reason": ""})
    assert_rejected(payload, (VALIDATION_FAILED, ["reason"]))


async def test_removing_a_started_step_is_an_invalid_transition(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(
            client,
            ops.MODIFY,
            {"input": {"planId": plan.id, "action": "REMOVE_STEP", "stepId": plan.step_ids[0]}},
        )
    (error,) = assert_rejected(payload, (INVALID_TRANSITION, ["stepId"]))
    assert (error["entity"], error["fromState"]) == ("step", "in_progress")


async def test_a_step_action_without_a_step_id_is_rejected(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.executing()
    async with tables.unchanged():
        payload = await payload_of(
            client, ops.MODIFY, {"input": {"planId": plan.id, "action": "REMOVE_STEP"}}
        )
    assert_rejected(payload, (VALIDATION_FAILED, ["stepId"]))


async def test_a_plan_awaiting_review_cannot_be_modified(
    client: GraphQLClient, driver: Driver, tables: Tables
) -> None:
    plan = await driver.awaiting_review()
    mod = {
        "planId": plan.id,
        "action": "UPDATE_STEP_INSTRUCTIONS",
        "stepId": plan.step_ids[1],
        "instructions": "i",
    }
    async with tables.unchanged():
        payload = await payload_of(client, ops.MODIFY, {"input": mod})
    (error,) = assert_rejected(payload, (INVALID_TRANSITION, ["planId"]))
    assert (error["entity"], error["fromState"]) == ("plan", "awaiting_review")
