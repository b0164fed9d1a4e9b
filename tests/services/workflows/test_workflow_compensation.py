"""Compensation (seed 002 §4): reverse completion order, one at a time, by the named agent; outcomes."""

from __future__ import annotations

from server.errors import ErrorCode
from server.services.workflows import compensation as workflow_compensation
from server.services.workflows.claims import ClaimOutcome
from tests.services.workflow_helpers import WorkflowFlight, no_retry, step, wf


def saga(**spec: object) -> dict[str, object]:
    """§4.1: A -> B -> C -> D; B is read-only (no compensation entry)."""
    return wf(
        step("A", onFailure="compensate"),
        step("B", "A", onFailure="compensate"),
        step("C", "B", onFailure="compensate"),
        step("D", "C", onFailure="compensate", **no_retry()),
        compensation=[
            {"step": "A", "action": "undo A", "agent": "agent-a"},
            {"step": "C", "action": "undo C", "agent": "agent-c"},
            {"step": "D", "action": "undo D", "agent": "agent-d"},
        ],
        **spec,
    )


async def compensating(workflows: WorkflowFlight) -> str:
    workflow_id = await workflows.running(saga())
    await workflows.run_named(workflow_id, "A", "B", "C")
    await workflows.fail((await workflows.claim_step()).id, "validation", "D broke")
    return workflow_id


async def test_a_compensate_failure_undoes_completed_steps_in_reverse_order(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await compensating(workflows)
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.failure_reason) == ("compensating", 'step "D" failed (validation): D broke')
    # D failed (not completed) and B has no entry: only C, then A.
    plan = await workflows.compensations(workflow_id)
    assert [(c.position, c.step_name, c.agent, c.status) for c in plan] == [
        (1, "C", "agent-c", "pending"),
        (2, "A", "agent-a", "pending"),
    ]
    [planned] = await workflows.events(root_id=workflow_id, kind="workflow_compensation_planned")
    assert planned.data["order"] == ["C", "A"]

    # One at a time, claimed by the named agent only.
    assert (await workflows.claim("agent-a")).outcome is ClaimOutcome.NONE
    claim_c = await workflows.claim("agent-c")
    assert claim_c.outcome is ClaimOutcome.COMPENSATION
    assert claim_c.compensation is not None
    assert (claim_c.compensation.step_name, claim_c.compensation.action) == ("C", "undo C")
    assert (await workflows.claim("agent-a")).outcome is ClaimOutcome.NONE  # C is not done yet
    await workflows.complete_compensation(claim_c.compensation.id, "agent-c")
    claim_a = await workflows.claim("agent-a", workflow_id)
    assert claim_a.compensation is not None
    await workflows.complete_compensation(claim_a.compensation.id, "agent-a")

    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("completed", "rolled_back")
    assert await workflows.transitions(workflow_id) == [
        ("idle", "queued"),
        ("queued", "executing"),
        ("executing", "compensating"),
        ("compensating", "completed"),
    ]


async def test_a_failing_compensation_ends_in_failed_with_partial_rollback_and_starts_nothing_more(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await compensating(workflows)
    claim = await workflows.claim("agent-c")
    assert claim.compensation is not None
    report = await workflows.fail_compensation(claim.compensation.id, "agent-c", "workspace locked")
    assert (report.workflow.status, report.workflow.outcome) == ("failed", "partially_rolled_back")
    assert [(c.step_name, c.status, c.error) for c in await workflows.compensations(workflow_id)] == [
        ("C", "failed", "workspace locked"),
        ("A", "pending", None),
    ]
    assert (await workflows.claim("agent-a")).outcome is ClaimOutcome.NONE


async def test_reporting_the_same_compensation_twice_is_harmless(workflows: WorkflowFlight) -> None:
    workflow_id = await compensating(workflows)
    claim = await workflows.claim("agent-c")
    assert claim.compensation is not None
    comp_id = claim.compensation.id
    first = await workflows.complete_compensation(comp_id, "agent-c")
    seq, before = await workflows.last_seq(), await workflows.snapshot()
    again = await workflows.complete_compensation(comp_id, "agent-c")
    assert (first.duplicate, again.duplicate) == (False, True)
    assert await workflows.last_seq() == seq
    assert await workflows.snapshot() == before
    # A different answer to a finished compensation is refused, and so is a report by another agent.
    await workflows.refused(
        lambda tx: workflow_compensation.fail_compensation(tx, comp_id, "agent-c", "oops"),
        ErrorCode.INVALID_TRANSITION,
    )
    await workflows.refused(
        lambda tx: workflow_compensation.complete_compensation(tx, comp_id, "agent-a"), ErrorCode.CONFLICT
    )
    # An unclaimed compensation cannot be reported yet.
    pending = (await workflows.compensations(workflow_id))[1]
    await workflows.refused(
        lambda tx: workflow_compensation.complete_compensation(tx, pending.id, "agent-a"),
        ErrorCode.INVALID_TRANSITION,
    )


async def test_nothing_to_undo_rolls_back_at_once(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(saga())
    await workflows.fail((await workflows.claim_step()).id, "validation", "A broke")
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome) == ("completed", "rolled_back")
    assert await workflows.compensations(workflow_id) == []


async def test_parallel_steps_are_undone_in_the_order_they_completed(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(
        wf(
            step("left"),
            step("right"),
            step("join", "left", "right", onFailure="compensate", **no_retry()),
            compensation=[
                {"step": "left", "action": "undo left", "agent": "u"},
                {"step": "right", "action": "undo right", "agent": "u"},
            ],
        )
    )
    left, right = await workflows.claim_step(), await workflows.claim_step()
    await workflows.complete(right.id)
    await workflows.complete(left.id)
    await workflows.fail((await workflows.claim_step()).id, "validation")
    assert [c.step_name for c in await workflows.compensations(workflow_id)] == ["left", "right"]


async def test_the_failure_policy_compensate_is_every_steps_default(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(
        wf(
            step("a"),
            step("b", "a", **no_retry()),
            failurePolicy="compensate",
            compensation=[{"step": "a", "action": "undo a", "agent": "u"}],
        )
    )
    await workflows.run_named(workflow_id, "a")
    await workflows.fail((await workflows.claim_step()).id, "agent_error")
    assert (await workflows.workflow(workflow_id)).status == "compensating"


async def test_running_steps_are_cancelled_when_compensation_starts(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(
        wf(
            step("a"),
            step("slow"),
            step("b", "a", onFailure="compensate", **no_retry()),
            compensation=[{"step": "a", "action": "undo a", "agent": "u"}],
        )
    )
    a, slow = await workflows.claim_step(), await workflows.claim_step()
    await workflows.complete(a.id)
    await workflows.fail((await workflows.claim_step()).id, "validation")
    steps = await workflows.wf_steps(workflow_id)
    assert (steps["slow"].status, steps["slow"].last_error) == (
        "failed",
        "cancelled: the workflow is compensating",
    )
    assert slow.id == steps["slow"].id
    assert [c.step_name for c in await workflows.compensations(workflow_id)] == ["a"]
