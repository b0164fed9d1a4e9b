"""createResearchPlan (seed 003, phase 1): rows, branching conditions, skill linking and the audit event."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.db.models import BranchingConditionRow, SkillExecution
from server.errors import ErrorCode
from server.services.plans import create as plan_create
from server.services.plans.inputs import NewPlan, NewStep
from tests.services.helpers import OTHER_TENANT, Flight, steps_of, when


async def test_new_plan_is_planning_with_pending_steps_numbered_from_one(flight: Flight) -> None:
    created = await flight.create(
        [NewStep("search", "find"), NewStep("analyze", "think"), NewStep("synthesize", "write")],
        title="T",
        output_formatting_notes="Use headings.",
    )
    plan = await flight.plan(created.plan.id)
    assert plan.status == "planning"
    assert plan.research_question == "What is the question?"
    assert plan.output_formatting_notes == "Use headings."
    assert plan.created_at == flight.clock.now()
    rows = await flight.steps(plan.id)
    assert [(s.step_order, s.step_type, s.status) for s in rows] == [
        (1, "search", "pending"),
        (2, "analyze", "pending"),
        (3, "synthesize", "pending"),
    ]
    assert all(s.started_at is None and s.completed_at is None for s in rows)


async def test_create_returns_every_step_first_step_first(flight: Flight) -> None:
    created = await flight.create(3)
    rows = await flight.steps(created.plan.id)
    assert [s.id for s in created.steps] == [s.id for s in rows]
    first = created.steps[0]
    assert (first.step_order, first.instructions, first.status) == (1, "step 1", "pending")


async def test_branching_conditions_are_stored_with_step_ids_in_given_order(flight: Flight) -> None:
    created = await flight.create(
        4,
        branching_conditions=[
            when(1, "confidence", "lt", 0.5, "skip_to", 4),
            when(2, "resultSummary", "contains", "abort", "fail"),
        ],
    )
    ids = [s.id for s in created.steps]

    async def load(s: AsyncSession) -> list[BranchingConditionRow]:
        q = select(BranchingConditionRow).order_by(BranchingConditionRow.position)
        return list((await s.scalars(q)).all())

    rows = await flight.read(load)
    assert [
        (r.position, r.after_step_id, r.target_step_id, r.field, r.op, r.value, r.action) for r in rows
    ] == [
        (0, ids[0], ids[3], "confidence", "lt", 0.5, "skip_to"),
        (1, ids[1], None, "resultSummary", "contains", "abort", "fail"),
    ]
    assert all(r.plan_id == created.plan.id for r in rows)


async def test_create_writes_one_plan_modified_event_with_action_created(flight: Flight) -> None:
    created = await flight.create(2, branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 2)])
    events = await flight.events()
    assert [e.kind for e in events] == ["plan_modified"]
    event = events[0]
    assert (event.entity_type, event.entity_id, event.root_id) == ("plan", created.plan.id, created.plan.id)
    assert event.to_state == "planning"
    assert event.data["action"] == "created"
    assert event.data["stepIds"] == [s.id for s in created.steps]
    assert event.data["branchingConditions"] == 1
    assert event.actor == flight.principal.name


async def _skill_plan_ids(flight: Flight) -> dict[str, str | None]:
    async def load(s: AsyncSession) -> dict[str, str | None]:
        rows = await s.execute(select(SkillExecution.id, SkillExecution.plan_id))
        return {sid: pid for sid, pid in rows.all()}

    return await flight.read(load)


async def test_session_id_links_that_sessions_latest_started_skill_execution(flight: Flight) -> None:
    older = await flight.start_skill("sess-1", "older")
    flight.clock.advance(timedelta(minutes=1))
    latest = await flight.start_skill("sess-1", "latest")
    created = await flight.create(2, session_id="sess-1")

    links = await _skill_plan_ids(flight)
    assert links == {older.id: None, latest.id: created.plan.id}
    event = (await flight.events(kind="plan_modified"))[0]
    assert event.data["linkedSkillExecutionId"] == latest.id
    assert (await flight.plan(created.plan.id)).session_id == "sess-1"


async def test_session_link_skips_a_completed_skill_execution(flight: Flight) -> None:
    started = await flight.start_skill("sess-1", "still running")
    flight.clock.advance(timedelta(minutes=1))
    finished = await flight.start_skill("sess-1", "finished")
    await flight.complete_skill(finished.id)
    created = await flight.create(1, session_id="sess-1")
    assert await _skill_plan_ids(flight) == {started.id: created.plan.id, finished.id: None}


async def test_session_link_ignores_other_sessions_and_other_tenants(flight: Flight) -> None:
    mine = await flight.start_skill("sess-1")
    flight.clock.advance(timedelta(minutes=1))
    other_session = await flight.start_skill("sess-2")
    other_tenant = await flight.as_(OTHER_TENANT).start_skill("sess-1")
    created = await flight.create(1, session_id="sess-1")
    assert await _skill_plan_ids(flight) == {
        mine.id: created.plan.id,
        other_session.id: None,
        other_tenant.id: None,
    }


async def test_session_with_no_started_skill_links_nothing(flight: Flight) -> None:
    other_tenant = await flight.as_(OTHER_TENANT).start_skill("sess-9")
    await flight.create(1, session_id="sess-9")
    assert await _skill_plan_ids(flight) == {other_tenant.id: None}
    event = (await flight.events(kind="plan_modified"))[0]
    assert event.data["linkedSkillExecutionId"] is None


async def test_a_plan_without_steps_is_refused_and_nothing_is_written(flight: Flight) -> None:
    error = await flight.refused(
        lambda tx: plan_create.create_research_plan(tx, NewPlan("q", [])), ErrorCode.VALIDATION_FAILED
    )
    assert error.problems[0].field == ["steps"]


async def test_invalid_input_reports_every_problem_with_its_field(flight: Flight) -> None:
    bad = NewPlan(
        "",
        [NewStep("dance", "x"), NewStep("search", "")],
        branching_conditions=[when(1, "confidence", "lt", 0.5, "skip_to", 1)],
    )
    error = await flight.refused(lambda tx: plan_create.create_research_plan(tx, bad))
    assert {p.code for p in error.problems} == {ErrorCode.VALIDATION_FAILED}
    assert {tuple(p.field) for p in error.problems} == {
        ("researchQuestion",),
        ("steps", "0", "stepType"),
        ("steps", "1", "instructions"),
        ("branchingConditions", "0", "targetStepOrder"),
    }


async def test_plans_are_created_in_the_callers_tenant(flight: Flight) -> None:
    created = await flight.as_(OTHER_TENANT).create(steps_of(1))
    assert (await flight.plan(created.plan.id)).tenant_id == OTHER_TENANT.tenant_id
    assert all(s.tenant_id == OTHER_TENANT.tenant_id for s in await flight.steps(created.plan.id))
    assert await flight.events() == []
