"""Column writes past the unit of work (``db.write_through``, ``Tx.write``), on both databases: what a
transaction writes this way is in the database (read back through another session) at commit and
before any later read of the same transaction, gone on rollback, and never left for the ORM's flush."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm.attributes import instance_state

from server.db.models import PlanStep, ResearchPlan
from server.machines.plan import PLAN_MACHINE, PlanStatus, StepStatus
from server.services.plans import rows as plan_rows
from server.services.runtime import unit_of_work
from server.services.transitions import change_state
from tests.services.helpers import Flight


async def test_a_transition_is_written_without_the_unit_of_work_and_read_back_from_the_database(
    flight: Flight,
) -> None:
    created = await flight.create(2)
    flight.clock.advance(timedelta(minutes=1))
    step_id = created.steps[0].id
    async with unit_of_work(flight.runtime, flight.principal) as tx:
        plan, step = await plan_rows.lock_plan_of_step(tx, step_id)
        plan_rows.step_act(tx, plan, step, "start")
        plan_rows.plan_act(tx, plan, "run")
        # Nothing for the ORM to flush: the session holds no changed row, the values are on the rows.
        assert not tx.session.dirty
        assert not instance_state(step).modified
        assert (step.status, step.started_at, plan.status) == ("in_progress", flight.clock.now(), "executing")
        # A read in the same transaction sees the write (it went out before the query).
        statuses = await plan_rows.step_statuses(tx, plan.id)
        assert statuses == [StepStatus.IN_PROGRESS, StepStatus.PENDING]
        tx.write(step, result_summary="half way")  # a second write of the same row, after a read
    stored = await flight.step(step_id)
    assert (stored.status, stored.started_at, stored.updated_at, stored.result_summary) == (
        "in_progress",
        flight.clock.now(),
        flight.clock.now(),
        "half way",
    )
    stored_plan = await flight.plan(created.plan.id)
    assert (stored_plan.status, stored_plan.updated_at) == ("executing", flight.clock.now())
    # The generated duration column was recomputed by the database and re-read, not left stale.
    async with flight.runtime.db.reader() as session:
        key = await session.scalar(select(ResearchPlan.duration_key).where(ResearchPlan.id == plan.id))
    assert key is not None


async def test_a_rolled_back_transaction_leaves_the_rows_as_they_were(flight: Flight) -> None:
    created = await flight.create(1)
    before = await flight.snapshot()

    async def abandoned() -> None:
        async with unit_of_work(flight.runtime, flight.principal) as tx:
            plan = await plan_rows.lock_plan(tx, created.plan.id)
            plan_rows.plan_act(tx, plan, "run")
            await plan_rows.step_statuses(tx, plan.id)  # the UPDATE has gone out before this read
            raise RuntimeError("abandoned")

    with pytest.raises(RuntimeError):
        await abandoned()
    assert await flight.snapshot() == before


async def test_a_later_plain_assignment_of_the_same_column_is_what_the_database_keeps(flight: Flight) -> None:
    created = await flight.create(1)
    async with unit_of_work(flight.runtime, flight.principal) as tx:
        step = await tx.session.get(PlanStep, created.steps[0].id)
        assert step is not None
        tx.write(step, result_summary="first")
        step.result_summary = "second"  # through the ORM, after the write-through
    assert (await flight.step(created.steps[0].id)).result_summary == "second"


async def test_a_row_not_yet_in_the_database_takes_plain_assignments(flight: Flight) -> None:
    created = await flight.create(1)
    async with unit_of_work(flight.runtime, flight.principal) as tx:
        await plan_rows.lock_plan(tx, created.plan.id)
        fresh = ResearchPlan(
            id=str(uuid.uuid4()),
            tenant_id=tx.tenant_id,
            research_question="new",
            status="planning",
            created_at=tx.now,
            updated_at=tx.now,
        )
        tx.session.add(fresh)
        change_state(tx, PLAN_MACHINE, fresh, PlanStatus.EXECUTING, root_type="plan", root_id=fresh.id)
        assert fresh in tx.session.new
    assert (await flight.plan(fresh.id)).status == "executing"
