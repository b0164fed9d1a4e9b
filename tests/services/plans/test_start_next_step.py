"""startNextStep (seed 003, phase 2 and 4; cross-session resume): its five outcomes and resuming."""

from __future__ import annotations

from datetime import timedelta

from server.errors import ErrorCode
from server.services.plans import execution as plan_execution
from server.services.plans.execution import NextStepOutcome
from server.services.plans.inputs import Decision, ModifyAction, NewStep
from tests.services.helpers import OTHER_TENANT, Flight


async def test_first_call_starts_step_one_and_moves_the_plan_to_executing(flight: Flight) -> None:
    created = await flight.create(3)
    flight.clock.advance(timedelta(minutes=5))
    seq0 = await flight.last_seq()

    nxt = await flight.start(created.plan.id)

    assert nxt.outcome is NextStepOutcome.STARTED
    assert nxt.step is not None
    assert nxt.step.id == created.steps[0].id
    assert (nxt.step.step_order, nxt.step.step_type, nxt.step.instructions) == (1, "search", "step 1")
    assert nxt.plan.status == "executing"
    step = await flight.step(created.steps[0].id)
    assert step.status == "in_progress"
    assert step.started_at == flight.clock.now()
    assert (await flight.plan(created.plan.id)).status == "executing"
    new = [e for e in await flight.events() if e.seq > seq0]
    assert [(e.kind, e.entity_id, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", step.id, "pending", "in_progress"),
        ("plan_transitioned", created.plan.id, "planning", "executing"),
        ("step_started", step.id, None, None),
    ]
    assert new[2].data["stepOrder"] == 1


async def test_next_call_starts_the_next_pending_step_in_order(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.run_step(created.plan.id)
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == created.steps[1].id
    # The plan is already executing: only the step moves.
    last = await flight.events()
    assert [e.kind for e in last[-2:]] == ["step_transitioned", "step_started"]


async def test_a_step_left_in_progress_is_passed_over_for_the_next_pending_one(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.start(created.plan.id)
    nxt = await flight.start(created.plan.id, session_id="new-session")
    assert nxt.step is not None
    assert nxt.step.id == created.steps[1].id
    assert await flight.statuses(created.plan.id) == ["in_progress", "in_progress", "pending"]


async def test_completed_plan_returns_formatting_metadata_from_skill_plan_and_steps(flight: Flight) -> None:
    await flight.start_skill("sess-1", media="text/markdown", how="Write a short report.")
    created = await flight.create(
        [NewStep("search", "a"), NewStep("analyze", "b"), NewStep("synthesize", "c")],
        session_id="sess-1",
        output_formatting_notes="Plan: use headings.",
    )
    first = await flight.run_step(created.plan.id, output_formatting_notes="Step 1: cite sources.")
    await flight.run_step(created.plan.id)  # no notes
    await flight.run_step(created.plan.id, output_formatting_notes="Step 3: add a table.")
    assert first.step.output_formatting_notes == "Step 1: cite sources."
    seq0 = await flight.last_seq()

    done = await flight.start(created.plan.id)

    assert done.outcome is NextStepOutcome.PLAN_COMPLETE
    assert done.step is None
    assert done.output_media_type == "text/markdown"
    assert done.output_formatting_instructions == "Write a short report."
    assert done.plan.output_formatting_notes == "Plan: use headings."
    assert [(s.step_order, s.output_formatting_notes) for s in done.step_formatting_notes] == [
        (1, "Step 1: cite sources."),
        (3, "Step 3: add a table."),
    ]
    assert await flight.last_seq() == seq0


async def test_completed_plan_without_linked_skill_has_no_media_type(flight: Flight) -> None:
    created = await flight.create(1)
    await flight.run_step(created.plan.id)
    done = await flight.start(created.plan.id)
    assert done.outcome is NextStepOutcome.PLAN_COMPLETE
    assert (done.output_media_type, done.output_formatting_instructions) == (None, None)


async def test_completed_step_notes_exclude_skipped_and_failed_steps(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.run_step(created.plan.id, output_formatting_notes="kept")
    started = await flight.start(created.plan.id)
    assert started.step is not None
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=started.step.id, reason="x")
    await flight.start(created.plan.id)
    await flight.review(created.steps[2].id)
    await flight.decide(created.steps[2].id, Decision.SKIP)
    done = await flight.start(created.plan.id)
    assert done.outcome is NextStepOutcome.PLAN_COMPLETE
    assert [s.id for s in done.step_formatting_notes] == [created.steps[0].id]


async def test_failed_plan_returns_plan_failed_and_writes_nothing(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.fail_plan(created.plan.id)
    before = await flight.snapshot()
    nxt = await flight.start(created.plan.id)
    assert nxt.outcome is NextStepOutcome.PLAN_FAILED
    assert nxt.step is None
    assert await flight.snapshot() == before


async def test_plan_awaiting_review_returns_awaiting_review_and_starts_nothing(flight: Flight) -> None:
    plan_id, _ = await flight.awaiting_review(3)
    before = await flight.snapshot()
    nxt = await flight.start(plan_id)
    assert nxt.outcome is NextStepOutcome.AWAITING_REVIEW
    assert nxt.step is None
    assert await flight.snapshot() == before
    assert await flight.statuses(plan_id) == ["awaiting_input", "pending", "pending"]


async def test_no_pending_steps_reports_in_progress_and_failed_counts(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.start(created.plan.id)  # step 1 in progress
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[1].id, reason="no")
    await flight.start(created.plan.id)  # step 3 in progress
    before = await flight.snapshot()

    nxt = await flight.start(created.plan.id)

    assert nxt.outcome is NextStepOutcome.NO_PENDING_STEPS
    assert nxt.step is None
    assert (nxt.in_progress_count, nxt.failed_count) == (2, 1)
    assert nxt.plan.status == "executing"
    assert await flight.snapshot() == before


async def test_stalled_plan_resumes_to_executing_when_the_next_step_starts(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.start(created.plan.id)
    await flight.stall(created.plan.id)
    assert (await flight.plan(created.plan.id)).status == "stalled"
    seq0 = await flight.last_seq()

    nxt = await flight.start(created.plan.id)

    assert nxt.outcome is NextStepOutcome.STARTED
    assert nxt.step is not None
    assert nxt.step.id == created.steps[1].id
    assert (await flight.plan(created.plan.id)).status == "executing"
    plan_events = [e for e in await flight.events(kind="plan_transitioned") if e.seq > seq0]
    assert [(e.from_state, e.to_state) for e in plan_events] == [("stalled", "executing")]


async def test_a_different_session_records_session_resumed(flight: Flight) -> None:
    created = await flight.create(3, session_id="sess-1")
    await flight.start(created.plan.id, session_id="sess-1")
    await flight.start(created.plan.id, session_id="sess-1")
    assert await flight.events(kind="session_resumed") == []

    await flight.start(created.plan.id, session_id="sess-2")

    resumed = await flight.events(kind="session_resumed")
    assert len(resumed) == 1
    assert (resumed[0].entity_id, resumed[0].root_id) == (created.plan.id, created.plan.id)
    assert resumed[0].data["sessionId"] == "sess-2"
    assert resumed[0].data["previousSessionId"] == "sess-1"
    assert (await flight.plan(created.plan.id)).session_id == "sess-2"


async def test_first_session_on_a_plan_created_without_one_is_not_a_resume(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id, session_id="sess-1")
    assert await flight.events(kind="session_resumed") == []
    assert (await flight.plan(created.plan.id)).session_id == "sess-1"


async def test_a_new_session_on_a_finished_plan_resumes_nothing(flight: Flight) -> None:
    created = await flight.create(1, session_id="sess-1")
    await flight.run_step(created.plan.id)
    seq0 = await flight.last_seq()

    answer = await flight.start(created.plan.id, session_id="sess-2")

    assert answer.outcome is NextStepOutcome.PLAN_COMPLETE
    assert await flight.last_seq() == seq0
    assert (await flight.plan(created.plan.id)).session_id == "sess-1"


async def test_a_new_session_resuming_a_stalled_plan(flight: Flight) -> None:
    created = await flight.create(2, session_id="laptop")
    await flight.start(created.plan.id, session_id="laptop")
    flight.clock.advance(timedelta(hours=2))
    await flight.stall(created.plan.id)

    nxt = await flight.start(created.plan.id, session_id="desktop")

    assert nxt.step is not None
    assert nxt.step.id == created.steps[1].id
    assert nxt.plan.status == "executing"
    assert len(await flight.events(kind="session_resumed")) == 1


async def test_another_tenants_plan_is_not_found(flight: Flight) -> None:
    created = await flight.as_(OTHER_TENANT).create(2)
    error = await flight.refused(
        lambda tx: plan_execution.start_next_step(tx, created.plan.id), ErrorCode.NOT_FOUND
    )
    assert error.problems[0].field == ["planId"]
    assert await flight.statuses(created.plan.id) == ["pending", "pending"]


async def test_a_malformed_plan_id_is_a_validation_error(flight: Flight) -> None:
    await flight.refused(
        lambda tx: plan_execution.start_next_step(tx, "not-an-id"), ErrorCode.VALIDATION_FAILED
    )


async def test_events_of_a_started_step_name_the_plan_as_root(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id)
    events = await flight.events()
    assert all(e.root_type == "plan" and e.root_id == created.plan.id for e in events)
    step_moves = [(e.entity_id, e.from_state, e.to_state) for e in events if e.kind == "step_transitioned"]
    assert step_moves == [(created.steps[0].id, "pending", "in_progress")]
