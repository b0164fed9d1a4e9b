"""The workflow lifecycle of seed 002 §1 through the services: start, slots, completion, refusals."""

from __future__ import annotations

from datetime import timedelta

from server.auth import Principal, Role
from server.errors import ErrorCode
from server.machines.retry import ErrorCategory
from server.services.workflows import claims as workflow_claims
from server.services.workflows import create as workflow_create
from server.services.workflows import reports as workflow_reports
from server.services.workflows.claims import ClaimOutcome
from tests.services.helpers import OTHER_TENANT
from tests.services.workflow_helpers import WorkflowFlight, step, wf


async def test_create_is_idle_and_start_walks_queued_then_executing(workflows: WorkflowFlight) -> None:
    created = await workflows.create_workflow(2)
    workflow_id = created.workflow.id
    assert (await workflows.workflow(workflow_id)).status == "idle"
    started = await workflows.start_workflow(workflow_id)
    assert started.status == "executing"
    assert await workflows.transitions(workflow_id) == [("idle", "queued"), ("queued", "executing")]
    row = await workflows.workflow(workflow_id)
    assert row.queued_at == row.started_at == workflows.clock.now()


async def test_a_workflow_completes_when_every_step_completed_or_skipped(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(wf(step("a"), step("b", "a", onFailure="skip"), step("c", "b")))
    await workflows.run_named(workflow_id, "a")
    b = await workflows.claim_step()
    await workflows.fail(b.id, "validation")
    assert (await workflows.step_states(workflow_id))["b"] == "skipped"
    await workflows.run_named(workflow_id, "c")
    row = await workflows.workflow(workflow_id)
    assert (row.status, row.outcome, row.completed_at) == ("completed", "succeeded", workflows.clock.now())
    assert await workflows.transitions(workflow_id) == [
        ("idle", "queued"),
        ("queued", "executing"),
        ("executing", "completed"),
    ]


async def test_starting_twice_or_after_the_end_is_an_invalid_transition(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(1)
    error = await workflows.refused(
        lambda tx: workflow_create.start_workflow(tx, workflow_id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("workflow", "executing")
    await workflows.run_named(workflow_id, "s1")
    error = await workflows.refused(lambda tx: workflow_create.start_workflow(tx, workflow_id))
    assert error.problems[0].from_state == "completed"


async def test_reports_on_a_finished_workflow_are_refused_and_change_nothing(
    workflows: WorkflowFlight,
) -> None:
    workflow_id = await workflows.running(wf(step("a"), step("b")))
    a = await workflows.claim_step()
    b = await workflows.claim_step()
    await workflows.fail(a.id, "validation")  # onFailure abort: the workflow fails, b is cancelled
    steps = await workflows.wf_steps(workflow_id)
    assert (steps["b"].status, steps["b"].last_error) == ("failed", "cancelled: the workflow failed")
    error = await workflows.refused(
        lambda tx: workflow_reports.complete_workflow_step(tx, b.id, "worker"), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("workflow_step", "failed")
    claim = await workflows.claim(workflow_id=workflow_id)
    assert (claim.outcome, claim.workflow.status if claim.workflow else None) == (ClaimOutcome.NONE, "failed")


async def test_nothing_is_claimable_before_the_workflow_executes(workflows: WorkflowFlight) -> None:
    created = await workflows.create_workflow(1)
    assert (await workflows.claim()).outcome is ClaimOutcome.NONE
    claim = await workflows.claim(workflow_id=created.workflow.id)
    assert claim.outcome is ClaimOutcome.NONE
    assert claim.workflow is not None
    assert claim.workflow.status == "idle"


async def test_slots_per_tenant_keep_further_workflows_queued_until_one_finishes(
    workflows: WorkflowFlight,
) -> None:
    workflows.runtime.settings.workflow_slots_per_tenant = 2
    first, second = await workflows.running(1), await workflows.running(1)
    third = (await workflows.create_workflow(1)).workflow.id
    fourth = (await workflows.create_workflow(1)).workflow.id
    workflows.clock.advance(timedelta(seconds=1))
    await workflows.start_workflow(third)
    assert (await workflows.workflow(third)).status == "queued"
    workflows.clock.advance(timedelta(seconds=1))
    await workflows.start_workflow(fourth)  # queued later: promoted later, whatever the ids
    # Another tenant has slots of its own.
    other = workflows.as_(OTHER_TENANT)
    assert (await other.workflow(await other.running(1))).status == "executing"

    assert (await workflows.timers()).promoted == []
    await workflows.run_named(first, "s1")
    assert (await workflows.workflow(third)).status == "queued"  # the timer moves it, not the completion
    assert (await workflows.timers()).promoted == [third]
    assert [(await workflows.workflow(w)).status for w in (second, third, fourth)] == [
        "executing",
        "executing",
        "queued",
    ]
    assert (await workflows.timers()).promoted == []


async def test_another_tenants_workflow_is_not_found(workflows: WorkflowFlight) -> None:
    workflow_id = await workflows.running(1)
    other = workflows.as_(OTHER_TENANT)
    await other.refused(lambda tx: workflow_create.start_workflow(tx, workflow_id), ErrorCode.NOT_FOUND)
    assert (await other.claim(workflow_id=None)).outcome is ClaimOutcome.NONE
    await other.refused(lambda tx: workflow_claims.claim_work(tx, "w", workflow_id), ErrorCode.NOT_FOUND)
    step_id = (await workflows.claim_step()).id
    await other.refused(
        lambda tx: workflow_reports.fail_workflow_step(tx, step_id, "worker", ErrorCategory.TRANSIENT, "x"),
        ErrorCode.NOT_FOUND,
    )


async def test_malformed_ids_are_validation_errors(workflows: WorkflowFlight) -> None:
    error = await workflows.refused(
        lambda tx: workflow_create.start_workflow(tx, "not-an-id"), ErrorCode.VALIDATION_FAILED
    )
    assert error.problems[0].field == ["workflowId"]


async def test_roles_do_not_matter_to_services_but_tenants_do(workflows: WorkflowFlight) -> None:
    # The API checks roles; the service layer only scopes by tenant.
    reviewer = workflows.as_(Principal(workflows.tenant_id, Role.REVIEWER, "rev"))
    workflow_id = await workflows.running(1)
    assert (await reviewer.claim_step(workflow_id=workflow_id)).name == "s1"
