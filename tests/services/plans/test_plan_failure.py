"""A plan that ends failed leaves no step unfinished (seeds 000, 003; docs/decisions/0001-research-plans.md).

Every way a plan fails (a branching ``fail``, a reviewer's ``reject``, ``failPlan`` from any open state,
``stalled`` included) closes the steps still open in the same transaction: each walks the step table to
``failed`` and gets the seed's ``step_failed`` saying how; the plan writes ``plan_failed``. Afterwards
the steps, the plan's status, ``derive_plan_status``, progress and the events tell one story.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import pytest

from server.machines.plan import PlanStatus, StepStatus, derive_plan_status
from server.services.plans.inputs import Decision
from server.services.plans.queries import plan_progress
from tests.services.helpers import Flight, when


@dataclass
class Failing:
    plan_id: str
    fail: Callable[[], Awaitable[object]]
    via: str
    before: list[str]  # the step statuses just before the plan fails


async def _branching(flight: Flight, *, planning: bool = False, running_sibling: bool = False) -> Failing:
    created = await flight.create(3, branching_conditions=[when(1, "sources", "lt", 2, "fail")])
    plan_id, first = created.plan.id, created.steps[0].id
    if not planning:
        await flight.start(plan_id)
    if running_sibling:
        await flight.start(plan_id)  # step 2 runs beside step 1
    return Failing(
        plan_id,
        lambda: flight.submit(first, result_data={"sources": 1}),
        "branching",
        await flight.statuses(plan_id),
    )


async def _rejected(flight: Flight) -> Failing:
    plan_id, step_id = await flight.awaiting_review(3)
    return Failing(
        plan_id,
        lambda: flight.decide(step_id, Decision.REJECT, "wrong sources"),
        "user_decision",
        await flight.statuses(plan_id),
    )


async def _fail_plan(flight: Flight, status: str) -> Failing:
    created = await flight.create(3)
    plan_id = created.plan.id
    if status != "planning":
        await flight.run_step(plan_id)
        await flight.start(plan_id)
    if status == "awaiting_review":
        await flight.review(created.steps[1].id)
    if status == "stalled":
        await flight.stall(plan_id)
    assert (await flight.plan(plan_id)).status == status
    return Failing(
        plan_id,
        lambda: flight.fail_plan(plan_id, "out of budget"),
        "fail_plan",
        await flight.statuses(plan_id),
    )


WAYS: dict[str, Callable[[Flight], Awaitable[Failing]]] = {
    "branching fail": _branching,
    "branching fail while a sibling runs": lambda f: _branching(f, running_sibling=True),
    "branching fail on a plan still planning": lambda f: _branching(f, planning=True),
    "reject": _rejected,
    "failPlan while planning": lambda f: _fail_plan(f, "planning"),
    "failPlan while executing": lambda f: _fail_plan(f, "executing"),
    "failPlan while awaiting review": lambda f: _fail_plan(f, "awaiting_review"),
    "failPlan while stalled": lambda f: _fail_plan(f, "stalled"),
}


@pytest.mark.parametrize("way", list(WAYS))
async def test_a_failed_plan_leaves_no_step_unfinished_and_its_reads_agree(flight: Flight, way: str) -> None:
    failing = await WAYS[way](flight)
    seq0 = await flight.last_seq()

    await failing.fail()  # Flight.call: every status change is a chain of edges of the table

    plan = await flight.plan(failing.plan_id)
    steps = await flight.steps(failing.plan_id)
    statuses = [StepStatus(s.status) for s in steps]
    assert plan.status == PlanStatus.FAILED
    # What had finished stays as it was; everything still open failed with the plan. The step whose
    # result fired a branching ``fail`` completed first (seed 003) and stays completed.
    finished = {"completed", "skipped", "failed"}
    expected = [b if b in finished else "failed" for b in failing.before]
    if failing.via == "branching":
        expected[0] = "completed"
    assert [s.status for s in steps] == expected

    # The seed's derivation over a failed plan's steps: all terminal, so never executing (and never
    # failed: seed 000 fails plans only explicitly). Progress counts no work left.
    assert derive_plan_status(statuses) is PlanStatus.COMPLETED
    progress = plan_progress(plan, steps, flight.clock.now(), timedelta(minutes=30))
    assert progress.progress_percent == 100.0
    assert progress.counts[StepStatus.PENDING] == progress.counts[StepStatus.IN_PROGRESS] == 0
    assert progress.counts[StepStatus.AWAITING_INPUT] == 0
    assert not progress.stalled

    new = [e for e in await flight.events() if e.seq > seq0 and e.entity_type != "decision"]
    newly_failed = {s.id for s, b in zip(steps, failing.before, strict=True) if s.status == "failed" != b}
    step_failed = [e for e in new if e.kind == "step_failed"]
    assert {e.entity_id for e in step_failed} == newly_failed
    assert len(step_failed) == len(newly_failed)
    assert {e.data["via"] for e in step_failed} == {failing.via}
    for step in steps:
        if step.id in newly_failed:
            assert step.failure_reason
            assert step.completed_at == flight.clock.now()
    [plan_failed] = [e for e in new if e.kind == "plan_failed"]
    assert plan_failed.data["via"] == failing.via
    assert plan_failed.data["reason"] == plan.failure_reason
    # The steps close before the plan does (parents follow their children), and plan_failed is last.
    plan_moves = [i for i, e in enumerate(new) if e.kind == "plan_transitioned"]
    step_closes = [i for i, e in enumerate(new) if e.kind == "step_failed"]
    assert max(step_closes) < min(plan_moves)
    assert new[-1].kind == "plan_failed"


async def test_a_branching_fail_fails_the_pending_steps_by_walking_the_table(flight: Flight) -> None:
    failing = await _branching(flight)
    seq0 = await flight.last_seq()
    await failing.fail()
    steps = await flight.steps(failing.plan_id)
    moves = [
        (e.entity_id, e.from_state, e.to_state, (e.data or {}).get("reason"))
        for e in await flight.events(kind="step_transitioned", after=seq0)
    ]
    assert moves == [
        (steps[0].id, "in_progress", "completed", None),
        (steps[1].id, "pending", "in_progress", "the plan failed"),
        (steps[1].id, "in_progress", "failed", "the plan failed"),
        (steps[2].id, "pending", "in_progress", "the plan failed"),
        (steps[2].id, "in_progress", "failed", "the plan failed"),
    ]
    plan = await flight.plan(failing.plan_id)
    assert plan.failure_reason is not None
    assert steps[1].failure_reason == f"the plan failed: {plan.failure_reason}"


async def test_a_reject_keeps_the_reviewers_feedback_on_the_rejected_step(flight: Flight) -> None:
    failing = await _rejected(flight)
    await failing.fail()
    steps = await flight.steps(failing.plan_id)
    assert steps[0].failure_reason == "wrong sources"
    plan = await flight.plan(failing.plan_id)
    assert [s.failure_reason for s in steps[1:]] == [f"the plan failed: {plan.failure_reason}"] * 2
