"""Whole rows read on the driver into the session (``db.driver_rows.Rows``), on both databases: the
instance is the one the ORM's own load gives (the same values of the same types, persistent, in the
identity map, nothing to flush), writes to it are flushed as to an ORM-loaded one, a row the session
holds is refreshed, a deferred column stays unloaded, and what it cannot copy is refused."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import ForeignKey, String, bindparam, event, inspect, select, text
from sqlalchemy.exc import InvalidRequestError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from server.db import write_through
from server.db.driver_rows import Rows, loaded_columns
from server.db.engine import Database
from server.db.models import PlanStep, ResearchPlan
from server.db.workflow_models import Workflow
from server.services.plans import rows as plan_rows
from tests.services.helpers import Flight
from tests.services.workflow_helpers import WorkflowFlight

STEP_AND_PLAN = Rows(
    select(*loaded_columns(PlanStep), *loaded_columns(ResearchPlan))
    .join_from(PlanStep, ResearchPlan, ResearchPlan.id == PlanStep.plan_id)
    .where(PlanStep.id == bindparam("id")),
    PlanStep,
    ResearchPlan,
)
# startNextStep's own read: a plan and its first pending step, an outer join.
PLAN_AND_STEP = plan_rows._PLAN_AND_FIRST_PENDING
WORKFLOW = Rows(select(*loaded_columns(Workflow)).where(Workflow.id == bindparam("id")), Workflow)


def _columns(row: Any) -> dict[str, Any]:
    return {key: row.__dict__[key] for key in row.__mapper__.column_attrs if key in row.__dict__}


def _state(session: AsyncSession, row: Any) -> dict[str, Any]:
    state = row._sa_instance_state
    return {
        "persistent": state.persistent,
        "key": state.key,
        "modified": state.modified,
        "committed": dict(state.committed_state),
        "expired": set(state.expired_attributes),
        "unloaded": set(state.unloaded),
        "in map": session.sync_session.identity_map.get(state.key) is row,
        "dirty": row in session.dirty,
    }


async def _count_statements(db: Database) -> list[str]:
    seen: list[str] = []
    event.listen(db.write_engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
    return seen


async def test_a_step_and_its_plan_are_the_instances_the_orms_load_gives(db_url: str, flight: Flight) -> None:
    created = await flight.create(2)
    step_id = created.steps[1].id
    db = flight.runtime.db
    async with db.transaction() as session:
        loaded = (
            await session.execute(
                select(PlanStep, ResearchPlan)
                .join(ResearchPlan, ResearchPlan.id == PlanStep.plan_id)
                .where(PlanStep.id == step_id)
            )
        ).one()
        orm = {
            name: (_columns(row), _state(session, row))
            for name, row in zip(("step", "plan"), loaded, strict=True)
        }
        await session.rollback()
    async with db.transaction() as session:
        found = await STEP_AND_PLAN.first(session, {"id": step_id})
        assert found is not None
        step, plan = found
        ours = {
            name: (_columns(row), _state(session, row))
            for name, row in zip(("step", "plan"), found, strict=True)
        }
        # Same values of the same types (timestamps aware UTC, JSON decoded, the computed column).
        assert {k: {c: (v, type(v)) for c, v in cols.items()} for k, (cols, _) in ours.items()} == {
            k: {c: (v, type(v)) for c, v in cols.items()} for k, (cols, _) in orm.items()
        }
        assert [s for _, s in ours.values()] == [s for _, s in orm.values()]
        assert ours["step"][1]["persistent"]
        assert ours["step"][1]["in map"]
        # The identity map serves it: no SQL for a get.
        seen = await _count_statements(db)
        assert await session.get(PlanStep, step_id) is step
        assert await session.get(ResearchPlan, plan.id) is plan
        assert seen == []
        assert not session.sync_session.dirty
        assert not session.sync_session.new


async def test_writes_to_a_row_read_on_the_driver_are_flushed_as_to_an_orm_loaded_one(
    db_url: str, flight: Flight
) -> None:
    created = await flight.create(1)
    step_id = created.steps[0].id
    db = flight.runtime.db
    async with db.transaction() as session:
        step, plan = await STEP_AND_PLAN.first(session, {"id": step_id}) or (None, None)
        seen = await _count_statements(db)
        await session.flush()
        assert seen == []  # nothing to write
        write_through.write(session.sync_session, step, {"instructions": "written through"})
        plan.title = "set on the instance"
        await session.flush()
        assert len(seen) == 2, seen
    async with db.read_connection() as conn:
        got = (
            await conn.execute(
                text(
                    "SELECT s.instructions, p.title FROM plan_steps s"
                    " JOIN research_plans p ON p.id = s.plan_id WHERE s.id = :id"
                ),
                {"id": step_id},
            )
        ).one()
    assert tuple(got) == ("written through", "set on the instance")


async def test_a_row_the_session_holds_is_refreshed_and_stays_the_same_instance(
    db_url: str, flight: Flight
) -> None:
    created = await flight.create(1)
    plan_id = created.plan.id
    async with flight.runtime.db.transaction() as session:
        held = await session.get(ResearchPlan, plan_id)
        assert held is not None
        await session.execute(
            text("UPDATE research_plans SET title = 'changed' WHERE id = :id"), {"id": plan_id}
        )
        assert held.title != "changed"
        found = await PLAN_AND_STEP.first(session, {"id": plan_id, "tenant": flight.tenant_id})
        assert found is not None
        assert found[0] is held
        assert held.title == "changed"
        assert _state(session, held)["committed"] == {}
        assert not held._sa_instance_state.modified


async def test_an_outer_join_that_finds_nothing_gives_none_for_that_model(
    db_url: str, flight: Flight
) -> None:
    created = await flight.create(1)
    await flight.start(created.plan.id)  # its one step in progress: none pending
    async with flight.runtime.db.transaction() as session:
        found = await PLAN_AND_STEP.first(session, {"id": created.plan.id, "tenant": flight.tenant_id})
        assert found is not None
        plan, step = found
        assert plan.id == created.plan.id
        assert step is None
        assert (
            await PLAN_AND_STEP.first(session, {"id": created.steps[0].id, "tenant": flight.tenant_id})
            is None
        )


async def test_a_deferred_column_stays_unloaded_and_raises_as_on_an_orm_loaded_row(
    db_url: str, workflows: WorkflowFlight
) -> None:
    created = await workflows.create_workflow(2)
    workflow_id = created.workflow.id
    async with workflows.runtime.db.transaction() as session:
        orm = await session.get(Workflow, workflow_id)
        assert orm is not None
        with pytest.raises(InvalidRequestError) as orm_raised:
            _ = orm.definition
        orm_unloaded = set(inspect(orm).unloaded)
        await session.rollback()
    async with workflows.runtime.db.transaction() as session:
        (ours,) = await WORKFLOW.first(session, {"id": workflow_id}) or (None,)
        assert set(inspect(ours).unloaded) == orm_unloaded == {"definition"}
        with pytest.raises(InvalidRequestError) as ours_raised:
            _ = ours.definition
        assert str(ours_raised.value) == str(orm_raised.value)


class _Base(DeclarativeBase):
    pass


class _Parent(_Base):
    __tablename__ = "parent"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    children: Mapped[list[_Child]] = relationship()


class _Child(_Base):
    __tablename__ = "child"
    id: Mapped[str] = mapped_column(String, primary_key=True)
    parent_id: Mapped[str] = mapped_column(ForeignKey("parent.id"))


class _Pair(_Base):
    __tablename__ = "pair"
    a: Mapped[str] = mapped_column(String, primary_key=True)
    b: Mapped[str] = mapped_column(String, primary_key=True)


def test_what_it_cannot_copy_is_refused_when_the_statement_is_built() -> None:
    with pytest.raises(ValueError, match="ORM's own load"):
        Rows(select(*loaded_columns(_Parent)), _Parent)  # a relationship
    with pytest.raises(ValueError, match="ORM's own load"):
        Rows(select(*loaded_columns(_Pair)), _Pair)  # a composite key
    with pytest.raises(ValueError, match="loaded_columns"):
        Rows(select(*loaded_columns(PlanStep)[:2]), PlanStep)  # not the columns the ORM loads
    with pytest.raises(ValueError, match="loaded_columns"):
        Rows(select(*loaded_columns(ResearchPlan), *loaded_columns(PlanStep)), PlanStep, ResearchPlan)


async def test_a_session_with_loaded_as_persistent_listeners_is_refused(db_url: str, flight: Flight) -> None:
    created = await flight.create(1)
    async with flight.runtime.db.transaction() as session:
        sync: Session = session.sync_session

        def listener(session: Session, instance: Any) -> None:
            pass

        event.listen(sync, "loaded_as_persistent", listener)
        try:
            with pytest.raises(RuntimeError, match="loaded_as_persistent"):
                await WORKFLOW.first(session, {"id": created.plan.id})
        finally:
            event.remove(sync, "loaded_as_persistent", listener)
