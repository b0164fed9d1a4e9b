"""decideReviews through a real server: many decisions in one request, each in its own transaction, a
result per item with the refused ones' codes; the count is bounded, the role checked, tenants apart."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import mission_operations as mops
from tests.api import operations as plan_ops
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

DECIDE = """
mutation Decide($decisions: [ReviewDecisionInput!]!) {
  decideReviews(decisions: $decisions) {
    decided refused
    results { index kind subjectId decided userErrors { code field } }
    userErrors { code field }
  }
}
"""
GATED = {"name": "gated", "steps": [{"name": "gate", "approval": True}]}


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0, max_page_size=8)


@pytest.fixture
async def keys(
    settings: Settings, clock: FakeClock, live_server: LiveServer
) -> AsyncIterator[dict[str, GraphQLClient]]:
    db = Database(settings.database_url)
    try:
        raw = {
            name: (await create_key(db, tenant, role, name, clock.now()))[1]
            for name, tenant, role in [
                ("agent", "tenant-a", Role.AGENT),
                ("reviewer", "tenant-a", Role.REVIEWER),
                ("other", "tenant-b", Role.ADMIN),
            ]
        }
    finally:
        await db.dispose()
    made = {name: GraphQLClient(live_server.url, key) for name, key in raw.items()}
    try:
        yield made
    finally:
        for c in made.values():
            await c.aclose()


async def gate_of_new_workflow(agent: GraphQLClient) -> tuple[str, str]:
    created = (await agent.execute(ops.CREATE, {"input": GATED}))["createWorkflow"]["workflow"]
    await agent.execute(ops.START, {"id": created["id"]})
    step = ops.steps_by_name(created)["gate"]
    return str(created["id"]), str(step["id"])


async def test_one_request_decides_every_domain_and_lists_the_refused(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    gates = [await gate_of_new_workflow(agent) for _ in range(3)]
    mission = (await agent.execute(mops.PROPOSE_MISSION, {"input": {"title": "t", "goal": "g"}}))[
        "proposeMission"
    ]["mission"]["id"]
    plan = (await agent.execute(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(1)}))[
        "createResearchPlan"
    ]
    step_id = (await agent.execute(plan_ops.START_NEXT_STEP, {"planId": plan["plan"]["id"]}))[
        "startNextStep"
    ]["step"]["id"]
    await agent.execute(plan_ops.REQUEST_REVIEW, {"stepId": step_id, "summary": "look", "questions": []})

    decisions: list[dict[str, Any]] = [
        {"kind": "WORKFLOW_STEP", "id": gates[0][1], "approve": True},
        {"kind": "WORKFLOW_STEP", "id": gates[1][1], "approve": False, "reason": "not now"},
        {"kind": "WORKFLOW_STEP", "id": gates[0][1], "approve": True},  # decided a moment ago
        {"kind": "MISSION", "id": mission, "approve": False},  # a rejection needs a reason
        {"kind": "MISSION", "id": mission, "approve": True},
        {"kind": "PLAN_STEP", "id": step_id, "approve": True},
        {"kind": "ASSET", "id": str(uuid.uuid4()), "approve": True},
        {"kind": "WORKFLOW_STEP", "id": gates[2][1], "approve": True},
    ]
    payload = (await reviewer.execute(DECIDE, {"decisions": decisions}))["decideReviews"]
    assert payload["userErrors"] == []
    assert (payload["decided"], payload["refused"]) == (5, 3)
    assert [(r["index"], r["decided"], [e["code"] for e in r["userErrors"]]) for r in payload["results"]] == [
        (0, True, []),
        (1, True, []),
        (2, False, ["INVALID_TRANSITION"]),
        (3, False, ["VALIDATION_FAILED"]),
        (4, True, []),
        (5, True, []),
        (6, False, ["NOT_FOUND"]),
        (7, True, []),
    ]
    assert payload["results"][3]["userErrors"][0]["field"] == ["decisions", "3", "reason"]
    statuses = [
        (await reviewer.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]["status"]
        for workflow_id, _ in gates
    ]
    assert statuses == ["COMPLETED", "FAILED", "COMPLETED"]


async def test_the_count_is_bounded_and_the_role_and_tenant_checked(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer, other = keys["agent"], keys["reviewer"], keys["other"]
    _, gate = await gate_of_new_workflow(agent)
    one = {"kind": "WORKFLOW_STEP", "id": gate, "approve": True}
    for decisions in ([], [one] * 9):
        payload = (await reviewer.execute(DECIDE, {"decisions": decisions}))["decideReviews"]
        assert [(e["code"], e["field"]) for e in payload["userErrors"]] == [
            ("VALIDATION_FAILED", ["decisions"])
        ]
        assert payload["results"] == []
    forbidden = (await agent.post(DECIDE, {"decisions": [one]})).json()["errors"]
    assert forbidden[0]["extensions"]["code"] == "FORBIDDEN"
    stranger = (await other.execute(DECIDE, {"decisions": [one]}))["decideReviews"]
    assert [e["code"] for r in stranger["results"] for e in r["userErrors"]] == ["NOT_FOUND"]
    bad_id = (await reviewer.execute(DECIDE, {"decisions": [{**one, "id": "x" * 300}]}))["decideReviews"]
    assert [e["code"] for r in bad_id["results"] for e in r["userErrors"]] == ["VALIDATION_FAILED"]
    # Nothing above decided the gate: it still waits.
    assert (await reviewer.execute(ops.AWAITING_REVIEW))["workflowStepsAwaitingReview"]["totalCount"] == 1
