"""Seed 002 §4.3's example, verbatim, end to end through a real server and its HTTP API."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from server.loops.workflow_timers import run_workflow_timers
from tests.api import workflow_operations as ops
from tests.conftest import GraphQLClient, LiveServer
from tests.services.workflow_helpers import seed_4_3_yaml

EXAMPLE = seed_4_3_yaml()
AGENTS = ["data-pipeline", "product-analyst", "growth-optimizer"]


async def start_example(client: GraphQLClient, yaml: str = EXAMPLE) -> tuple[str, dict[str, str]]:
    created = (await client.execute(ops.CREATE_FROM_YAML, {"yaml": yaml}))["createWorkflowFromYaml"]
    assert created["userErrors"] == [], created
    workflow_id = created["workflow"]["id"]
    started = (await client.execute(ops.START, {"id": workflow_id}))["startWorkflow"]
    assert started["workflow"]["status"] == "EXECUTING"
    # No dependsOn: four roots, claimed in parallel by four workers.
    claimed = {}
    for worker in ("w1", "w2", "w3", "w4"):
        claim = (await client.execute(ops.CLAIM, {"agent": worker, "workflowId": workflow_id}))[
            "claimWorkflowStep"
        ]
        assert claim["outcome"] == "STEP"
        claimed[claim["step"]["name"]] = claim["step"]["id"]
    assert set(claimed) == {"create-account", "provision-workspace", "setup-analytics", "send-welcome"}
    return workflow_id, claimed


async def complete(client: GraphQLClient, step_id: str, agent: str) -> dict[str, Any]:
    done = (await client.execute(ops.COMPLETE, {"stepId": step_id, "agent": agent}))["completeWorkflowStep"]
    assert done["userErrors"] == [], done
    return dict(done)


async def undo_all(client: GraphQLClient, workflow_id: str) -> list[tuple[str, str]]:
    """Every agent asks for work until none is left; returns (agent, step undone) in the order done."""
    done = []
    while True:
        for agent in AGENTS:
            claim = (await client.execute(ops.CLAIM, {"agent": agent, "workflowId": workflow_id}))[
                "claimWorkflowStep"
            ]
            if claim["outcome"] == "COMPENSATION":
                comp = claim["compensation"]
                assert comp["agent"] == agent
                report = (
                    await client.execute(ops.COMPLETE_COMPENSATION, {"id": comp["id"], "agent": agent})
                )["completeWorkflowCompensation"]
                assert report["userErrors"] == []
                # Reporting the same compensation twice is harmless.
                again = (await client.execute(ops.COMPLETE_COMPENSATION, {"id": comp["id"], "agent": agent}))[
                    "completeWorkflowCompensation"
                ]
                assert (again["alreadyReported"], again["userErrors"]) == (True, [])
                done.append((agent, comp["stepName"]))
                break
        else:
            return done


async def test_the_email_failing_is_skipped_and_the_onboarding_succeeds(client: GraphQLClient) -> None:
    workflow_id, steps = await start_example(client)
    for name, worker in (("create-account", "w1"), ("provision-workspace", "w2"), ("setup-analytics", "w3")):
        await complete(client, steps[name], worker)
    failed = (
        await client.execute(
            ops.FAIL,
            {"stepId": steps["send-welcome"], "agent": "w4", "category": "EXTERNAL", "message": "SMTP down"},
        )
    )["failWorkflowStep"]
    assert failed["userErrors"] == []
    assert (failed["step"]["status"], failed["step"]["lastErrorCategory"]) == ("SKIPPED", "EXTERNAL")
    assert (failed["workflow"]["status"], failed["workflow"]["outcome"]) == ("COMPLETED", "SUCCEEDED")
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert workflow["compensations"] == []


async def test_a_failing_compensate_step_rolls_back_the_completed_steps_in_reverse(
    client: GraphQLClient,
) -> None:
    workflow_id, steps = await start_example(client)
    await complete(client, steps["create-account"], "w1")
    await complete(client, steps["provision-workspace"], "w2")
    failed = (
        await client.execute(
            ops.FAIL,
            {
                "stepId": steps["setup-analytics"],
                "agent": "w3",
                "category": "VALIDATION",
                "message": "bad config",
            },
        )
    )["failWorkflowStep"]
    assert failed["workflow"]["status"] == "COMPENSATING"
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    by_name = ops.steps_by_name(workflow)
    assert by_name["send-welcome"]["status"] == "FAILED"  # cancelled: it was running
    assert by_name["send-welcome"]["lastError"] == "cancelled: the workflow is compensating"
    # setup-analytics failed (never completed) and send-welcome has no entry: nothing for data-pipeline.
    assert [(c["stepName"], c["agent"], c["status"]) for c in workflow["compensations"]] == [
        ("provision-workspace", "product-analyst", "PENDING"),
        ("create-account", "growth-optimizer", "PENDING"),
    ]
    late = (await client.execute(ops.COMPLETE, {"stepId": steps["send-welcome"], "agent": "w4"}))[
        "completeWorkflowStep"
    ]
    assert [(e["code"], e["fromState"]) for e in late["userErrors"]] == [("INVALID_TRANSITION", "failed")]

    assert await undo_all(client, workflow_id) == [
        ("product-analyst", "provision-workspace"),
        ("growth-optimizer", "create-account"),
    ]
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert (workflow["status"], workflow["outcome"]) == ("COMPLETED", "ROLLED_BACK")


async def test_a_workflow_timeout_with_compensate_undoes_all_three_in_the_seeds_order(
    live_server: LiveServer, client: GraphQLClient
) -> None:
    yaml = seed_4_3_yaml(extra_spec="  timeout: 30m\n  failurePolicy: compensate\n")
    workflow_id, steps = await start_example(client, yaml)
    for name, worker in (("create-account", "w1"), ("provision-workspace", "w2"), ("setup-analytics", "w3")):
        await complete(client, steps[name], worker)
    # send-welcome's worker hangs; the workflow's 30 minutes run out.
    live_server.clock.advance(timedelta(minutes=30))
    live_server.call(run_workflow_timers(live_server.app.state.runtime))
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert workflow["status"] == "COMPENSATING"
    assert workflow["failureReason"] == "the workflow timed out after 30m"
    # Exactly the order of the seed's compensation list: the reverse of completion.
    assert await undo_all(client, workflow_id) == [
        ("data-pipeline", "setup-analytics"),
        ("product-analyst", "provision-workspace"),
        ("growth-optimizer", "create-account"),
    ]
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert (workflow["status"], workflow["outcome"]) == ("COMPLETED", "ROLLED_BACK")


async def test_a_failing_compensation_leaves_a_partial_rollback(client: GraphQLClient) -> None:
    workflow_id, steps = await start_example(client)
    await complete(client, steps["create-account"], "w1")
    await complete(client, steps["provision-workspace"], "w2")
    await client.execute(
        ops.FAIL,
        {"stepId": steps["setup-analytics"], "agent": "w3", "category": "VALIDATION", "message": "x"},
    )
    claim = (await client.execute(ops.CLAIM, {"agent": "product-analyst"}))["claimWorkflowStep"]
    failed = (
        await client.execute(
            ops.FAIL_COMPENSATION,
            {"id": claim["compensation"]["id"], "agent": "product-analyst", "message": "workspace is locked"},
        )
    )["failWorkflowCompensation"]
    assert (failed["workflow"]["status"], failed["workflow"]["outcome"]) == (
        "FAILED",
        "PARTIALLY_ROLLED_BACK",
    )
    assert (await client.execute(ops.CLAIM, {"agent": "growth-optimizer"}))["claimWorkflowStep"][
        "outcome"
    ] == "NONE"
    workflow = (await client.execute(ops.WORKFLOW, {"id": workflow_id}))["workflow"]
    assert [(c["stepName"], c["status"], c["error"]) for c in workflow["compensations"]] == [
        ("provision-workspace", "FAILED", "workspace is locked"),
        ("create-account", "PENDING", None),
    ]
