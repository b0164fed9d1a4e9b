"""createResearchPlan (seed 003, phase 1)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select

from ...db.models import BranchingConditionRow, PlanStep, ResearchPlan, SkillExecution
from ...echo import shown
from ...events.kinds import AuditEvent
from ...limits import SHORT_TEXT
from ...machines.branching import BranchAction, validate_conditions
from ...machines.plan import PlanStatus, StepStatus
from ...machines.stall import stall_threshold_problem
from ..runtime import Tx
from ..validation import Problems, check_text
from .inputs import NewPlan, NewStep, StepType


@dataclass
class CreatedPlan:
    plan: ResearchPlan
    steps: list[PlanStep]


def validate_new_steps(tx: Tx, steps: list[NewStep], field: str, problems: Problems) -> None:
    limit = tx.settings.max_text_bytes
    valid_types = {t.value for t in StepType}
    for i, step in enumerate(steps):
        path = [field, str(i)]
        if step.step_type not in valid_types:
            problems.add(
                f"unknown step type {shown(step.step_type)}; use one of {', '.join(sorted(valid_types))}",
                [*path, "stepType"],
            )
        problems.check(check_text, step.instructions, [*path, "instructions"], limit, required=True)
        problems.check(check_text, step.title, [*path, "title"], limit, short=True)
        problems.check(check_text, step.output_formatting_notes, [*path, "outputFormattingNotes"], limit)


def new_step_row(tx: Tx, plan_id: str, order: int, step: NewStep) -> PlanStep:
    return PlanStep(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        plan_id=plan_id,
        step_order=order,
        step_type=step.step_type,
        title=step.title,
        instructions=step.instructions,
        status=StepStatus.PENDING.value,
        output_formatting_notes=step.output_formatting_notes,
        created_at=tx.now,
        updated_at=tx.now,
    )


async def create_research_plan(tx: Tx, new: NewPlan) -> CreatedPlan:
    settings = tx.settings
    problems = Problems()
    problems.check(
        check_text, new.research_question, ["researchQuestion"], settings.max_text_bytes, required=True
    )
    problems.check(check_text, new.title, ["title"], settings.max_text_bytes, short=True)
    problems.check(
        check_text, new.output_formatting_notes, ["outputFormattingNotes"], settings.max_text_bytes
    )
    problems.check(check_text, new.session_id, ["sessionId"], SHORT_TEXT)
    if not new.steps:
        problems.add("a plan needs at least one step", ["steps"])
    elif len(new.steps) > settings.max_steps:
        problems.add(f"a plan may have at most {settings.max_steps} steps", ["steps"])
    validate_new_steps(tx, new.steps, "steps", problems)
    threshold = new.stall_threshold_seconds
    if threshold is not None and (why := stall_threshold_problem(threshold)):
        problems.add(why, ["stallThresholdSeconds"])
    for p in validate_conditions(new.branching_conditions, len(new.steps)):
        problems.add(p.message, ["branchingConditions", str(p.index), p.field])
    for i, cond in enumerate(new.branching_conditions):
        problems.check(check_text, cond.field, ["branchingConditions", str(i), "field"], SHORT_TEXT)
    problems.raise_if_any()

    plan = ResearchPlan(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        title=new.title,
        research_question=new.research_question,
        status=PlanStatus.PLANNING.value,
        output_formatting_notes=new.output_formatting_notes,
        stall_threshold_seconds=new.stall_threshold_seconds,
        session_id=new.session_id,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(plan)
    await tx.session.flush()  # no ORM relationships: the plan row must exist before its steps
    steps = [new_step_row(tx, plan.id, i + 1, s) for i, s in enumerate(new.steps)]
    tx.session.add_all(steps)
    await tx.session.flush()
    for position, cond in enumerate(new.branching_conditions):
        target = steps[cond.target_step_order - 1].id if cond.target_step_order else None
        tx.session.add(
            BranchingConditionRow(
                id=str(uuid.uuid4()),
                tenant_id=tx.tenant_id,
                plan_id=plan.id,
                position=position,
                after_step_id=steps[cond.after_step_order - 1].id,
                target_step_id=target if cond.action is BranchAction.SKIP_TO else None,
                field=cond.field,
                op=cond.op.value,
                value=cond.value,
                action=cond.action.value,
            )
        )
    linked_skill = await _link_latest_skill_execution(tx, plan.id, new.session_id)
    tx.events.record(
        AuditEvent.PLAN_MODIFIED,
        entity_type="plan",
        entity_id=plan.id,
        root_type="plan",
        root_id=plan.id,
        to_state=plan.status,
        data={
            "action": "created",
            "stepIds": [s.id for s in steps],
            "branchingConditions": len(new.branching_conditions),
            "linkedSkillExecutionId": linked_skill,
        },
    )
    return CreatedPlan(plan, steps)


async def _link_latest_skill_execution(tx: Tx, plan_id: str, session_id: str | None) -> str | None:
    if not session_id:
        return None
    skill = await tx.session.scalar(
        select(SkillExecution)
        .where(
            SkillExecution.tenant_id == tx.tenant_id,
            SkillExecution.session_id == session_id,
            SkillExecution.status == "started",
        )
        .order_by(SkillExecution.started_at.desc(), SkillExecution.id.desc())
        .limit(1)
        .with_for_update()
    )
    if skill is None:
        return None
    skill.plan_id = plan_id
    return skill.id
