"""planStatus's read side (seed 001): progress, stalled steps and the threshold, with the fake clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.machines.plan import PlanStatus, StepStatus
from server.services.plans import create as plan_create
from server.services.plans.inputs import Decision, ModifyAction, NewPlan, NewStep
from server.services.plans.queries import PlanProgress, plan_progress, stall_threshold
from tests.services.helpers import Flight

THIRTY_MINUTES = timedelta(minutes=30)


async def _progress(flight: Flight, plan_id: str, per_call: float | None = None) -> PlanProgress:
    plan = await flight.plan(plan_id)
    threshold = stall_threshold(plan, flight.runtime.settings.stall_threshold_seconds, per_call)
    return plan_progress(plan, await flight.steps(plan_id), flight.clock.now(), threshold)


async def test_progress_is_terminal_steps_over_all_steps(flight: Flight) -> None:
    created = await flight.create(3)
    assert (await _progress(flight, created.plan.id)).progress_percent == 0.0
    await flight.run_step(created.plan.id)
    assert (await _progress(flight, created.plan.id)).progress_percent == 33.33
    await flight.modify(created.plan.id, ModifyAction.FAIL_STEP, step_id=created.steps[1].id, reason="x")
    assert (await _progress(flight, created.plan.id)).progress_percent == 66.67
    await flight.start(created.plan.id)
    await flight.review(created.steps[2].id)
    await flight.decide(created.steps[2].id, Decision.SKIP)
    report = await _progress(flight, created.plan.id)
    assert report.progress_percent == 100.0
    assert report.derived_status is PlanStatus.COMPLETED


async def test_progress_counts_each_step_status_and_derives_the_plan_status(flight: Flight) -> None:
    created = await flight.create(4)
    await flight.run_step(created.plan.id)
    await flight.start(created.plan.id)
    await flight.review(created.steps[1].id)
    report = await _progress(flight, created.plan.id)
    assert report.counts[StepStatus.COMPLETED] == 1
    assert report.counts[StepStatus.AWAITING_INPUT] == 1
    assert report.counts[StepStatus.PENDING] == 2
    assert report.counts[StepStatus.FAILED] == 0
    assert report.derived_status is PlanStatus.AWAITING_REVIEW
    assert report.progress_percent == 25.0


async def test_an_in_progress_step_stalls_once_more_than_thirty_minutes_pass(flight: Flight) -> None:
    created = await flight.create(2)
    await flight.start(created.plan.id)
    report = await _progress(flight, created.plan.id)
    assert report.threshold == THIRTY_MINUTES
    assert (report.stalled, report.stalled_step_ids) == (False, [])

    flight.clock.advance(THIRTY_MINUTES)
    assert (await _progress(flight, created.plan.id)).stalled is False  # exactly the threshold: not yet

    flight.clock.advance(timedelta(seconds=1))
    report = await _progress(flight, created.plan.id)
    assert (report.stalled, report.stalled_step_ids) == (True, [created.steps[0].id])


async def test_only_in_progress_steps_can_stall(flight: Flight) -> None:
    created = await flight.create(4)
    await flight.run_step(created.plan.id)  # completed
    await flight.start(created.plan.id)  # in progress
    await flight.start(created.plan.id)  # in progress, then sent to review
    await flight.review(created.steps[2].id)
    flight.clock.advance(timedelta(hours=5))
    report = await _progress(flight, created.plan.id)
    assert report.stalled_step_ids == [created.steps[1].id]


async def test_stalled_step_ids_are_measured_from_each_steps_own_start(flight: Flight) -> None:
    created = await flight.create(3)
    await flight.start(created.plan.id)
    flight.clock.advance(timedelta(minutes=20))
    await flight.start(created.plan.id)
    flight.clock.advance(timedelta(minutes=15))
    report = await _progress(flight, created.plan.id)
    assert report.stalled_step_ids == [created.steps[0].id]
    flight.clock.advance(timedelta(minutes=16))
    report = await _progress(flight, created.plan.id)
    assert report.stalled_step_ids == [created.steps[0].id, created.steps[1].id]


async def test_a_plans_own_threshold_replaces_the_default(flight: Flight) -> None:
    created = await flight.create(2, stall_threshold_seconds=60)
    await flight.start(created.plan.id)
    flight.clock.advance(timedelta(seconds=61))
    report = await _progress(flight, created.plan.id)
    assert report.threshold == timedelta(seconds=60)
    assert report.stalled_step_ids == [created.steps[0].id]


@pytest.mark.parametrize(
    ("plan_seconds", "per_call", "elapsed", "stalled"),
    [
        (60, 3600, timedelta(minutes=2), False),  # the call is more patient than the plan
        (3600, 10, timedelta(seconds=11), True),  # the call is less patient than the plan
        (None, 10, timedelta(seconds=11), True),  # the call overrides the server default too
    ],
)
async def test_a_per_call_threshold_wins_over_the_plans(
    flight: Flight, plan_seconds: float | None, per_call: float, elapsed: timedelta, stalled: bool
) -> None:
    created = await flight.create(1, stall_threshold_seconds=plan_seconds)
    await flight.start(created.plan.id)
    flight.clock.advance(elapsed)
    report = await _progress(flight, created.plan.id, per_call)
    assert report.threshold == timedelta(seconds=per_call)
    assert report.stalled is stalled


async def test_the_server_setting_is_the_default_threshold(flight: Flight) -> None:
    created = await flight.create(1)
    plan = await flight.plan(created.plan.id)
    assert stall_threshold(plan, 90, None) == timedelta(seconds=90)


async def test_a_non_positive_plan_threshold_is_refused(flight: Flight) -> None:
    bad = NewPlan("q", [NewStep("search", "s")], stall_threshold_seconds=0)
    error = await flight.refused(lambda tx: plan_create.create_research_plan(tx, bad))
    assert error.problems[0].field == ["stallThresholdSeconds"]
