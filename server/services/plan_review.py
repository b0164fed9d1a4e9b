"""requestUserReview and submitUserDecision: the human in the loop (seed 003, phase 3)."""

from __future__ import annotations

from dataclasses import dataclass

from ..db.models import PlanStep, ResearchPlan
from ..errors import refused
from ..events.kinds import AuditEvent
from ..machines.plan import PLAN_MACHINE, STEP_MACHINE, PlanStatus, StepStatus
from .plan_inputs import Decision
from .plan_rows import (
    end_plan_failed,
    lock_plan_of_step,
    move_plan,
    move_step,
    note_step_failed,
    require_not_terminal,
    settle_plan,
    step_statuses,
)
from .runtime import Tx
from .validation import Problems, check_text

FEEDBACK_SEPARATOR = "\n\n---\n\nUser feedback: "


@dataclass
class Reviewed:
    plan: ResearchPlan
    step: PlanStep


async def request_user_review(tx: Tx, step_id: str, summary: str, questions: list[str]) -> Reviewed:
    limit = tx.settings.max_text_bytes
    problems = Problems()
    problems.check(check_text, summary, ["summary"], limit, required=True)
    for i, q in enumerate(questions):
        problems.check(check_text, q, ["questions", str(i)], limit, required=True)
    problems.raise_if_any()

    plan, step = await lock_plan_of_step(tx, step_id)
    require_not_terminal(plan, "stepId")
    # Check both edges before changing either, as the seed's handler does.
    if not STEP_MACHINE.can(StepStatus(step.status), StepStatus.AWAITING_INPUT):
        raise refused(
            "step",
            step.id,
            step.status,
            "only an in_progress step can ask for review",
            "stepId",
            "awaiting_input",
        )
    if not PLAN_MACHINE.can(PlanStatus(plan.status), PlanStatus.AWAITING_REVIEW):
        raise refused(
            "plan",
            plan.id,
            plan.status,
            "only an executing plan can pause for review",
            "stepId",
            "awaiting_review",
        )
    move_step(tx, plan, step, StepStatus.AWAITING_INPUT)
    move_plan(tx, plan, PlanStatus.AWAITING_REVIEW)
    step.review_summary = summary
    step.review_questions = list(questions)
    tx.events.record(
        AuditEvent.USER_REVIEWED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"action": "review_requested", "summary": summary, "questions": list(questions)},
    )
    return Reviewed(plan, step)


_STEP_EFFECT = {
    Decision.APPROVE: StepStatus.COMPLETED,
    Decision.REJECT: StepStatus.FAILED,
    Decision.MODIFY: StepStatus.IN_PROGRESS,
    Decision.SKIP: StepStatus.SKIPPED,
}


async def submit_user_decision(tx: Tx, step_id: str, decision: Decision, feedback: str | None) -> Reviewed:
    check_text(feedback, ["feedback"], tx.settings.max_text_bytes, required=decision is Decision.MODIFY)
    plan, step = await lock_plan_of_step(tx, step_id)
    require_not_terminal(plan, "stepId")
    if step.status != StepStatus.AWAITING_INPUT:
        raise refused(
            "step",
            step.id,
            step.status,
            "decisions are taken only on a step awaiting input",
            "stepId",
            _STEP_EFFECT[decision].value,
        )
    if decision is Decision.MODIFY:
        assert feedback is not None
        updated = step.instructions + FEEDBACK_SEPARATOR + feedback
        check_text(updated, ["feedback"], tx.settings.max_text_bytes)
        step.instructions = updated
    move_step(tx, plan, step, _STEP_EFFECT[decision], decision=decision.value)
    tx.events.record(
        AuditEvent.USER_REVIEWED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"action": "decision_submitted", "decision": decision.value, "feedback": feedback},
    )
    if decision is Decision.REJECT:
        note_step_failed(tx, plan, step, feedback or "rejected by reviewer", "user_decision")
        why = f"step {step.step_order} rejected by reviewer"
        await end_plan_failed(tx, plan, why, "user_decision", decision=decision.value)
        return Reviewed(plan, step)
    statuses = await step_statuses(tx, plan.id)
    if plan.status == PlanStatus.AWAITING_REVIEW and StepStatus.AWAITING_INPUT not in statuses:
        move_plan(tx, plan, PlanStatus.EXECUTING, decision=decision.value)
    settle_plan(tx, plan, statuses)
    return Reviewed(plan, step)
