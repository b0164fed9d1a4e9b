"""modifyPlan (its five actions), retryStep and failPlan."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import delete, or_, select

from ...db.models import BranchingConditionRow, PlanStep, ResearchPlan
from ...echo import shown
from ...errors import ServiceError, invalid, not_found
from ...events.kinds import AuditEvent, EngineEvent
from ...machines.plan import PLAN_MACHINE, STEP_MACHINE
from ..runtime import Tx
from ..transitions import require
from ..validation import Problems, check_text, parse_id
from .create import new_step_row, validate_new_steps
from .inputs import ModifyAction, PlanModification
from .rows import (
    end_plan_failed,
    fail_step,
    lock_plan,
    lock_plan_of_step,
    plan_steps,
    require_not_terminal,
    settle_plan,
    statuses_of,
    step_act,
)


@dataclass
class Modified:
    plan: ResearchPlan
    steps: list[PlanStep]
    affected_step_ids: list[str] = field(default_factory=list)


async def modify_plan(tx: Tx, mod: PlanModification) -> Modified:
    limit = tx.settings.max_text_bytes
    check_text(mod.rationale, ["rationale"], limit)
    plan = await lock_plan(tx, mod.plan_id)
    require(PLAN_MACHINE, plan, "modify", "planId")
    steps = await plan_steps(tx, plan.id)
    handler = _HANDLERS[mod.action]
    affected = await handler(tx, plan, steps, mod)
    steps = await plan_steps(tx, plan.id)
    tx.events.record(
        AuditEvent.PLAN_MODIFIED,
        entity_type="plan",
        entity_id=plan.id,
        root_type="plan",
        root_id=plan.id,
        data={"action": mod.action.value, "stepIds": affected, "rationale": mod.rationale},
    )
    plan.updated_at = tx.now
    settle_plan(tx, plan, statuses_of(steps))
    return Modified(plan, steps, affected)


def _find_step(steps: list[PlanStep], step_id: str | None, field: str = "stepId") -> PlanStep:
    if step_id is None:
        raise invalid(f"{field} is required for this action", [field])
    sid = parse_id(step_id, field)
    step = next((s for s in steps if s.id == sid), None)
    if step is None:
        raise not_found("step", step_id, [field])
    return step


async def _add_steps(tx: Tx, plan: ResearchPlan, steps: list[PlanStep], mod: PlanModification) -> list[str]:
    problems = Problems()
    if not mod.steps:
        problems.add("add_steps needs at least one step", ["steps"])
    if len(steps) + len(mod.steps) > tx.settings.max_steps:
        problems.add(f"a plan may have at most {tx.settings.max_steps} steps", ["steps"])
    after = len(steps) if mod.insert_after_order is None else mod.insert_after_order
    if not 0 <= after <= len(steps):
        problems.add(f"insertAfterOrder must be between 0 and {len(steps)}", ["insertAfterOrder"])
    validate_new_steps(tx, mod.steps, "steps", problems)
    problems.raise_if_any()
    for s in steps:
        if s.step_order > after:
            s.step_order += len(mod.steps)
    rows = [new_step_row(tx, plan.id, after + 1 + i, new) for i, new in enumerate(mod.steps)]
    tx.session.add_all(rows)
    await tx.session.flush()
    return [r.id for r in rows]


async def _remove_step(tx: Tx, plan: ResearchPlan, steps: list[PlanStep], mod: PlanModification) -> list[str]:
    step = _find_step(steps, mod.step_id)
    if len(steps) == 1:
        raise invalid("a plan needs at least one step; this is its last", ["stepId"])
    require(STEP_MACHINE, step, "remove", "stepId")
    # Conditions that read or target the removed step go with it.
    await tx.session.execute(
        delete(BranchingConditionRow).where(
            or_(
                BranchingConditionRow.after_step_id == step.id,
                BranchingConditionRow.target_step_id == step.id,
            )
        )
    )
    await tx.session.delete(step)
    for s in steps:
        if s.step_order > step.step_order:
            s.step_order -= 1
    await tx.session.flush()
    return [step.id]


async def _reorder_steps(
    tx: Tx, plan: ResearchPlan, steps: list[PlanStep], mod: PlanModification
) -> list[str]:
    problems = Problems()
    given: list[str] = []
    for i, raw in enumerate(mod.step_ids):
        try:
            given.append(parse_id(raw, "stepIds"))
        except ServiceError:
            problems.add(f"stepIds[{i}] is not a valid id: {shown(raw)}", ["stepIds", str(i)])
    problems.raise_if_any()
    known = {s.id for s in steps}
    dupes = sorted({g for g in given if given.count(g) > 1})
    foreign = [g for g in given if g not in known]
    missing = sorted(known - set(given))
    if dupes:
        problems.add(f"stepIds lists these steps more than once: {', '.join(dupes)}", ["stepIds"])
    if foreign:
        problems.add(f"stepIds has steps that are not in this plan: {', '.join(foreign)}", ["stepIds"])
    if missing:
        problems.add(f"stepIds must list every step of the plan; missing: {', '.join(missing)}", ["stepIds"])
    problems.raise_if_any()
    order = {sid: i + 1 for i, sid in enumerate(given)}
    conditions = await tx.session.scalars(
        select(BranchingConditionRow).where(BranchingConditionRow.plan_id == plan.id)
    )
    for cond in conditions:
        if cond.target_step_id and order[cond.target_step_id] <= order[cond.after_step_id]:
            problems.add(f"branching condition {cond.id} would skip backwards after this order", ["stepIds"])
    problems.raise_if_any()
    for s in steps:
        s.step_order = order[s.id]
        s.updated_at = tx.now
    return given


async def _update_instructions(
    tx: Tx, plan: ResearchPlan, steps: list[PlanStep], mod: PlanModification
) -> list[str]:
    check_text(mod.instructions, ["instructions"], tx.settings.max_text_bytes, required=True)
    step = _find_step(steps, mod.step_id)
    assert mod.instructions is not None
    step.instructions = mod.instructions
    step.updated_at = tx.now
    return [step.id]


async def _fail_step(tx: Tx, plan: ResearchPlan, steps: list[PlanStep], mod: PlanModification) -> list[str]:
    check_text(mod.reason, ["reason"], tx.settings.max_text_bytes, required=True)
    step = _find_step(steps, mod.step_id)
    fail_step(tx, plan, step, "fail", mod.reason or "", "modify_plan", reason=mod.reason)
    return [step.id]


_HANDLERS = {
    ModifyAction.ADD_STEPS: _add_steps,
    ModifyAction.REMOVE_STEP: _remove_step,
    ModifyAction.REORDER_STEPS: _reorder_steps,
    ModifyAction.UPDATE_STEP_INSTRUCTIONS: _update_instructions,
    ModifyAction.FAIL_STEP: _fail_step,
}


async def retry_step(tx: Tx, step_id: str) -> Modified:
    plan, step = await lock_plan_of_step(tx, step_id)
    require_not_terminal(plan, "stepId")
    step_act(tx, plan, step, "retry", reason="retry")  # clears the earlier run (STEP_MACHINE.clears)
    tx.events.record(
        EngineEvent.STEP_RETRIED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"stepOrder": step.step_order},
    )
    steps = await plan_steps(tx, plan.id)
    settle_plan(tx, plan, statuses_of(steps))
    return Modified(plan, steps, [step.id])


async def fail_plan(tx: Tx, plan_id: str, reason: str) -> ResearchPlan:
    check_text(reason, ["reason"], tx.settings.max_text_bytes, required=True)
    plan = await lock_plan(tx, plan_id)
    require_not_terminal(plan, "planId")
    await end_plan_failed(tx, plan, reason, "fail_plan", reason=reason)
    return plan
