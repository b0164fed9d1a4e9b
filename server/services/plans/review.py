"""requestUserReview and submitUserDecision: the human in the loop (seed 003, phase 3)."""

from __future__ import annotations

from dataclasses import dataclass

from ...db.models import PlanStep, ResearchPlan
from ...events.kinds import AuditEvent
from ...machines.plan import PLAN_MACHINE, STEP_MACHINE, StepStatus
from ..runtime import Tx
from ..transitions import allowed, apply, require
from ..validation import Problems, check_text
from .inputs import Decision
from .rows import (
    end_plan_failed,
    lock_plan_of_step,
    note_step_failed,
    plan_act,
    require_not_terminal,
    settle_plan,
    step_act,
    step_statuses,
)

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
    # Check both actions before either moves, as the seed's handler does.
    require(STEP_MACHINE, step, "request_review", "stepId")
    require(PLAN_MACHINE, plan, "pause_for_review", "stepId")
    step_act(tx, plan, step, "request_review")
    apply(tx, PLAN_MACHINE, plan, "pause_for_review", root_type="plan", root_id=plan.id, field="stepId")
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


# Each decision is the step action of the same name (STEP_MACHINE).
_ACTION = {d: d.value for d in Decision}


async def submit_user_decision(tx: Tx, step_id: str, decision: Decision, feedback: str | None) -> Reviewed:
    check_text(feedback, ["feedback"], tx.settings.max_text_bytes, required=decision is Decision.MODIFY)
    plan, step = await lock_plan_of_step(tx, step_id)
    require_not_terminal(plan, "stepId")
    require(STEP_MACHINE, step, _ACTION[decision], "stepId")
    if decision is Decision.MODIFY:
        assert feedback is not None
        updated = step.instructions + FEEDBACK_SEPARATOR + feedback
        check_text(updated, ["feedback"], tx.settings.max_text_bytes)
        step.instructions = updated
    step_act(tx, plan, step, _ACTION[decision], decision=decision.value)
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
    if StepStatus.AWAITING_INPUT not in statuses and allowed(PLAN_MACHINE, plan, "end_review"):
        plan_act(tx, plan, "end_review", decision=decision.value)
    settle_plan(tx, plan, statuses)
    return Reviewed(plan, step)
