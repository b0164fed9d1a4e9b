"""modifyPlan (seed 003): add_steps, remove_step, reorder_steps, update_step_instructions, fail_step."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.db.models import BranchingConditionRow
from server.errors import ErrorCode, ServiceError
from server.services.plans import modify as plan_modify
from server.services.plans.inputs import Decision, ModifyAction, PlanModification
from tests.services.helpers import Flight, steps_of, when

A = ModifyAction


async def _orders(flight: Flight, plan_id: str) -> list[tuple[int, str]]:
    return [(s.step_order, s.instructions) for s in await flight.steps(plan_id)]


async def _refuse(flight: Flight, mod: PlanModification, code: ErrorCode) -> ServiceError:
    return await flight.refused(lambda tx: plan_modify.modify_plan(tx, mod), code)


async def test_add_steps_after_a_middle_step_shifts_the_later_steps(flight: Flight) -> None:
    created = await flight.create(3)
    modified = await flight.modify(
        created.plan.id, A.ADD_STEPS, steps=steps_of(2, "new"), insert_after_order=1, rationale="need more"
    )
    assert await _orders(flight, created.plan.id) == [
        (1, "step 1"),
        (2, "new 1"),
        (3, "new 2"),
        (4, "step 2"),
        (5, "step 3"),
    ]
    rows = await flight.steps(created.plan.id)
    assert modified.affected_step_ids == [rows[1].id, rows[2].id]
    assert all(s.status == "pending" for s in rows[1:3])
    event = (await flight.events(kind="plan_modified"))[-1]
    assert event.data == {
        "action": "add_steps",
        "stepIds": modified.affected_step_ids,
        "rationale": "need more",
    }


async def test_add_steps_without_a_position_appends(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.modify(created.plan.id, A.ADD_STEPS, steps=steps_of(1, "new"))
    assert await _orders(flight, created.plan.id) == [(1, "step 1"), (2, "step 2"), (3, "new 1")]


async def test_add_steps_after_order_zero_inserts_first(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.modify(created.plan.id, A.ADD_STEPS, steps=steps_of(1, "new"), insert_after_order=0)
    assert await _orders(flight, created.plan.id) == [(1, "new 1"), (2, "step 1"), (3, "step 2")]
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.instructions == "new 1"


@pytest.mark.parametrize("after", [-1, 4])
async def test_add_steps_outside_the_plan_is_refused(flight: Flight, after: int) -> None:
    created = await flight.create(3)
    mod = PlanModification(created.plan.id, A.ADD_STEPS, steps=steps_of(1), insert_after_order=after)
    error = await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)
    assert error.problems[0].field == ["insertAfterOrder"]


async def test_adding_steps_to_an_executing_plan_whose_steps_are_done_keeps_it_open(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.run_step(created.plan.id)
    await flight.start(created.plan.id)
    await flight.modify(created.plan.id, A.ADD_STEPS, steps=steps_of(1, "new"))
    await flight.submit(created.steps[1].id)
    assert (await flight.plan(created.plan.id)).status == "executing"
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.instructions == "new 1"


async def test_remove_step_deletes_a_pending_step_and_compacts_orders(flight: Flight) -> None:
    created = await flight.create(4)
    removed = created.steps[1].id
    modified = await flight.modify(created.plan.id, A.REMOVE_STEP, step_id=removed)
    assert modified.affected_step_ids == [removed]
    assert await _orders(flight, created.plan.id) == [(1, "step 1"), (2, "step 3"), (3, "step 4")]


async def test_remove_step_drops_the_conditions_that_read_or_target_it(flight: Flight) -> None:
    created = await flight.create(
        4,
        branching_conditions=[
            when(1, "confidence", "lt", 0.5, "skip_to", 3),  # targets step 3
            when(3, "confidence", "lt", 0.5, "fail"),  # reads step 3
            when(1, "confidence", "lt", 0.2, "skip_to", 4),  # untouched
        ],
    )
    await flight.modify(created.plan.id, A.REMOVE_STEP, step_id=created.steps[2].id)

    async def load(s: AsyncSession) -> list[tuple[str, str | None]]:
        rows = await s.execute(
            select(BranchingConditionRow.after_step_id, BranchingConditionRow.target_step_id)
        )
        return [(a, t) for a, t in rows.all()]

    assert await flight.read(load) == [(created.steps[0].id, created.steps[3].id)]


@pytest.mark.parametrize("state", ["in_progress", "completed", "failed"])
async def test_remove_step_refuses_a_step_that_is_not_pending(flight: Flight, state: str) -> None:
    created = await flight.create(3)
    step_id = created.steps[0].id
    await flight.start(created.plan.id)
    if state == "completed":
        await flight.submit(step_id)
    if state == "failed":
        await flight.modify(created.plan.id, A.FAIL_STEP, step_id=step_id, reason="x")
    mod = PlanModification(created.plan.id, A.REMOVE_STEP, step_id=step_id)
    error = await _refuse(flight, mod, ErrorCode.INVALID_TRANSITION)
    assert error.problems[0].from_state == state


async def test_removing_the_last_open_step_completes_an_executing_plan(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.run_step(created.plan.id)
    modified = await flight.modify(created.plan.id, A.REMOVE_STEP, step_id=created.steps[1].id)
    assert modified.plan.status == "completed"


async def test_reorder_steps_assigns_orders_from_the_given_sequence(flight: Flight) -> None:
    created = await flight.create(3)
    ids = [s.id for s in created.steps]
    await flight.modify(created.plan.id, A.REORDER_STEPS, step_ids=[ids[2], ids[0], ids[1]])
    assert await _orders(flight, created.plan.id) == [(1, "step 3"), (2, "step 1"), (3, "step 2")]
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == ids[2]


async def test_reorder_accepts_ids_in_any_spelling_of_the_same_uuid(flight: Flight) -> None:
    created = await flight.create(2)
    ids = [s.id.upper() for s in reversed(created.steps)]
    await flight.modify(created.plan.id, A.REORDER_STEPS, step_ids=ids)
    assert await _orders(flight, created.plan.id) == [(1, "step 2"), (2, "step 1")]


IdList = Callable[[list[str], str], list[str]]
BAD_LISTS: dict[str, IdList] = {
    "missing": lambda ids, foreign: ids[:2],
    "foreign": lambda ids, foreign: [*ids, foreign],
    "foreign instead of own": lambda ids, foreign: [ids[0], ids[1], foreign],
    "duplicate": lambda ids, foreign: [ids[0], ids[0], ids[1], ids[2]],
    "malformed": lambda ids, foreign: [ids[0], "not-an-id", ids[2]],
    "empty": lambda ids, foreign: [],
}


@pytest.mark.parametrize("case", list(BAD_LISTS))
async def test_reorder_without_exactly_the_plans_steps_is_refused(flight: Flight, case: str) -> None:
    created = await flight.create(3)
    other = await flight.create(1)
    step_ids = BAD_LISTS[case]([s.id for s in created.steps], other.steps[0].id)
    mod = PlanModification(created.plan.id, A.REORDER_STEPS, step_ids=step_ids)
    error = await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)
    assert all(p.field[0] == "stepIds" for p in error.problems)


async def test_reorder_that_would_make_a_skip_go_backwards_is_refused(flight: Flight) -> None:
    created = await flight.create(3, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 3)])
    ids = [s.id for s in created.steps]
    mod = PlanModification(created.plan.id, A.REORDER_STEPS, step_ids=[ids[2], ids[1], ids[0]])
    await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)


@pytest.mark.parametrize("state", ["pending", "in_progress", "completed", "failed", "skipped"])
async def test_update_step_instructions_works_in_any_step_status(flight: Flight, state: str) -> None:
    created = await flight.create(3, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 3)])
    await flight.start(created.plan.id)
    target = {"pending": 2, "in_progress": 0, "completed": 0, "failed": 2, "skipped": 1}[state]
    if state in ("completed", "skipped"):
        await flight.submit(created.steps[0].id, confidence=0.1)
    if state == "failed":
        await flight.modify(created.plan.id, A.FAIL_STEP, step_id=created.steps[2].id, reason="x")
    step_id = created.steps[target].id
    assert (await flight.step(step_id)).status == state

    await flight.modify(created.plan.id, A.UPDATE_STEP_INSTRUCTIONS, step_id=step_id, instructions="new text")

    step = await flight.step(step_id)
    assert (step.instructions, step.status) == ("new text", state)


async def test_update_step_instructions_needs_text(flight: Flight) -> None:
    created = await flight.create(1)
    mod = PlanModification(created.plan.id, A.UPDATE_STEP_INSTRUCTIONS, step_id=created.steps[0].id)
    await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)


async def test_fail_step_on_a_pending_step_walks_through_in_progress(flight: Flight) -> None:
    created = await flight.create(2)
    step_id = created.steps[1].id
    await flight.start(created.plan.id)
    seq0 = await flight.last_seq()

    await flight.modify(created.plan.id, A.FAIL_STEP, step_id=step_id, reason="source gone", rationale="why")

    new = [e for e in await flight.events() if e.seq > seq0]
    assert [(e.kind, e.from_state, e.to_state) for e in new] == [
        ("step_transitioned", "pending", "in_progress"),
        ("step_transitioned", "in_progress", "failed"),
        ("step_failed", None, None),
        ("plan_modified", None, None),
    ]
    assert new[2].data["reason"] == "source gone"
    assert new[3].data == {"action": "fail_step", "stepIds": [step_id], "rationale": "why"}
    step = await flight.step(step_id)
    assert (step.status, step.failure_reason) == ("failed", "source gone")


async def test_fail_step_on_an_in_progress_step_is_one_edge(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id)
    seq0 = await flight.last_seq()
    await flight.modify(created.plan.id, A.FAIL_STEP, step_id=created.steps[0].id, reason="timeout")
    moves = [
        (e.from_state, e.to_state) for e in await flight.events(kind="step_transitioned") if e.seq > seq0
    ]
    assert moves == [("in_progress", "failed")]


async def test_fail_step_refuses_a_completed_step(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.run_step(created.plan.id)
    mod = PlanModification(created.plan.id, A.FAIL_STEP, step_id=created.steps[0].id, reason="x")
    error = await _refuse(flight, mod, ErrorCode.INVALID_TRANSITION)
    assert error.problems[0].from_state == "completed"


async def test_fail_step_needs_a_reason(flight: Flight) -> None:
    created = await flight.create(1)
    mod = PlanModification(created.plan.id, A.FAIL_STEP, step_id=created.steps[0].id)
    await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)


async def test_a_step_of_another_plan_is_not_found(flight: Flight) -> None:
    created = await flight.create(1)
    other = await flight.create(1)
    mod = PlanModification(created.plan.id, A.REMOVE_STEP, step_id=other.steps[0].id)
    await _refuse(flight, mod, ErrorCode.NOT_FOUND)
    mod = PlanModification(created.plan.id, A.REMOVE_STEP, step_id=str(uuid.uuid4()))
    await _refuse(flight, mod, ErrorCode.NOT_FOUND)


async def _plan_in(flight: Flight, status: str) -> str:
    plan_id, step_id = await flight.awaiting_review(2)
    if status == "stalled":
        await flight.decide(step_id, Decision.APPROVE)
        await flight.stall(plan_id)
    elif status == "completed":
        await flight.decide(step_id, Decision.APPROVE)
        await flight.run_step(plan_id)
    elif status == "failed":
        await flight.decide(step_id, Decision.REJECT)
    assert (await flight.plan(plan_id)).status == status
    return plan_id


@pytest.mark.parametrize("status", ["awaiting_review", "stalled", "completed", "failed"])
@pytest.mark.parametrize("action", list(ModifyAction))
async def test_plans_not_planning_or_executing_cannot_be_modified(
    flight: Flight, status: str, action: ModifyAction
) -> None:
    plan_id = await _plan_in(flight, status)
    steps = await flight.steps(plan_id)
    mod = PlanModification(
        plan_id,
        action,
        steps=steps_of(1),
        step_id=steps[1].id,
        step_ids=[s.id for s in reversed(steps)],
        instructions="x",
        reason="x",
    )
    error = await _refuse(flight, mod, ErrorCode.INVALID_TRANSITION)
    assert (error.problems[0].entity, error.problems[0].from_state) == ("plan", status)


async def test_a_planning_plan_can_be_modified_and_stays_planning(flight: Flight) -> None:
    created = await flight.create(2)
    modified = await flight.modify(created.plan.id, A.ADD_STEPS, steps=steps_of(1, "new"))
    assert modified.plan.status == "planning"
    assert await flight.events(kind="plan_transitioned") == []


async def test_remove_step_refuses_to_remove_the_only_step(flight: Flight) -> None:
    created = await flight.create(1)
    mod = PlanModification(created.plan.id, A.REMOVE_STEP, step_id=created.steps[0].id)
    error = await _refuse(flight, mod, ErrorCode.VALIDATION_FAILED)
    assert error.problems[0].field == ["stepId"]
