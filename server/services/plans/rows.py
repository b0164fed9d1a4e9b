"""Loading and locking plan rows, and keeping a plan's status in line with its steps."""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sqlalchemy import and_, bindparam, select

from ...db import driver
from ...db.driver_rows import Rows, loaded_columns
from ...db.models import PlanStep, ResearchPlan
from ...errors import not_found
from ...events.kinds import AuditEvent, EngineEvent
from ...machines.plan import (
    PLAN_MACHINE,
    STEP_MACHINE,
    PlanStatus,
    StepStatus,
    derive_plan_status,
)
from ..aggregates import PLAN, PLAN_STEP, lock_child, lock_root
from ..runtime import Tx
from ..transitions import allowed, apply, enter, require
from ..validation import parse_id

# The hot path's statements are built once (bound parameters): building a select costs more than
# SQLite takes to run it.
_STEPS = select(PlanStep).where(PlanStep.plan_id == bindparam("plan")).order_by(PlanStep.step_order)
_FIRST_PENDING = Rows(
    select(*loaded_columns(PlanStep))
    .where(PlanStep.plan_id == bindparam("plan"), PlanStep.status == StepStatus.PENDING.value)
    .order_by(PlanStep.step_order)
    .limit(1),
    PlanStep,
)
# startNextStep's plan and the step it would start, in one read on SQLite (``lock_plan_and_next``).
_PLAN_AND_FIRST_PENDING = Rows(
    select(*loaded_columns(ResearchPlan), *loaded_columns(PlanStep))
    .outerjoin_from(
        ResearchPlan,
        PlanStep,
        and_(PlanStep.plan_id == ResearchPlan.id, PlanStep.status == StepStatus.PENDING.value),
    )
    .where(ResearchPlan.id == bindparam("id"), ResearchPlan.tenant_id == bindparam("tenant"))
    .order_by(PlanStep.step_order)
    .limit(1),
    ResearchPlan,
    PlanStep,
)
# On the driver (db/driver.py): each submitted result reads it, and no ORM object needs its rows.
_STATUSES = driver.Prepared(select(PlanStep.status).where(PlanStep.plan_id == bindparam("plan")))


async def lock_plan(tx: Tx, plan_id: str, field: str = "planId") -> ResearchPlan:
    """The plan row, locked for this transaction (``aggregates.lock_root``)."""
    return await lock_root(tx, PLAN, plan_id, field)


async def lock_plan_and_next(
    tx: Tx, plan_id: str, field: str = "planId"
) -> tuple[ResearchPlan, PlanStep | None]:
    """The plan, locked (``lock_plan``), and its first pending step (``first_pending_step``).

    On SQLite the transaction's ``BEGIN IMMEDIATE`` already holds the database, so the lock is a read
    and both rows come in one (an ORM read costs several times the SQL it runs).
    PostgreSQL locks the plan first, then reads the step under the lock.
    """
    if not tx.runtime.db.is_sqlite:
        plan = await lock_plan(tx, plan_id, field)
        return plan, await first_pending_step(tx, plan.id)
    params = {"id": parse_id(plan_id, field), "tenant": tx.tenant_id}
    found = await _PLAN_AND_FIRST_PENDING.first(tx.session, params)
    if found is None:
        raise not_found(PLAN.entity, plan_id, [field])
    return found[0], found[1]


async def lock_plan_of_step(tx: Tx, step_id: str, field: str = "stepId") -> tuple[ResearchPlan, PlanStep]:
    """The step's plan, locked, and the step as it is under the lock (``aggregates.lock_child``)."""
    return await lock_child(tx, PLAN_STEP, step_id, field)


async def plan_steps(tx: Tx, plan_id: str) -> list[PlanStep]:
    return list((await tx.session.scalars(_STEPS, {"plan": plan_id})).all())


async def first_pending_step(tx: Tx, plan_id: str) -> PlanStep | None:
    found = await _FIRST_PENDING.first(tx.session, {"plan": plan_id})
    return None if found is None else cast(PlanStep, found[0])


async def step_statuses(tx: Tx, plan_id: str) -> list[StepStatus]:
    """The status of every step of the plan (as flushed: pending changes are written first)."""
    return [StepStatus(s) for (s,) in await driver.read(tx.session, _STATUSES, {"plan": plan_id})]


def statuses_of(steps: Iterable[PlanStep]) -> list[StepStatus]:
    return [StepStatus(s.status) for s in steps]


def require_not_terminal(plan: ResearchPlan, field: str) -> None:
    """INVALID_TRANSITION on ``field`` for a finished plan (PLAN_MACHINE's ``work``)."""
    require(PLAN_MACHINE, plan, "work", field)


def plan_act(tx: Tx, plan: ResearchPlan, action: str, **data: object) -> None:
    """PLAN_MACHINE's action ``action`` on the plan (``apply``): checked, walked, stamped, recorded."""
    apply(
        tx,
        PLAN_MACHINE,
        plan,
        action,
        root_type="plan",
        root_id=plan.id,
        field="planId",
        data=dict(data) or None,
    )


def move_step(tx: Tx, plan: ResearchPlan, step: PlanStep, to: StepStatus, **data: object) -> None:
    """One step transition, stamped as STEP_MACHINE says (``enter``)."""
    enter(tx, STEP_MACHINE, step, to, root_type="plan", root_id=plan.id, data=dict(data) or None)


def step_act(tx: Tx, plan: ResearchPlan, step: PlanStep, action: str, **data: object) -> None:
    """STEP_MACHINE's action ``action`` on the step (``apply``): checked, walked, stamped, recorded."""
    apply(
        tx,
        STEP_MACHINE,
        step,
        action,
        root_type="plan",
        root_id=plan.id,
        field="stepId",
        data=dict(data) or None,
    )


def note_step_failed(tx: Tx, plan: ResearchPlan, step: PlanStep, reason: str, via: str) -> None:
    """Keep the reason on the step and write the seed's ``step_failed`` audit event."""
    tx.write(step, failure_reason=reason)
    tx.events.record(
        AuditEvent.STEP_FAILED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"reason": reason, "via": via},
    )


def fail_step(
    tx: Tx, plan: ResearchPlan, step: PlanStep, action: str, why: str, via: str, **data: object
) -> None:
    """STEP_MACHINE's ``action`` (``fail``, ``fail_with_plan``) on ``step``, and ``step_failed``.

    A pending step goes ``pending -> in_progress -> failed``: the table has no shorter path, and it is
    walked, never widened.
    """
    step_act(tx, plan, step, action, **data)
    note_step_failed(tx, plan, step, why, via)


async def end_plan_failed(tx: Tx, plan: ResearchPlan, why: str, via: str, **data: object) -> None:
    """The plan fails, and every step still open fails with it, in this transaction.

    One rule for every way a plan ends failed (a branching ``fail``, a reviewer's reject, ``failPlan``
    from any open state): a failed plan has no pending or running work left, so its steps, its status,
    ``derive_plan_status``, progress and events agree. The steps close first (parents follow their
    children), then the plan, then ``plan_failed``.
    """
    tx.write(plan, failure_reason=why)
    open_steps = [s for s in await plan_steps(tx, plan.id) if allowed(STEP_MACHINE, s, "fail_with_plan")]
    for step in open_steps:
        fail_step(tx, plan, step, "fail_with_plan", f"the plan failed: {why}", via, reason="the plan failed")
    plan_act(tx, plan, "fail", **data)
    tx.events.record(
        EngineEvent.PLAN_FAILED,
        entity_type="plan",
        entity_id=plan.id,
        root_type="plan",
        root_id=plan.id,
        data={"reason": why, "via": via, "failedStepIds": [s.id for s in open_steps]},
    )


def move_plan(tx: Tx, plan: ResearchPlan, to: PlanStatus, **data: object) -> None:
    """Move the plan to ``to``, through ``executing`` when the table has no direct edge.

    The table is never widened: ``planning -> executing -> completed`` is two recorded transitions.
    """
    for state in PLAN_MACHINE.route(PlanStatus(plan.status), to, via=PlanStatus.EXECUTING):
        enter(tx, PLAN_MACHINE, plan, state, root_type="plan", root_id=plan.id, data=dict(data) or None)


def settle_plan(tx: Tx, plan: ResearchPlan, statuses: Iterable[StepStatus], **data: object) -> None:
    """Bring the plan's status in line with ``derive_plan_status`` after its steps changed.

    Leaving ``planning`` or ``stalled`` for plain ``executing`` is the caller's explicit act (an agent
    starting or delivering work); derivation only decides review and completion.
    """
    if not allowed(PLAN_MACHINE, plan, "work"):
        return  # a finished plan stays as it ended
    derived = derive_plan_status(statuses)
    current = PlanStatus(plan.status)
    if derived is PlanStatus.EXECUTING and current in (PlanStatus.PLANNING, PlanStatus.STALLED):
        return
    if derived is PlanStatus.PLANNING:
        return
    move_plan(tx, plan, derived, **data)
