"""The workflow API through a real server: definitions, refusals, retries, gates, roles, tenants, lists."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from server.auth import Role, create_key
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event
from server.db.workflow_models import Workflow
from tests.api import operations as plan_ops
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer

DIAMOND = {
    "name": "diamond",
    "timeout": "30m",
    "steps": [
        {
            "name": "a",
            "timeout": "5m",
            "retryPolicy": {"maxRetries": 2, "backoff": "LINEAR", "initialDelay": "5s"},
        },
        {"name": "b", "dependsOn": ["a"], "agent": "analyst"},
        {"name": "c", "dependsOn": ["a"], "onFailure": "SKIP"},
        {"name": "gate", "dependsOn": ["b", "c"], "approval": True},
    ],
}


async def create(client: GraphQLClient, definition: dict[str, object] = DIAMOND) -> dict[str, object]:
    payload = (await client.execute(ops.CREATE, {"input": definition}))["createWorkflow"]
    assert payload["userErrors"] == [], payload
    workflow: dict[str, object] = payload["workflow"]
    return workflow


async def running(client: GraphQLClient, definition: dict[str, object] = DIAMOND) -> str:
    workflow_id = str((await create(client, definition))["id"])
    await client.execute(ops.START, {"id": workflow_id})
    return workflow_id


async def count_rows(settings: Settings, model: type[object]) -> int:
    db = Database(settings.database_url)
    try:
        async with db.reader() as session:
            return int(await session.scalar(select(func.count()).select_from(model)) or 0)  # type: ignore[arg-type]
    finally:
        await db.dispose()


async def test_a_typed_definition_comes_back_with_its_steps(client: GraphQLClient) -> None:
    workflow = await create(client)
    assert (workflow["name"], workflow["status"], workflow["outcome"], workflow["timeout"]) == (
        "diamond",
        "IDLE",
        None,
        "30m",
    )
    steps = ops.steps_by_name(workflow)  # type: ignore[arg-type]
    assert steps["a"]["retryPolicy"] == {
        "maxRetries": 2,
        "backoff": "LINEAR",
        "initialDelay": "5s",
        "maxDelay": None,
        "retryOn": ["TRANSIENT"],
        "isDefault": False,
    }
    assert steps["b"]["retryPolicy"]["isDefault"] is True
    assert steps["b"]["retryPolicy"]["backoff"] == "EXPONENTIAL"
    assert (steps["b"]["agent"], steps["c"]["onFailure"], steps["gate"]["approval"]) == (
        "analyst",
        "SKIP",
        True,
    )
    assert steps["gate"]["dependsOn"] == ["b", "c"]


async def test_a_bad_definition_is_every_problem_as_user_errors_and_writes_nothing(
    client: GraphQLClient, settings: Settings
) -> None:
    bad = {
        "name": "bad",
        "timeout": "forever",
        "steps": [
            {"name": "a", "dependsOn": ["c"]},
            {"name": "b", "dependsOn": ["a"]},
            {"name": "c", "dependsOn": ["b", "ghost"]},
        ],
        "compensation": [{"step": "nope", "action": "undo", "agent": "x"}],
    }
    payload = (await client.execute(ops.CREATE, {"input": bad}))["createWorkflow"]
    assert payload["workflow"] is None
    errors = {(".".join(e["field"]), e["code"]) for e in payload["userErrors"]}
    assert errors == {
        ("timeout", "VALIDATION_FAILED"),
        ("steps.0.dependsOn", "VALIDATION_FAILED"),  # the cycle a -> c -> b -> a
        ("steps.2.dependsOn", "VALIDATION_FAILED"),  # "ghost"
        ("steps", "VALIDATION_FAILED"),  # no root (so "unreachable" is not repeated for every step)
        ("compensation.0.step", "VALIDATION_FAILED"),
    }
    messages = [e["message"] for e in payload["userErrors"]]
    assert len(messages) == 5
    assert 'cycle: "a" -> "c" -> "b" -> "a" (each depends on the next)' in messages
    assert 'step "c" depends on "ghost", which is not a step of this workflow' in messages
    assert await count_rows(settings, Workflow) == 0
    assert await count_rows(settings, Event) == 0


async def test_yaml_errors_point_into_the_yaml(client: GraphQLClient) -> None:
    payload = (
        await client.execute(
            ops.CREATE_FROM_YAML, {"yaml": "spec:\n  steps:\n    - name: a\n      onFailure: retry\n"}
        )
    )["createWorkflowFromYaml"]
    assert [(e["field"], e["code"]) for e in payload["userErrors"]] == [
        (["yaml", "spec", "name"], "VALIDATION_FAILED"),
        (["yaml", "spec", "steps", "0", "onFailure"], "VALIDATION_FAILED"),
    ]


async def test_more_than_ten_steps_is_a_warning_in_the_response(client: GraphQLClient) -> None:
    definition = {"name": "long", "steps": [{"name": f"s{i}"} for i in range(12)]}
    payload = (await client.execute(ops.CREATE, {"input": definition}))["createWorkflow"]
    assert payload["userErrors"] == []
    assert payload["workflow"]["status"] == "IDLE"
    assert [(w["code"], w["field"]) for w in payload["warnings"]] == [("TOO_MANY_STEPS", ["steps"])]


async def test_invalid_transitions_are_user_errors_with_both_states(client: GraphQLClient) -> None:
    workflow_id = await running(client)
    again = (await client.execute(ops.START, {"id": workflow_id}))["startWorkflow"]
    assert again["workflow"] is None
    assert again["userErrors"] == [
        {
            "code": "INVALID_TRANSITION",
            "message": again["userErrors"][0]["message"],
            "field": ["workflowId"],
            "entity": "workflow",
            "fromState": "executing",
            "toState": "queued",
        }
    ]


async def test_a_retry_is_visible_with_attempt_error_and_next_attempt(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    workflow_id = await running(client)
    claim = (await client.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))["claimWorkflowStep"]
    step = claim["step"]
    assert (step["name"], step["attempt"], step["claimedBy"]) == ("a", 1, "w")
    beat = (await client.execute(ops.HEARTBEAT, {"stepId": step["id"], "agent": "w"}))[
        "heartbeatWorkflowStep"
    ]
    assert beat["userErrors"] == []
    failed = (
        await client.execute(
            ops.FAIL, {"stepId": step["id"], "agent": "w", "category": "TRANSIENT", "message": "429"}
        )
    )["failWorkflowStep"]
    assert failed["step"]["status"] == "PENDING"
    assert (failed["step"]["attempt"], failed["step"]["lastError"], failed["step"]["lastErrorCategory"]) == (
        1,
        "429",
        "TRANSIENT",
    )
    next_attempt = datetime.fromisoformat(failed["step"]["nextAttemptAt"])
    assert next_attempt == live_server.clock.now() + timedelta(seconds=5)
    # The back-off (linear, 5s) is not over: nothing to claim yet; after it, the second attempt.
    assert (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["outcome"] == "NONE"
    live_server.clock.advance(timedelta(seconds=5))
    again = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]
    assert (again["step"]["name"], again["step"]["attempt"]) == ("a", 2)


async def test_approval_gates_wait_in_the_review_inbox_for_a_reviewer(keys: dict[str, GraphQLClient]) -> None:
    agent, reviewer = keys["agent"], keys["reviewer"]
    workflow_id = await running(agent)
    a = (await agent.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
    await agent.execute(ops.COMPLETE, {"stepId": a["id"], "agent": "w"})
    b = (await agent.execute(ops.CLAIM, {"agent": "analyst"}))["claimWorkflowStep"]["step"]
    c = (await agent.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
    assert (b["name"], c["name"]) == ("b", "c")
    await agent.execute(ops.COMPLETE, {"stepId": b["id"], "agent": "analyst"})
    await agent.execute(ops.COMPLETE, {"stepId": c["id"], "agent": "w"})

    inbox = (await reviewer.execute(ops.AWAITING_REVIEW))["workflowStepsAwaitingReview"]
    assert inbox["totalCount"] == 1
    [gate] = [e["node"] for e in inbox["edges"]]
    assert (gate["name"], gate["blockedOn"], gate["workflow"]) == (
        "gate",
        "APPROVAL",
        {"id": workflow_id, "status": "BLOCKED"},
    )
    # An agent may not decide; a reviewer may not drive.
    forbidden = await agent.post(ops.APPROVE, {"stepId": gate["id"]})
    assert forbidden.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    forbidden = await reviewer.post(ops.CLAIM, {"agent": "w"})
    assert forbidden.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"

    approved = (await reviewer.execute(ops.APPROVE, {"stepId": gate["id"], "comment": "ok"}))[
        "approveWorkflowStep"
    ]
    assert approved["userErrors"] == []
    assert (approved["step"]["status"], approved["workflow"]["status"]) == ("COMPLETED", "COMPLETED")
    assert (await reviewer.execute(ops.AWAITING_REVIEW))["workflowStepsAwaitingReview"]["totalCount"] == 0


async def test_another_tenants_workflow_does_not_exist(keys: dict[str, GraphQLClient]) -> None:
    agent, stranger = keys["agent"], keys["other"]
    workflow_id = await running(agent)
    assert (await stranger.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"] is None
    assert (await stranger.execute(ops.WORKFLOWS, {"first": 10}))["workflows"]["totalCount"] == 0
    start = (await stranger.execute(ops.START, {"id": workflow_id}))["startWorkflow"]
    assert [e["code"] for e in start["userErrors"]] == ["NOT_FOUND"]
    claim = (await stranger.execute(ops.CLAIM, {"agent": "w", "workflowId": workflow_id}))[
        "claimWorkflowStep"
    ]
    assert [e["code"] for e in claim["userErrors"]] == ["NOT_FOUND"]
    assert (await stranger.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["outcome"] == "NONE"


async def test_workflows_and_their_steps_are_connections(client: GraphQLClient) -> None:
    ids = [str((await create(client, {**DIAMOND, "name": f"w{i}"}))["id"]) for i in range(3)]
    await client.execute(ops.START, {"id": ids[0]})
    page = (await client.execute(ops.WORKFLOWS, {"first": 2}))["workflows"]
    assert page["totalCount"] == 3
    assert page["pageInfo"]["hasNextPage"] is True
    rest = (await client.execute(ops.WORKFLOWS, {"first": 2, "after": page["pageInfo"]["endCursor"]}))[
        "workflows"
    ]
    seen = [e["node"]["id"] for e in page["edges"] + rest["edges"]]
    assert sorted(seen) == sorted(ids)
    assert rest["pageInfo"]["hasNextPage"] is False
    executing = (await client.execute(ops.WORKFLOWS, {"first": 10, "status": ["EXECUTING"]}))["workflows"]
    assert [e["node"]["id"] for e in executing["edges"]] == [ids[0]]

    first = (await client.execute(ops.STEPS_PAGE, {"id": ids[0], "first": 3}))["workflow"]["steps"]
    assert ([e["node"]["name"] for e in first["edges"]], first["totalCount"]) == (["a", "b", "c"], 4)
    second = (
        await client.execute(
            ops.STEPS_PAGE, {"id": ids[0], "first": 3, "after": first["pageInfo"]["endCursor"]}
        )
    )["workflow"]["steps"]
    assert [e["node"]["name"] for e in second["edges"]] == ["gate"]
    assert second["pageInfo"]["hasNextPage"] is False


async def test_the_event_log_of_a_workflow_is_its_history(client: GraphQLClient) -> None:
    workflow_id = await running(client, {"name": "one", "steps": [{"name": "only"}]})
    step = (await client.execute(ops.CLAIM, {"agent": "w"}))["claimWorkflowStep"]["step"]
    await client.execute(ops.COMPLETE, {"stepId": step["id"], "agent": "w", "output": {"ok": True}})
    edges = (await client.execute(plan_ops.EVENTS, {"rootId": workflow_id, "after": 0, "first": 50}))[
        "events"
    ]["edges"]
    assert [(e["node"]["kind"], e["node"]["fromState"], e["node"]["toState"]) for e in edges] == [
        ("workflow_created", None, None),
        ("workflow_transitioned", "idle", "queued"),
        ("workflow_transitioned", "queued", "executing"),
        ("workflow_step_transitioned", "pending", "running"),
        ("workflow_step_claimed", None, None),
        ("workflow_step_transitioned", "running", "completed"),
        ("workflow_transitioned", "executing", "completed"),
    ]


# -- keys for the role and tenant tests --


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(database_url=db_url, auth_cache_seconds=0)


@pytest.fixture
async def raw_keys(settings: Settings, clock: FakeClock) -> dict[str, str]:
    """Keys made before the server starts, so that it starts with keys (dev mode is decided then)."""
    db = Database(settings.database_url)
    try:
        return {
            name: (await create_key(db, tenant, role, name, clock.now()))[1]
            for name, tenant, role in [
                ("agent", "tenant-a", Role.AGENT),
                ("reviewer", "tenant-a", Role.REVIEWER),
                ("other", "tenant-b", Role.ADMIN),
            ]
        }
    finally:
        await db.dispose()


@pytest.fixture
async def keys(raw_keys: dict[str, str], live_server: LiveServer) -> AsyncIterator[dict[str, GraphQLClient]]:
    assert not live_server.app.state.dev_mode
    made = {name: GraphQLClient(live_server.url, key) for name, key in raw_keys.items()}
    try:
        yield made
    finally:
        for c in made.values():
            await c.aclose()


COMPLETE_MANY = """
mutation CompleteMany($agent: String!, $steps: [StepCompletionInput!]!) {
  completeWorkflowSteps(agent: $agent, steps: $steps) {
    results { step { id name status output } userErrors { code field } }
    userErrors { code field }
  }
}
"""
CLAIM_MANY = """
mutation ClaimMany($agent: String!, $workflowId: ID, $maxSteps: Int!) {
  claimWorkflowSteps(agent: $agent, workflowId: $workflowId, maxSteps: $maxSteps) {
    outcome reason steps { id name attempt } userErrors { code field }
  }
}
"""


async def test_completions_in_one_request_are_each_reported_alone(client: GraphQLClient) -> None:
    """completeWorkflowSteps: a refused completion (an old attempt) leaves the others done."""
    workflow = await create(client, {"name": "three", "steps": [{"name": n} for n in ("x", "y", "z")]})
    await client.execute(ops.START, {"id": workflow["id"]})
    claimed = (await client.execute(CLAIM_MANY, {"agent": "w", "maxSteps": 5}))["claimWorkflowSteps"]
    assert [s["name"] for s in claimed["steps"]] == ["x", "y", "z"]
    x, y, z = claimed["steps"]
    for bad in ([], [{"stepId": x["id"]}] * 101):
        refused = (await client.execute(COMPLETE_MANY, {"agent": "w", "steps": bad}))["completeWorkflowSteps"]
        assert (refused["results"], refused["userErrors"]) == (
            [],
            [{"code": "VALIDATION_FAILED", "field": ["steps"]}],
        )
    done = await client.execute(
        COMPLETE_MANY,
        {
            "agent": "w",
            "steps": [
                {"stepId": x["id"], "attempt": 1, "output": {"n": 1}},
                {"stepId": y["id"], "attempt": 2},
                {"stepId": z["id"]},
            ],
        },
    )
    results = done["completeWorkflowSteps"]["results"]
    assert [r["userErrors"] for r in results] == [
        [],
        [{"code": "CONFLICT", "field": ["steps", "1", "attempt"]}],
        [],
    ]
    assert [(r["step"] or {}).get("status") for r in results] == ["COMPLETED", None, "COMPLETED"]
    assert results[0]["step"]["output"] == {"n": 1}
    steps = ops.steps_by_name((await client.execute(ops.WORKFLOW, {"id": workflow["id"]}))["workflow"])
    assert {n: s["status"] for n, s in steps.items()} == {"x": "COMPLETED", "y": "RUNNING", "z": "COMPLETED"}


async def test_completions_of_two_workflows_in_one_request_all_complete(client: GraphQLClient) -> None:
    """completeWorkflowSteps takes a run of one workflow's steps per transaction, then the next run."""
    first = await create(client, {"name": "first", "steps": [{"name": n} for n in ("a1", "a2")]})
    second = await create(client, {"name": "second", "steps": [{"name": n} for n in ("b1", "b2")]})
    held = {}
    for workflow in (first, second):
        await client.execute(ops.START, {"id": workflow["id"]})
        claimed = await client.execute(
            CLAIM_MANY, {"agent": "w", "workflowId": workflow["id"], "maxSteps": 2}
        )
        held.update({s["name"]: s for s in claimed["claimWorkflowSteps"]["steps"]})
    order = ["a1", "b1", "a2", "b2", "a1"]  # interleaved, and a1 twice: the second is refused
    done = await client.execute(
        COMPLETE_MANY,
        {"agent": "w", "steps": [{"stepId": held[n]["id"], "attempt": held[n]["attempt"]} for n in order]},
    )
    results = done["completeWorkflowSteps"]["results"]
    assert [(r["step"] or {}).get("name") for r in results] == ["a1", "b1", "a2", "b2", None]
    assert [r["userErrors"] for r in results] == [
        [],
        [],
        [],
        [],
        [{"code": "INVALID_TRANSITION", "field": ["steps", "4", "stepId"]}],
    ]
    for workflow in (first, second):
        now = (await client.execute(ops.WORKFLOW, {"id": workflow["id"]}))["workflow"]
        assert now["status"] == "COMPLETED"
