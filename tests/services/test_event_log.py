"""The event log (DESIGN.md rule 3): one transition event per state change, gap-free seq, all-or-nothing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest

from server.db.models import Event
from server.errors import ErrorCode
from server.machines.decision import DecisionStatus
from server.machines.plan import PlanStatus, StepStatus
from server.machines.skill import SkillStatus
from server.services.plans import create as plan_create
from server.services.plans import execution as plan_execution
from server.services.plans import modify as plan_modify
from server.services.plans.inputs import Decision, ModifyAction, NewPlan, PlanModification
from server.services.runtime import Tx, unit_of_work
from tests.services.helpers import (
    OTHER_TENANT,
    Flight,
    assert_transitions_explain_changes,
    steps_of,
    tenant_states,
    when,
)

INITIAL = {
    "plan": PlanStatus.PLANNING,
    "step": StepStatus.PENDING,
    "skill_execution": SkillStatus.STARTED,
    "decision": DecisionStatus.OPEN,
}


async def _full_run(flight: Flight) -> str:
    """Every kind of state change the plan services make, in one plan's life."""
    skill = await flight.start_skill("sess-1", media="text/markdown")
    created = await flight.create(
        5, session_id="sess-1", branching_conditions=[when(2, "confidence", "lt", 0.5, "skip_to", 4)]
    )
    plan_id, ids = created.plan.id, [s.id for s in created.steps]
    await flight.start(plan_id)
    await flight.review(ids[0])
    await flight.decide(ids[0], Decision.MODIFY, "more sources")
    await flight.review(ids[0])
    await flight.decide(ids[0], Decision.APPROVE)
    await flight.submit(ids[1], confidence=0.1)  # pending -> in_progress -> completed, skips step 3
    await flight.modify(plan_id, ModifyAction.ADD_STEPS, steps=steps_of(1, "extra"), insert_after_order=5)
    await flight.modify(plan_id, ModifyAction.FAIL_STEP, step_id=ids[3], reason="dead link")
    await flight.retry(ids[3])
    await flight.start(plan_id, session_id="sess-2")
    flight.clock.advance(timedelta(hours=1))
    await flight.stall(plan_id)
    await flight.submit(ids[3])
    await flight.run_step(plan_id)
    await flight.start(plan_id)
    await flight.review((await flight.steps(plan_id))[5].id)
    await flight.decide((await flight.steps(plan_id))[5].id, Decision.SKIP)
    await flight.complete_skill(skill.id)
    assert (await flight.plan(plan_id)).status == "completed"
    return plan_id


def _replay(events: Sequence[Event]) -> dict[tuple[str, str], str]:
    """Each entity's state from its initial state and its transition events alone."""
    states: dict[tuple[str, str], str] = {}
    for e in events:
        if not e.kind.endswith("_transitioned"):
            continue
        key = (e.entity_type, e.entity_id)
        current = states.get(key, INITIAL[e.entity_type].value)
        assert e.from_state == current, f"{key}: event says from {e.from_state}, replay is at {current}"
        assert e.to_state != e.from_state
        states[key] = str(e.to_state)
    return states


async def test_replaying_transition_events_rebuilds_every_state(flight: Flight) -> None:
    await _full_run(flight)
    rows = await flight.read(lambda s: tenant_states(s, flight.tenant_id))
    replayed = _replay(await flight.events())
    for key, status in rows.items():
        assert replayed.get(key, INITIAL[key[0]].value) == status, key


async def test_a_full_run_writes_the_seeds_audit_events_where_it_says(flight: Flight) -> None:
    plan_id = await _full_run(flight)
    kinds = [e.kind for e in await flight.events()]
    assert kinds[0] == "skill_started"
    assert kinds[-1] == "skill_completed"
    counts = {k: kinds.count(k) for k in set(kinds)}
    assert counts["step_started"] == 4
    assert counts["step_completed"] == 3
    assert counts["step_failed"] == 1
    assert counts["user_reviewed"] == 6
    assert counts["session_resumed"] == 1
    assert counts["plan_modified"] == 3
    assert counts["branch_fired"] == 1
    assert counts["step_retried"] == 1
    plan_events = await flight.events(root_id=plan_id)
    assert all(e.root_type == "plan" for e in plan_events)
    assert {e.actor for e in plan_events} == {flight.principal.name}


async def test_seq_is_one_to_n_per_tenant_when_tenants_interleave(flight: Flight) -> None:
    other = flight.as_(OTHER_TENANT)
    mine = await flight.create(2)
    theirs = await other.create(2)
    await flight.run_step(mine.plan.id)
    await other.run_step(theirs.plan.id)
    await other.run_step(theirs.plan.id)
    await flight.start(mine.plan.id)
    await flight.assert_seq_gap_free()
    await other.assert_seq_gap_free()
    assert {e.root_id for e in await flight.events()} == {mine.plan.id}
    assert {e.root_id for e in await other.events()} == {theirs.plan.id}


async def test_events_carry_the_fake_clock_time_of_their_transaction(flight: Flight) -> None:
    created = await flight.create(2)
    flight.clock.advance(timedelta(minutes=7))
    await flight.start(created.plan.id)
    times = [e.created_at for e in await flight.events()]
    start = flight.clock.now() - timedelta(minutes=7)
    assert times == [start, flight.clock.now(), flight.clock.now(), flight.clock.now()]


async def test_a_refused_mutation_leaves_every_row_and_the_counter_untouched(flight: Flight) -> None:
    plan_id = await _full_run(flight)
    seq = await flight.last_seq()
    steps = await flight.steps(plan_id)
    await flight.refused(
        lambda tx: plan_modify.fail_plan(tx, plan_id, "too late"), ErrorCode.INVALID_TRANSITION
    )
    await flight.refused(lambda tx: plan_modify.retry_step(tx, steps[0].id), ErrorCode.INVALID_TRANSITION)
    assert await flight.last_seq() == seq
    await flight.create(1)
    assert [e.seq for e in await flight.events()][-1] == seq + 1
    await flight.assert_seq_gap_free()


async def test_a_failure_late_in_a_transaction_undoes_its_earlier_changes_and_events(flight: Flight) -> None:
    created = await flight.create(3)
    before = await flight.snapshot()
    seq = await flight.last_seq()

    async def start_add_then_crash() -> None:
        async with unit_of_work(flight.runtime, flight.principal) as tx:
            await plan_execution.start_next_step(tx, created.plan.id)
            await plan_modify.modify_plan(
                tx, PlanModification(created.plan.id, ModifyAction.ADD_STEPS, steps=steps_of(1))
            )
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await start_add_then_crash()

    assert await flight.snapshot() == before
    nxt = await flight.start(created.plan.id)
    assert nxt.step is not None
    assert nxt.step.id == created.steps[0].id
    assert (await flight.events())[-1].seq == seq + 3  # step moved, plan moved, step_started


async def test_a_service_error_after_a_successful_call_in_the_same_unit_undoes_both(flight: Flight) -> None:
    created = await flight.create(2)

    async def start_then_reorder_badly(tx: Tx) -> None:
        await plan_execution.start_next_step(tx, created.plan.id)
        bad = PlanModification(created.plan.id, ModifyAction.REORDER_STEPS, step_ids=[created.steps[0].id])
        await plan_modify.modify_plan(tx, bad)

    await flight.refused(start_then_reorder_badly, ErrorCode.VALIDATION_FAILED)
    assert await flight.statuses(created.plan.id) == ["pending", "pending"]


async def test_commit_listeners_hear_only_committed_seqs(flight: Flight) -> None:
    heard: list[tuple[str, list[int]]] = []
    flight.runtime.commit_listeners.append(lambda buffer: heard.append((buffer.tenant_id, list(buffer.seqs))))
    created = await flight.create(2)
    await flight.refused(
        lambda tx: plan_create.create_research_plan(tx, NewPlan("", [])), ErrorCode.VALIDATION_FAILED
    )
    await flight.start(created.plan.id)
    assert heard == [(flight.tenant_id, [1]), (flight.tenant_id, [2, 3, 4])]


def _event(entity_id: str, from_state: str, to_state: str) -> Event:
    return Event(
        kind="step_transitioned",
        entity_type="step",
        entity_id=entity_id,
        from_state=from_state,
        to_state=to_state,
    )


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([], "without a transition event"),
        ([_event("s", "pending", "in_progress")], "last event ends"),
        (
            [
                _event("s", "pending", "in_progress"),
                _event("s", "pending", "in_progress"),  # the same edge recorded twice
                _event("s", "in_progress", "completed"),
            ],
            "broken chain",
        ),
        ([_event("s", "pending", "completed")], r"pending -> completed"),
    ],
)
def test_the_transition_checker_catches_unexplained_changes(events: list[Event], problem: str) -> None:
    with pytest.raises(AssertionError, match=problem):
        assert_transitions_explain_changes({("step", "s"): "pending"}, {("step", "s"): "completed"}, events)
