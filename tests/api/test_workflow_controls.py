"""A person's workflow controls through a real server: cancelWorkflow, rerunWorkflow and availableActions,
with bad input, roles and tenants."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from tests.api import operations as plan_ops
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

ACTIONS = "availableActions { mutation action }"
CANCEL = f"""
mutation Cancel($id: ID!, $reason: String!) {{
  cancelWorkflow(workflowId: $id, reason: $reason) {{
    workflow {{ id status outcome failureReason {ACTIONS}
      steps {{ edges {{ node {{ name status lastError }} }} }}
      compensations {{ stepName status }} }}
    {ops.ERRORS}
  }}
}}
"""
RERUN = f"""
mutation Rerun($id: ID!) {{
  rerunWorkflow(workflowId: $id) {{
    workflow {{ id name status rerunOfId rerunOf {{ id status }} reruns {{ id }}
      steps {{ totalCount edges {{ node {{ name status dependsOn approval }} }} }} }}
    {ops.ERRORS}
  }}
}}
"""
WORKFLOW_ACTIONS = f"""
query One($id: ID!) {{
  workflow(id: $id) {{ id status reruns {{ id rerunOf {{ id }} }} {ACTIONS}
    steps {{ edges {{ node {{ name status blockedOn {ACTIONS} }} }} }} }}
}}
"""
ONE = {"name": "one", "steps": [{"name": "only"}]}
GATED = {
    "name": "gated",
    "steps": [{"name": "prep"}, {"name": "gate", "dependsOn": ["prep"], "approval": True}],
}
SAGA = {
    "name": "saga",
    "failurePolicy": "COMPENSATE",
    "steps": [
        {"name": "book"},
        {"name": "pay", "dependsOn": ["book"]},
        {"name": "ok", "dependsOn": ["pay"], "approval": True},
    ],
    "compensation": [{"step": "book", "action": "unbook", "agent": "undo"}],
}


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@pytest.fixture
async def raw_keys(settings: Settings, clock: FakeClock) -> dict[str, str]:
    db = Database(settings.database_url)
    try:
        return {
            name: (await create_key(db, tenant, role, name, clock.now()))[1]
            for name, tenant, role in [
                ("agent", "tenant-a", Role.AGENT),
                ("reviewer", "tenant-a", Role.REVIEWER),
                ("viewer", "tenant-a", Role.VIEWER),
                ("admin", "tenant-a", Role.ADMIN),
                ("other", "tenant-b", Role.ADMIN),
            ]
        }
    finally:
        await db.dispose()


@pytest.fixture
async def keys(raw_keys: dict[str, str], live_server: LiveServer) -> AsyncIterator[dict[str, GraphQLClient]]:
    made = {name: GraphQLClient(live_server.url, key) for name, key in raw_keys.items()}
    try:
        yield made
    finally:
        for c in made.values():
            await c.aclose()


async def started(agent: GraphQLClient, definition: dict[str, Any]) -> str:
    created = (await agent.execute(ops.CREATE, {"input": definition}))["createWorkflow"]
    assert created["userErrors"] == [], created
    workflow_id = str(created["workflow"]["id"])
    assert (await agent.execute(ops.START, {"id": workflow_id}))["startWorkflow"]["userErrors"] == []
    return workflow_id


async def claim_and_complete(agent: GraphQLClient, workflow_id: str) -> None:
    step = (await agent.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))["claimWorkflowStep"][
        "step"
    ]
    done = (await agent.execute(ops.COMPLETE, {"stepId": step["id"], "agent": "w"}))["completeWorkflowStep"]
    assert done["userErrors"] == []


def actions(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(a["mutation"], a["action"]) for a in obj["availableActions"]]


async def events_of(client: GraphQLClient, root_id: str) -> list[dict[str, Any]]:
    page = await client.execute(plan_ops.EVENTS, {"rootId": root_id, "after": 0, "first": 100})
    return [e["node"] for e in page["events"]["edges"]]


async def test_cancelling_an_executing_workflow_fails_it_with_the_reason(
    keys: dict[str, GraphQLClient],
) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    workflow_id = await started(agent, ONE)
    step = (await agent.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]

    payload = (await reviewer.execute(CANCEL, {"id": workflow_id, "reason": "wrong input"}))["cancelWorkflow"]
    assert payload["userErrors"] == []
    workflow = payload["workflow"]
    assert (workflow["status"], workflow["outcome"]) == ("FAILED", "FAILED")
    assert "wrong input" in workflow["failureReason"]
    only = workflow["steps"]["edges"][0]["node"]
    assert only["status"] == "FAILED"
    assert only["lastError"].startswith("cancelled")
    # The holder's late report is refused: the step is no longer running.
    late = (await agent.execute(ops.COMPLETE, {"stepId": step["id"], "agent": "w"}))["completeWorkflowStep"]
    assert [e["code"] for e in late["userErrors"]] == ["INVALID_TRANSITION"]

    kinds = [(e["kind"], e["fromState"], e["toState"]) for e in await events_of(reviewer, workflow_id)]
    assert ("workflow_transitioned", "executing", "failed") in kinds
    cancelled = [e for e in await events_of(reviewer, workflow_id) if e["kind"] == "workflow_cancelled"]
    assert len(cancelled) == 1
    assert cancelled[0]["data"]["reason"] == "wrong input"
    assert cancelled[0]["data"]["by"] == "key:reviewer"


async def test_cancelling_a_blocked_workflow_under_compensate_compensates(
    keys: dict[str, GraphQLClient],
) -> None:
    agent, admin = keys["agent"], keys["admin"]
    workflow_id = await started(agent, SAGA)
    await claim_and_complete(agent, workflow_id)  # book
    await claim_and_complete(agent, workflow_id)  # pay; the gate opens and the workflow waits
    assert (await admin.execute(WORKFLOW_ACTIONS, {"id": workflow_id}))["workflow"]["status"] == "BLOCKED"

    payload = (await admin.execute(CANCEL, {"id": workflow_id, "reason": "changed my mind"}))[
        "cancelWorkflow"
    ]
    assert payload["userErrors"] == []
    assert payload["workflow"]["status"] == "COMPENSATING"
    assert payload["workflow"]["compensations"] == [{"stepName": "book", "status": "PENDING"}]
    walked = [
        (e["fromState"], e["toState"])
        for e in await events_of(admin, workflow_id)
        if e["kind"] == "workflow_transitioned"
    ]
    # The seed's table has no blocked -> compensating edge: the cancellation walks through executing.
    assert walked[-2:] == [("blocked", "executing"), ("executing", "compensating")]
    # Compensating is not cancelled again.
    again = (await admin.execute(CANCEL, {"id": workflow_id, "reason": "twice"}))["cancelWorkflow"]
    assert [(e["code"], e["fromState"]) for e in again["userErrors"]] == [
        ("INVALID_TRANSITION", "compensating")
    ]


async def test_idle_and_finished_workflows_are_not_cancelled(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    idle = (await agent.execute(ops.CREATE, {"input": ONE}))["createWorkflow"]["workflow"]["id"]
    refused = (await reviewer.execute(CANCEL, {"id": idle, "reason": "no"}))["cancelWorkflow"]
    assert [(e["code"], e["fromState"], e["field"]) for e in refused["userErrors"]] == [
        ("INVALID_TRANSITION", "idle", ["workflowId"])
    ]
    done = await started(agent, ONE)
    await claim_and_complete(agent, done)
    refused = (await reviewer.execute(CANCEL, {"id": done, "reason": "no"}))["cancelWorkflow"]
    assert [e["code"] for e in refused["userErrors"]] == ["INVALID_TRANSITION"]
    assert len(await events_of(reviewer, idle)) == 1  # only its creation: nothing half-written


async def test_cancel_input_is_checked(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    workflow_id = await started(agent, ONE)
    for variables, code, field in [
        ({"id": workflow_id, "reason": ""}, "VALIDATION_FAILED", ["reason"]),
        ({"id": workflow_id, "reason": "x" * 70_000}, "VALIDATION_FAILED", ["reason"]),
        ({"id": workflow_id, "reason": "bad\x00byte"}, "VALIDATION_FAILED", ["reason"]),
        ({"id": "not-an-id", "reason": "r"}, "VALIDATION_FAILED", ["workflowId"]),
        ({"id": str(uuid.uuid4()), "reason": "r"}, "NOT_FOUND", ["workflowId"]),
    ]:
        errors = (await reviewer.execute(CANCEL, variables))["cancelWorkflow"]["userErrors"]
        assert [(e["code"], e["field"]) for e in errors] == [(code, field)], variables
    rerun = (await reviewer.execute(RERUN, {"id": "x" * 5000}))["rerunWorkflow"]["userErrors"]
    assert [e["code"] for e in rerun] == ["VALIDATION_FAILED"]
    assert (await reviewer.execute(WORKFLOW_ACTIONS, {"id": workflow_id}))["workflow"][
        "status"
    ] == "EXECUTING"


async def test_a_rerun_is_a_new_started_workflow_linked_both_ways(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    old = await started(agent, GATED)
    await reviewer.execute(CANCEL, {"id": old, "reason": "stop"})

    payload = (await reviewer.execute(RERUN, {"id": old}))["rerunWorkflow"]
    assert payload["userErrors"] == []
    new = payload["workflow"]
    assert new["id"] != old
    assert (new["name"], new["status"], new["rerunOfId"]) == ("gated", "EXECUTING", old)
    assert new["rerunOf"] == {"id": old, "status": "FAILED"}
    steps = [e["node"] for e in new["steps"]["edges"]]
    assert [(s["name"], s["status"], s["dependsOn"], s["approval"]) for s in steps] == [
        ("prep", "PENDING", [], False),
        ("gate", "PENDING", ["prep"], True),
    ]
    previous = (await reviewer.execute(WORKFLOW_ACTIONS, {"id": old}))["workflow"]
    assert previous["reruns"] == [{"id": new["id"], "rerunOf": {"id": old}}]
    # Each side's event names the other.
    assert [
        e["data"]["rerunId"] for e in await events_of(reviewer, old) if e["kind"] == "workflow_rerun"
    ] == [new["id"]]
    assert [
        e["data"]["rerunOf"] for e in await events_of(reviewer, new["id"]) if e["kind"] == "workflow_rerun"
    ] == [old]
    # The rerun is a real workflow: an agent claims its first step.
    claim = (await agent.execute(ops.CLAIM, {"agent": "w", "workflowId": new["id"]}))["claimWorkflowStep"]
    assert claim["step"]["name"] == "prep"


async def test_only_finished_workflows_are_rerun(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    running = await started(agent, ONE)
    refused = (await reviewer.execute(RERUN, {"id": running}))["rerunWorkflow"]
    assert [(e["code"], e["fromState"]) for e in refused["userErrors"]] == [
        ("INVALID_TRANSITION", "executing")
    ]
    assert (await reviewer.execute(WORKFLOW_ACTIONS, {"id": running}))["workflow"]["reruns"] == []
    await claim_and_complete(agent, running)
    assert (await reviewer.execute(RERUN, {"id": running}))["rerunWorkflow"]["userErrors"] == []


async def test_roles_and_tenants_of_the_controls(keys: dict[str, GraphQLClient]) -> None:
    agent, viewer, stranger = keys["agent"], keys["viewer"], keys["other"]
    workflow_id = await started(agent, ONE)
    for client in (agent, viewer):
        for document, variables in [
            (CANCEL, {"id": workflow_id, "reason": "r"}),
            (RERUN, {"id": workflow_id}),
        ]:
            errors = (await client.post(document, variables)).json()["errors"]
            assert errors[0]["extensions"]["code"] == "FORBIDDEN"
    cancel = (await stranger.execute(CANCEL, {"id": workflow_id, "reason": "r"}))["cancelWorkflow"]
    assert [e["code"] for e in cancel["userErrors"]] == ["NOT_FOUND"]
    await claim_and_complete(agent, workflow_id)
    rerun = (await stranger.execute(RERUN, {"id": workflow_id}))["rerunWorkflow"]
    assert [e["code"] for e in rerun["userErrors"]] == ["NOT_FOUND"]
    assert (await stranger.execute(ops.WORKFLOWS, {"first": 10}))["workflows"]["totalCount"] == 0


async def test_available_actions_follow_the_state_and_the_role(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer, viewer, admin = keys["agent"], keys["reviewer"], keys["viewer"], keys["admin"]
    idle = (await agent.execute(ops.CREATE, {"input": GATED}))["createWorkflow"]["workflow"]["id"]
    read = (await agent.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]
    assert actions(read) == [("startWorkflow", "start")]
    assert actions((await reviewer.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]) == []

    await agent.execute(ops.START, {"id": idle})
    await claim_and_complete(agent, idle)  # prep; the gate waits for a reviewer
    as_reviewer = (await reviewer.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]
    assert as_reviewer["status"] == "BLOCKED"
    assert actions(as_reviewer) == [("cancelWorkflow", "cancel")]
    gate = [e["node"] for e in as_reviewer["steps"]["edges"]][1]
    assert actions(gate) == [("approveWorkflowStep", "approve"), ("rejectWorkflowStep", "reject")]
    # The gate waits for a reviewer, not its agent: the agent's reports are not offered, nor decisions.
    as_agent = (await agent.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]
    assert actions(as_agent) == []
    assert actions([e["node"] for e in as_agent["steps"]["edges"]][1]) == []
    as_viewer = (await viewer.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]
    assert actions(as_viewer) == []
    assert all(actions(e["node"]) == [] for e in as_viewer["steps"]["edges"])

    await admin.execute(CANCEL, {"id": idle, "reason": "done"})
    assert actions((await admin.execute(WORKFLOW_ACTIONS, {"id": idle}))["workflow"]) == [
        ("rerunWorkflow", "rerun")
    ]


def test_every_offered_action_names_a_mutation_that_checks_a_role() -> None:
    """The offers table and the schema agree: each mutation exists and carries its permission classes,
    which is what availableActions asks of the caller's key."""
    from server.api.actions import ALL_OFFERS, _permissions
    from server.api.schema import build_schema

    schema = build_schema(Settings())
    for offers in ALL_OFFERS:
        for mutation, _ in offers.pairs:
            assert _permissions(schema, mutation), mutation


PLAN_STEP_ACTIONS = f"""
query Plan($id: ID!) {{
  researchPlan(id: $id) {{ status {ACTIONS} steps {{ id status {ACTIONS} }} }}
}}
"""


async def test_a_failed_plans_steps_offer_nothing_the_plan_machine_refuses(
    keys: dict[str, GraphQLClient],
) -> None:
    """A failed step offers retryStep while its plan works on; once the plan is FAILED (final in the plan
    machine), none of its steps' actions is offered, and retryStep is refused as offered."""
    admin = keys["admin"]
    created = await admin.execute(plan_ops.CREATE_PLAN, {"input": plan_ops.plan_input(2)})
    plan_id = created["createResearchPlan"]["plan"]["id"]
    started = await admin.execute(plan_ops.START_NEXT_STEP, {"planId": plan_id, "sessionId": "s"})
    step_id = started["startNextStep"]["step"]["id"]
    failed = await admin.execute(
        plan_ops.MODIFY,
        {"input": {"planId": plan_id, "action": "FAIL_STEP", "stepId": step_id, "reason": "no data"}},
    )
    assert failed["modifyPlan"]["userErrors"] == [], failed
    read = (await admin.execute(PLAN_STEP_ACTIONS, {"id": plan_id}))["researchPlan"]
    step = next(s for s in read["steps"] if s["id"] == step_id)
    assert step["status"] == "FAILED"
    assert ("retryStep", "retry") in actions(step)

    ended = await admin.execute(plan_ops.FAIL_PLAN, {"planId": plan_id, "reason": "abandoned"})
    assert ended["failPlan"]["plan"]["status"] == "FAILED"
    read = (await admin.execute(PLAN_STEP_ACTIONS, {"id": plan_id}))["researchPlan"]
    assert all(actions(s) == [] for s in read["steps"]), read
    assert actions(read) == []
    refused = (await admin.execute(plan_ops.RETRY, {"stepId": step_id}))["retryStep"]
    assert [e["code"] for e in refused["userErrors"]] == ["INVALID_TRANSITION"]
