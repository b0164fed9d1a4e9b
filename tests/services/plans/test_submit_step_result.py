"""submitStepResult (seed 003, phase 2) and branching conditions evaluated after a step completes."""

from __future__ import annotations

from datetime import timedelta

from server.errors import ErrorCode
from server.services.plans import execution as plan_execution
from server.services.plans.execution import NextStepOutcome
from server.services.plans.inputs import ModifyAction, NewStep, StepResult
from tests.services.helpers import Flight, when


def _result(step_id: str) -> StepResult:
    return StepResult(step_id, "done")


async def test_result_completes_an_in_progress_step_and_stores_what_was_reported(flight: Flight) -> None:
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    assert started.step is not None
    flight.clock.advance(timedelta(minutes=3))

    await flight.submit(
        started.step.id,
        "Found three sources",
        result_data={"sources": 3},
        confidence=0.75,
        step_execution_report="searched the web",
        output_formatting_notes="cite them",
    )

    step = await flight.step(started.step.id)
    assert step.status == "completed"
    assert (step.result_summary, step.result_data, step.confidence) == (
        "Found three sources",
        {"sources": 3},
        0.75,
    )
    assert (step.step_execution_report, step.output_formatting_notes) == ("searched the web", "cite them")
    assert step.completed_at == flight.clock.now()
    assert (await flight.plan(created.plan.id)).status == "executing"
    tail = (await flight.events())[-2:]
    assert [(e.kind, e.from_state, e.to_state) for e in tail] == [
        ("step_transitioned", "in_progress", "completed"),
        ("step_completed", None, None),
    ]
    assert tail[1].data["confidence"] == 0.75


async def test_a_result_without_formatting_notes_keeps_the_notes_the_step_was_created_with(
    flight: Flight,
) -> None:
    steps = [NewStep("search", "find sources", output_formatting_notes="cite every source")]
    created = await flight.create(steps)

    await flight.run_step(created.plan.id)

    step = await flight.step(created.steps[0].id)
    assert (step.status, step.output_formatting_notes) == ("completed", "cite every source")
    done = await flight.start(created.plan.id)
    assert [s.output_formatting_notes for s in done.step_formatting_notes] == ["cite every source"]


async def test_a_result_with_formatting_notes_replaces_the_notes_the_step_was_created_with(
    flight: Flight,
) -> None:
    steps = [NewStep("search", "find sources", output_formatting_notes="cite every source")]
    created = await flight.create(steps)
    await flight.run_step(created.plan.id, output_formatting_notes="a table of sources")
    assert (await flight.step(created.steps[0].id)).output_formatting_notes == "a table of sources"


async def test_result_for_a_pending_step_walks_both_edges(flight: Flight) -> None:
    created = await flight.create(2)
    step_id = created.steps[0].id

    await flight.submit(step_id)

    step_moves = [(e.from_state, e.to_state) for e in await flight.events(kind="step_transitioned")]
    assert step_moves == [("pending", "in_progress"), ("in_progress", "completed")]
    step = await flight.step(step_id)
    assert step.status == "completed"
    assert step.started_at == flight.clock.now()
    plan_moves = [(e.from_state, e.to_state) for e in await flight.events(kind="plan_transitioned")]
    assert plan_moves == [("planning", "executing")]


async def test_last_result_completes_the_plan(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.run_step(created.plan.id)
    flight.clock.advance(timedelta(minutes=1))
    done = await flight.run_step(created.plan.id)
    assert done.plan.status == "completed"
    plan = await flight.plan(created.plan.id)
    assert (plan.status, plan.completed_at) == ("completed", flight.clock.now())
    last = (await flight.events(kind="plan_transitioned"))[-1]
    assert (last.from_state, last.to_state) == ("executing", "completed")


async def test_failed_steps_count_as_terminal_so_the_plan_completes(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[0].id, reason="no")
    await flight.run_step(created.plan.id)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[2].id, reason="no")
    assert await flight.statuses(created.plan.id) == ["failed", "completed", "failed"]
    assert (await flight.plan(created.plan.id)).status == "completed"


async def test_plan_keeps_executing_past_a_failed_step(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[0].id, reason="no")
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == created.steps[1].id
    assert nxt.plan.status == "executing"


async def test_a_completed_step_cannot_be_resubmitted(flight: Flight) -> None:
    created = await flight.create(2)
    first = await flight.run_step(created.plan.id)
    error = await flight.refused(
        lambda tx: plan_execution.submit_step_result(tx, _result(first.step.id)), ErrorCode.INVALID_TRANSITION
    )
    problem = error.problems[0]
    assert (problem.entity, problem.from_state, problem.to_state) == ("step", "completed", "completed")
    assert problem.field == ["stepId"]


async def test_a_step_awaiting_input_takes_no_result(flight: Flight) -> None:
    _, step_id = await flight.awaiting_review(2)
    error = await flight.refused(
        lambda tx: plan_execution.submit_step_result(tx, _result(step_id)), ErrorCode.INVALID_TRANSITION
    )
    assert error.problems[0].from_state == "awaiting_input"


async def test_a_result_for_a_terminal_plan_is_refused(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.fail_plan(created.plan.id)
    await flight.refused(
        lambda tx: plan_execution.submit_step_result(tx, _result(created.steps[0].id)),
        ErrorCode.INVALID_TRANSITION,
    )


async def test_bad_result_fields_are_validation_errors(flight: Flight) -> None:
    created = await flight.create(1)
    bad = StepResult(created.steps[0].id, "", confidence=1.5)
    error = await flight.refused(lambda tx: plan_execution.submit_step_result(tx, bad))
    assert {(p.code, tuple(p.field)) for p in error.problems} == {
        (ErrorCode.VALIDATION_FAILED, ("resultSummary",)),
        (ErrorCode.VALIDATION_FAILED, ("confidence",)),
    }


async def test_a_result_resumes_a_stalled_plan(flight: Flight) -> None:
    created = await flight.create(2)
    started = await flight.start(created.plan.id)
    await flight.stall(created.plan.id)
    assert started.step is not None
    result = await flight.submit(started.step.id)
    assert result.plan.status == "executing"


# -- branching --


async def test_skip_to_skips_the_pending_steps_in_between_and_the_target_starts_next(flight: Flight) -> None:
    created = await flight.create(4, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 4)])
    ids = [s.id for s in created.steps]

    result = await flight.run_step(created.plan.id, confidence=0.2)

    assert result.fired is not None
    assert result.fired.action == "skip_to"
    assert [s.id for s in result.skipped] == ids[1:3]
    assert await flight.statuses(created.plan.id) == ["completed", "skipped", "skipped", "pending"]
    skips = [(e.entity_id, e.from_state, e.to_state) for e in await flight.events(kind="step_transitioned")]
    assert skips[-2:] == [(ids[1], "pending", "skipped"), (ids[2], "pending", "skipped")]
    fired = await flight.events(kind="branch_fired")
    assert len(fired) == 1
    assert fired[0].data["targetStepId"] == ids[3]
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == ids[3]


async def test_skip_to_leaves_steps_that_are_not_pending_alone(flight: Flight) -> None:
    created = await flight.create(4, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 4)])
    await flight.start(created.plan.id)
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[1].id, reason="x")
    await flight.submit(created.steps[0].id, confidence=0.1)
    assert await flight.statuses(created.plan.id) == ["completed", "failed", "skipped", "pending"]


async def test_a_condition_that_does_not_match_changes_nothing(flight: Flight) -> None:
    created = await flight.create(3, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 3)])
    result = await flight.run_step(created.plan.id, confidence=0.9)
    assert result.fired is None
    assert result.skipped == []
    assert await flight.statuses(created.plan.id) == ["completed", "pending", "pending"]
    assert await flight.events(kind="branch_fired") == []


async def test_skip_to_the_last_step_then_finishing_it_completes_the_plan(flight: Flight) -> None:
    created = await flight.create(
        3, branching_conditions=[when(1, "resultSummary", "eq", "enough", "skip_to", 3)]
    )
    await flight.run_step(created.plan.id, summary="enough")
    done = await flight.run_step(created.plan.id)
    assert done.plan.status == "completed"
    assert await flight.statuses(created.plan.id) == ["completed", "skipped", "completed"]


async def test_fail_action_fails_the_plan_and_its_open_steps_and_keeps_the_step_completed(
    flight: Flight,
) -> None:
    created = await flight.create(3, branching_conditions=[when(1, "sources", "lt", 2, "fail")])
    await flight.start(created.plan.id)

    result = await flight.submit(created.steps[0].id, result_data={"sources": 1})

    assert result.plan.status == "failed"
    plan = await flight.plan(created.plan.id)
    assert plan.status == "failed"
    assert plan.failure_reason is not None
    assert "sources" in plan.failure_reason
    assert await flight.statuses(created.plan.id) == ["completed", "failed", "failed"]
    last = (await flight.events(kind="plan_transitioned"))[-1]
    assert (last.from_state, last.to_state) == ("executing", "failed")
    assert (await flight.start(created.plan.id)).outcome is NextStepOutcome.PLAN_FAILED


async def test_fail_action_on_a_plan_still_planning_takes_the_direct_edge(flight: Flight) -> None:
    # Seed 000: "planning --> failed (branching condition failure)". A result for a pending step of a
    # plan that never started must not route through executing when the fail branch fires.
    created = await flight.create(2, branching_conditions=[when(1, "confidence", "lte", 0.3, "fail")])
    await flight.submit(created.steps[0].id, confidence=0.3)
    moves = [(e.from_state, e.to_state) for e in await flight.events(kind="plan_transitioned")]
    assert moves == [("planning", "failed")]


async def test_first_matching_condition_wins_skip_before_fail(flight: Flight) -> None:
    created = await flight.create(
        3,
        branching_conditions=[
            when(1, "confidence", "lt", 0.5, "skip_to", 3),
            when(1, "confidence", "lt", 0.9, "fail"),
        ],
    )
    result = await flight.run_step(created.plan.id, confidence=0.3)
    assert result.fired is not None
    assert result.fired.action == "skip_to"
    assert result.plan.status == "executing"
    assert len(await flight.events(kind="branch_fired")) == 1


async def test_first_matching_condition_wins_fail_before_skip(flight: Flight) -> None:
    created = await flight.create(
        3,
        branching_conditions=[
            when(1, "confidence", "lt", 0.9, "fail"),
            when(1, "confidence", "lt", 0.5, "skip_to", 3),
        ],
    )
    result = await flight.run_step(created.plan.id, confidence=0.3)
    assert result.fired is not None
    assert result.fired.action == "fail"
    assert await flight.statuses(created.plan.id) == ["completed", "failed", "failed"]
    assert (await flight.plan(created.plan.id)).status == "failed"


async def test_conditions_of_other_steps_are_not_evaluated(flight: Flight) -> None:
    created = await flight.create(3, branching_conditions=[when(2, "confidence", "lt", 0.9, "fail")])
    result = await flight.run_step(created.plan.id, confidence=0.1)
    assert result.fired is None
    assert (await flight.plan(created.plan.id)).status == "executing"
