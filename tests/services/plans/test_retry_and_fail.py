"""retryStep (seed 000's failed -> pending), failPlan, and terminal plans refusing every mutation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.errors import ErrorCode
from server.services.plans import execution as plan_execution
from server.services.plans import modify as plan_modify
from server.services.plans import review as plan_review
from server.services.plans.execution import NextStepOutcome
from server.services.plans.inputs import Decision, ModifyAction, PlanModification, StepResult
from server.services.runtime import Tx
from tests.services.helpers import OTHER_TENANT, Flight, steps_of


async def test_retry_returns_a_failed_step_to_pending_and_it_starts_again(flight: Flight) -> None:
    created = await flight.create(3)
    step_id = created.steps[0].id
    await flight.start(created.plan.id)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=step_id, reason="flaky")
    seq0 = await flight.last_seq()

    retried = await flight.retry(step_id)

    assert retried.plan.status == "executing"
    step = await flight.step(step_id)
    assert (step.status, step.started_at, step.completed_at, step.failure_reason) == (
        "pending",
        None,
        None,
        None,
    )
    new = [e for e in await flight.events() if e.seq > seq0]
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", "failed", "pending"),
        ("step_retried", None, None),
    ]
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == step_id


@pytest.mark.parametrize("state", ["pending", "in_progress", "completed"])
async def test_only_a_failed_step_can_be_retried(flight: Flight, state: str) -> None:
    created = await flight.create(2)
    step_id = created.steps[0].id
    if state != "pending":
        await flight.start(created.plan.id)
    if state == "completed":
        await flight.submit(step_id)
    error = await flight.refused(lambda tx: plan_modify.retry_step(tx, step_id), ErrorCode.INVALID_TRANSITION)
    problem = error.problems[0]
    assert (problem.entity, problem.from_state, problem.to_state) == ("step", state, "pending")
    assert problem.message == f"step {step_id} is {state}: only a failed step can be retried"


async def test_a_failed_step_of_a_completed_plan_cannot_be_retried(flight: Flight) -> None:
    # Failed steps are terminal for derivation, so the plan completed; completed plans never change.
    created = await flight.create(2)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[0].id, reason="x")
    await flight.run_step(created.plan.id)
    assert (await flight.plan(created.plan.id)).status == "completed"
    error = await flight.refused(
        lambda tx: plan_modify.retry_step(tx, created.steps[0].id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("plan", "completed")


async def _plan_in(flight: Flight, status: str) -> str:
    created = await flight.create(2)
    plan_id = created.plan.id
    if status != "planning":
        await flight.start(plan_id)
    if status == "awaiting_review":
        await flight.review(created.steps[0].id)
    if status == "stalled":
        await flight.stall(plan_id)
    if status == "completed":
        await flight.submit(created.steps[0].id)
        await flight.run_step(plan_id)
    if status == "failed":
        await flight.fail_plan(plan_id, "first")
    assert (await flight.plan(plan_id)).status == status
    return plan_id


@pytest.mark.parametrize("status", ["planning", "executing", "awaiting_review", "stalled"])
async def test_fail_plan_moves_any_open_plan_straight_to_failed(flight: Flight, status: str) -> None:
    plan_id = await _plan_in(flight, status)
    seq0 = await flight.last_seq()

    failed = await flight.fail_plan(plan_id, "out of budget")

    assert failed.status == "failed"
    assert (await flight.plan(plan_id)).failure_reason == "out of budget"
    new = [e for e in await flight.events() if e.seq > seq0 and e.entity_type != "decision"]
    plan_moves = [(e.from_state, e.to_state) for e in new if e.kind == "plan_transitioned"]
    assert plan_moves == [(status, "failed")]
    # Its open steps failed with it (tests/services/test_plan_failure.py has the whole rule).
    steps = await flight.steps(plan_id)
    assert [s.status for s in steps] == ["failed", "failed"]
    assert new[-1].kind == "plan_failed"
    assert new[-1].data == {
        "reason": "out of budget",
        "via": "fail_plan",
        "failedStepIds": [s.id for s in steps],
    }
    assert (await flight.start(plan_id)).outcome is NextStepOutcome.PLAN_FAILED


async def test_fail_plan_needs_a_reason(flight: Flight) -> None:
    plan_id = await _plan_in(flight, "executing")
    await flight.refused(lambda tx: plan_modify.fail_plan(tx, plan_id, ""), ErrorCode.VALIDATION_FAILED)


Mutation = Callable[[Tx, str, str], Awaitable[object]]
MUTATIONS: dict[str, Mutation] = {
    "submitStepResult": lambda tx, p, s: plan_execution.submit_step_result(tx, StepResult(s, "late")),
    "requestUserReview": lambda tx, p, s: plan_review.request_user_review(tx, s, "look", []),
    "submitUserDecision": lambda tx, p, s: plan_review.submit_user_decision(tx, s, Decision.APPROVE, None),
    "retryStep": lambda tx, p, s: plan_modify.retry_step(tx, s),
    "failPlan": lambda tx, p, s: plan_modify.fail_plan(tx, p, "again"),
    "modifyPlan add_steps": lambda tx, p, s: plan_modify.modify_plan(
        tx, PlanModification(p, ModifyAction.ADD_STEPS, steps=steps_of(1))
    ),
    "modifyPlan update_step_instructions": lambda tx, p, s: plan_modify.modify_plan(
        tx, PlanModification(p, ModifyAction.UPDATE_STEP_INSTRUCTIONS, step_id=s, instructions="new")
    ),
}


@pytest.mark.parametrize("status", ["completed", "failed"])
@pytest.mark.parametrize("name", list(MUTATIONS))
async def test_terminal_plans_refuse_every_mutation(flight: Flight, status: str, name: str) -> None:
    plan_id = await _plan_in(flight, status)
    steps = await flight.steps(plan_id)
    # The second step: failed with the failed plan, completed in the completed one.
    error = await flight.refused(
        lambda tx: MUTATIONS[name](tx, plan_id, steps[1].id), ErrorCode.INVALID_TRANSITION
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("plan", status)


@pytest.mark.parametrize("status", ["completed", "failed"])
async def test_start_next_step_on_a_terminal_plan_reports_it_and_writes_nothing(
    flight: Flight, status: str
) -> None:
    plan_id = await _plan_in(flight, status)
    before = await flight.snapshot()
    nxt = await flight.start(plan_id)
    expected = NextStepOutcome.PLAN_COMPLETE if status == "completed" else NextStepOutcome.PLAN_FAILED
    assert nxt.outcome is expected
    assert await flight.snapshot() == before


@pytest.mark.parametrize("name", list(MUTATIONS))
async def test_another_tenants_plan_and_steps_are_not_found(flight: Flight, name: str) -> None:
    theirs = flight.as_(OTHER_TENANT)
    created = await theirs.create(2)
    await theirs.start(created.plan.id)
    error = await flight.refused(
        lambda tx: MUTATIONS[name](tx, created.plan.id, created.steps[0].id), ErrorCode.NOT_FOUND
    )
    assert error.problems[0].field in (["planId"], ["stepId"])
