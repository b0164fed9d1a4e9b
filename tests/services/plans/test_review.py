"""requestUserReview and submitUserDecision (seed 003, phase 3): the human in the loop."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.errors import ErrorCode
from server.services.plans import review as plan_review
from server.services.plans.execution import NextStepOutcome
from server.services.plans.inputs import Decision
from tests.services.helpers import Flight


async def test_review_pauses_step_and_plan_and_records_user_reviewed(flight: Flight) -> None:
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    seq0 = await flight.last_seq()

    reviewed = await flight.review(started.step.id, "Is this enough?", ["More sources?", "Go on?"])

    assert (reviewed.step.status, reviewed.plan.status) == ("awaiting_input", "awaiting_review")
    step = await flight.step(started.step.id)
    assert (step.review_summary, step.review_questions) == ("Is this enough?", ["More sources?", "Go on?"])
    new = [e for e in await flight.events() if e.seq > seq0]
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", "in_progress", "awaiting_input"),
        ("plan_transitioned", "executing", "awaiting_review"),
        ("user_reviewed", None, None),
        ("review_requested", None, None),  # its decision opened
    ]
    assert new[2].data["action"] == "review_requested"
    assert new[2].data["questions"] == ["More sources?", "Go on?"]


async def test_review_needs_an_in_progress_step(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id)
    error = await flight.refused(
        lambda tx: plan_review.request_user_review(tx, created.steps[1].id, "s", []),
        ErrorCode.INVALID_TRANSITION,
    )
    problem = error.problems[0]
    assert (problem.entity, problem.from_state, problem.to_state) == ("step", "pending", "awaiting_input")


async def test_review_needs_an_executing_plan(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id)
    await flight.stall(created.plan.id)
    error = await flight.refused(
        lambda tx: plan_review.request_user_review(tx, created.steps[0].id, "s", []),
        ErrorCode.INVALID_TRANSITION,
    )
    problem = error.problems[0]
    assert (problem.entity, problem.from_state, problem.to_state) == ("plan", "stalled", "awaiting_review")


async def test_a_second_review_while_one_is_open_is_refused(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.start(created.plan.id)
    await flight.start(created.plan.id)
    await flight.review(created.steps[0].id)
    error = await flight.refused(
        lambda tx: plan_review.request_user_review(tx, created.steps[1].id, "s", []),
        ErrorCode.INVALID_TRANSITION,
    )
    assert (error.problems[0].entity, error.problems[0].from_state) == ("plan", "awaiting_review")


async def test_review_without_a_summary_is_a_validation_error(flight: Flight) -> None:
    created = await flight.create(1)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    step_id = started.step.id
    await flight.refused(
        lambda tx: plan_review.request_user_review(tx, step_id, "", []), ErrorCode.VALIDATION_FAILED
    )


async def test_approve_completes_the_step_and_the_plan_executes_again(flight: Flight) -> None:
    plan_id, step_id = await flight.awaiting_review(3)
    seq0 = await flight.last_seq()

    decided = await flight.decide(step_id, Decision.APPROVE)

    assert (decided.step.status, decided.plan.status) == ("completed", "executing")
    assert await flight.statuses(plan_id) == ["completed", "pending", "pending"]
    new = [e for e in await flight.events() if e.seq > seq0 and e.entity_type != "decision"]
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", "awaiting_input", "completed"),
        ("user_reviewed", None, None),
        ("plan_transitioned", "awaiting_review", "executing"),
    ]
    assert (new[1].data["action"], new[1].data["decision"]) == ("decision_submitted", "approve")
    nxt = await flight.start(plan_id)
    assert nxt.outcome is NextStepOutcome.STARTED


async def test_approving_the_last_step_completes_the_plan(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.run_step(created.plan.id)
    last = await flight.start(created.plan.id)
    assert last.step is not None
    await flight.review(last.step.id)

    decided = await flight.decide(last.step.id, Decision.APPROVE)

    assert decided.plan.status == "completed"
    plan = await flight.plan(created.plan.id)
    assert (plan.status, plan.completed_at) == ("completed", flight.clock.now())
    moves = [(e.from_state, e.to_state) for e in await flight.events(kind="plan_transitioned")]
    assert moves[-2:] == [("awaiting_review", "executing"), ("executing", "completed")]


async def test_reject_fails_the_step_and_the_plan(flight: Flight) -> None:
    plan_id, step_id = await flight.awaiting_review(3)
    seq0 = await flight.last_seq()

    decided = await flight.decide(step_id, Decision.REJECT, "wrong sources")

    assert (decided.step.status, decided.plan.status) == ("failed", "failed")
    step = await flight.step(step_id)
    assert step.failure_reason == "wrong sources"
    assert (await flight.plan(plan_id)).failure_reason is not None
    new = [e for e in await flight.events() if e.seq > seq0 and e.entity_type != "decision"]
    # The plan's other steps fail with it: a failed plan leaves no step open
    # (docs/decisions/0001-research-plans.md).
    with_the_plan = [
        ("step_transitioned", "pending", "in_progress"),
        ("step_transitioned", "in_progress", "failed"),
        ("step_failed", None, None),
    ]
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", "awaiting_input", "failed"),
        ("user_reviewed", None, None),
        ("step_failed", None, None),
        *with_the_plan,
        *with_the_plan,
        ("plan_transitioned", "awaiting_review", "failed"),
        ("plan_failed", None, None),
    ]
    assert await flight.statuses(plan_id) == ["failed", "failed", "failed"]
    assert (await flight.start(plan_id)).outcome is NextStepOutcome.PLAN_FAILED


async def test_reject_needs_no_feedback(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(1)
    decided = await flight.decide(step_id, Decision.REJECT)
    assert decided.plan.status == "failed"


async def test_modify_appends_feedback_and_returns_the_step_to_in_progress(flight: Flight) -> None:
    plan_id, step_id = await flight.awaiting_review(2)
    original = (await flight.step(step_id)).instructions

    decided = await flight.decide(step_id, Decision.MODIFY, "Use peer-reviewed sources only.")

    assert (decided.step.status, decided.plan.status) == ("in_progress", "executing")
    step = await flight.step(step_id)
    assert step.instructions == original + "\n\n---\n\nUser feedback: Use peer-reviewed sources only."
    assert step.status == "in_progress"
    events = [e for e in await flight.events(root_id=plan_id) if e.entity_type != "decision"]
    moves = [(e.from_state, e.to_state) for e in events if e.from_state]
    assert moves[-2:] == [("awaiting_input", "in_progress"), ("awaiting_review", "executing")]
    # The agent re-executes the step and submits as usual.
    result = await flight.submit(step_id, "redone")
    assert result.step.status == "completed"


async def test_modify_twice_appends_each_feedback_in_turn(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(1)
    await flight.decide(step_id, Decision.MODIFY, "first")
    await flight.review(step_id)
    await flight.decide(step_id, Decision.MODIFY, "second")
    sep = "\n\n---\n\nUser feedback: "
    assert (await flight.step(step_id)).instructions == f"step 1{sep}first{sep}second"


@pytest.mark.parametrize("feedback", [None, ""])
async def test_modify_requires_feedback(flight: Flight, feedback: str | None) -> None:
    _, step_id = await flight.awaiting_review(1)
    error = await flight.refused(
        lambda tx: plan_review.submit_user_decision(tx, step_id, Decision.MODIFY, feedback),
        ErrorCode.VALIDATION_FAILED,
    )
    assert error.problems[0].field == ["feedback"]


async def test_skip_skips_the_step_and_the_plan_executes_again(flight: Flight) -> None:
    plan_id, step_id = await flight.awaiting_review(2)
    decided = await flight.decide(step_id, Decision.SKIP)
    assert (decided.step.status, decided.plan.status) == ("skipped", "executing")
    assert await flight.statuses(plan_id) == ["skipped", "pending"]


async def test_skipping_the_last_open_step_completes_the_plan(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(1)
    decided = await flight.decide(step_id, Decision.SKIP)
    assert decided.plan.status == "completed"


@pytest.mark.parametrize("decision", list(Decision))
async def test_a_decision_on_a_step_not_awaiting_input_writes_nothing(
    flight: Flight, decision: Decision
) -> None:
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    step_id = started.step.id
    error = await flight.refused(
        lambda tx: plan_review.submit_user_decision(tx, step_id, decision, "feedback"),
        ErrorCode.INVALID_TRANSITION,
    )
    problem = error.problems[0]
    assert (problem.entity, problem.from_state) == ("step", "in_progress")


async def test_a_second_decision_on_the_same_review_is_refused(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(2)
    await flight.decide(step_id, Decision.APPROVE)
    error = await flight.refused(
        lambda tx: plan_review.submit_user_decision(tx, step_id, Decision.REJECT, None),
        ErrorCode.INVALID_TRANSITION,
    )
    assert error.problems[0].from_state == "completed"


async def test_modify_restarts_the_step_clock_so_review_time_is_not_running_time(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(1)
    flight.clock.advance(timedelta(minutes=45))  # the person took their time
    await flight.decide(step_id, Decision.MODIFY, "narrow it down")
    assert (await flight.step(step_id)).started_at == flight.clock.now()
