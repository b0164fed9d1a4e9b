"""Approval gates: a step marked ``approval: true`` blocks its workflow until a reviewer answers."""

from __future__ import annotations

from server.errors import ErrorCode
from server.services.workflows import reports as workflow_reports
from server.services.workflows import review as workflow_review
from server.services.workflows.claims import ClaimOutcome
from tests.services.workflow_helpers import WorkflowFlight, step, wf

GATED = wf(step("draft"), step("sign-off", "draft", approval=True), step("send", "sign-off"))


async def test_a_gate_opens_when_its_dependencies_are_done_and_blocks_the_workflow(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(GATED)
    seq = await workflows.last_seq()
    await workflows.run_named(workflow_id, "draft")
    gate = (await workflows.wf_steps(workflow_id))["sign-off"]
    assert (gate.status, gate.blocked_on, gate.claimed_by) == ("running", "approval", None)
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    assert "workflow_approval_requested" in await workflows.kinds(workflow_id, after=seq)
    assert (await workflows.claim()).outcome is ClaimOutcome.NONE  # a gate is never handed to an agent


async def test_approving_completes_the_gate_and_resumes_the_workflow(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(GATED)
    await workflows.run_named(workflow_id, "draft")
    gate_id = (await workflows.wf_steps(workflow_id))["sign-off"].id
    await workflows.approve(gate_id, "looks right")
    assert (await workflows.workflow(workflow_id)).status == "executing"
    await workflows.run_named(workflow_id, "send")
    assert (await workflows.workflow(workflow_id)).outcome == "succeeded"
    assert await workflows.transitions(workflow_id) == [
        ("idle", "queued"),
        ("queued", "executing"),
        ("executing", "blocked"),
        ("blocked", "executing"),
        ("executing", "completed"),
    ]
    [approved] = await workflows.events(root_id=workflow_id, kind="workflow_step_approved")
    assert approved.data == {"blockedOn": "approval", "comment": "looks right", "reviewer": "dev"}


async def test_rejecting_fails_the_gate_and_applies_on_failure(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(GATED)
    await workflows.run_named(workflow_id, "draft")
    await workflows.reject((await workflows.wf_steps(workflow_id))["sign-off"].id, "wrong recipient")
    gate = (await workflows.wf_steps(workflow_id))["sign-off"]
    assert (gate.status, gate.last_error_category) == ("failed", "governance")
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("failed", "failed")
    assert await workflows.transitions(workflow_id) == [
        ("idle", "queued"),
        ("queued", "executing"),
        ("executing", "blocked"),
        ("blocked", "failed"),
    ]


async def test_a_gate_at_the_root_blocks_as_soon_as_the_workflow_executes(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("go?", approval=True), step("work", "go?")))
    assert (await workflows.workflow(workflow_id)).status == "blocked"


async def test_two_open_gates_keep_the_workflow_blocked_until_both_are_answered(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(wf(step("left", approval=True), step("right", approval=True)))
    steps = await workflows.wf_steps(workflow_id)
    await workflows.approve(steps["left"].id)
    assert (await workflows.workflow(workflow_id)).status == "blocked"
    await workflows.approve(steps["right"].id)
    assert (await workflows.workflow(workflow_id)).status == "completed"


async def test_only_a_waiting_step_can_be_decided_and_an_agent_cannot_complete_a_gate(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(GATED)
    draft = await workflows.claim_step()
    error = await workflows.refused(
        lambda tx: workflow_review.approve_workflow_step(tx, draft.id), ErrorCode.INVALID_TRANSITION
    )
    problem = error.problems[0]
    assert (problem.entity, problem.from_state, problem.to_state, problem.field) == (
        "workflow_step",
        "running",
        "completed",
        ["stepId"],
    )
    assert problem.message == (
        f"workflow_step {draft.id} is running: "
        "only a step waiting for a reviewer (approval gate or governance escalation) can be decided"
    )
    await workflows.complete(draft.id)
    gate_id = (await workflows.wf_steps(workflow_id))["sign-off"].id
    error = await workflows.refused(
        lambda tx: workflow_reports.complete_workflow_step(tx, gate_id, "worker"),
        ErrorCode.INVALID_TRANSITION,
    )
    problem = error.problems[0]
    assert (problem.from_state, problem.to_state) == ("running", "completed")
    assert (
        problem.message
        == f"workflow_step {gate_id} is running: it waits for a reviewer (approval), not for its agent"
    )
    await workflows.refused(
        lambda tx: workflow_review.reject_workflow_step(tx, gate_id, ""), ErrorCode.VALIDATION_FAILED
    )
    await workflows.approve(gate_id)
    await workflows.refused(
        lambda tx: workflow_review.approve_workflow_step(tx, gate_id), ErrorCode.INVALID_TRANSITION
    )
