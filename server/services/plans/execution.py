"""startNextStep and submitStepResult: the agent's execution loop (seed 003, phase 2 and 4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from sqlalchemy import bindparam, select

from ...db import driver
from ...db.models import BranchingConditionRow, PlanStep, ResearchPlan, SkillExecution
from ...events.kinds import AuditEvent, EngineEvent
from ...limits import SHORT_TEXT
from ...machines.branching import BranchAction, BranchingCondition, BranchOp, StepOutcome, condition_matches
from ...machines.plan import PLAN_MACHINE, STEP_MACHINE, PlanStatus, StepStatus
from ..runtime import Tx
from ..transitions import allowed, require
from ..validation import Problems, check_confidence, check_json_size, check_text
from .inputs import StepResult
from .rows import (
    end_plan_failed,
    lock_plan,
    lock_plan_and_next,
    lock_plan_of_step,
    move_step,
    plan_act,
    plan_steps,
    require_not_terminal,
    settle_plan,
    statuses_of,
    step_act,
    step_statuses,
)


class NextStepOutcome(StrEnum):
    STARTED = "started"
    PLAN_COMPLETE = "plan_complete"
    PLAN_FAILED = "plan_failed"
    AWAITING_REVIEW = "awaiting_review"
    NO_PENDING_STEPS = "no_pending_steps"


@dataclass
class NextStep:
    outcome: NextStepOutcome
    plan: ResearchPlan
    step: PlanStep | None = None
    in_progress_count: int = 0
    failed_count: int = 0
    output_media_type: str | None = None
    output_formatting_instructions: str | None = None
    step_formatting_notes: list[PlanStep] = field(default_factory=list)


def check_session_id(session_id: str | None) -> None:
    """A session id names a session in a 200-byte column; checked before anything else is looked at."""
    if session_id:
        check_text(session_id, ["sessionId"], SHORT_TEXT)


def note_session(tx: Tx, plan: ResearchPlan, session_id: str | None) -> bool:
    """Record ``session_resumed`` when a session other than the plan's last one picks it up.

    A finished plan is not resumed by anyone, so it is left as it is. The id is checked whatever the
    plan's state, so an over-long one is refused alike for every plan. True when the event was recorded.
    """
    check_session_id(session_id)
    if not session_id or session_id == plan.session_id or not allowed(PLAN_MACHINE, plan, "work"):
        return False
    previous = plan.session_id
    tx.write(plan, session_id=session_id, updated_at=tx.now)
    if previous is not None:
        tx.events.record(
            AuditEvent.SESSION_RESUMED,
            entity_type="plan",
            entity_id=plan.id,
            root_type="plan",
            root_id=plan.id,
            data={"sessionId": session_id, "previousSessionId": previous, "planStatus": plan.status},
        )
    return previous is not None


@dataclass
class Resumed:
    plan: ResearchPlan
    recorded: bool  # session_resumed was recorded by this call


async def resume_session(tx: Tx, plan_id: str, session_id: str) -> Resumed:
    """A new session announces itself on a plan (seed 003's cross-session resume), before it reads the
    plan's context: the ``resumeSession`` mutation. ``startNextStep`` with a session id does the same."""
    check_text(session_id, ["sessionId"], SHORT_TEXT, required=True)
    plan = await lock_plan(tx, plan_id)
    return Resumed(plan, note_session(tx, plan, session_id))


async def start_next_step(tx: Tx, plan_id: str, session_id: str | None = None) -> NextStep:
    # The first pending step is read with the plan: nothing before its use below changes which step
    # that is (a session note writes the plan, a resume the steps in progress).
    plan, step = await lock_plan_and_next(tx, plan_id)
    note_session(tx, plan, session_id)
    status = PlanStatus(plan.status)
    if status is PlanStatus.COMPLETED:
        return await _plan_complete(tx, plan, await plan_steps(tx, plan.id))
    if status is PlanStatus.FAILED:
        return NextStep(NextStepOutcome.PLAN_FAILED, plan)
    if status is PlanStatus.AWAITING_REVIEW:
        return NextStep(NextStepOutcome.AWAITING_REVIEW, plan)
    if status is PlanStatus.STALLED:
        _resume(tx, plan, await plan_steps(tx, plan.id))
    if step is None:
        statuses = await step_statuses(tx, plan.id)
        return NextStep(
            NextStepOutcome.NO_PENDING_STEPS,
            plan,
            in_progress_count=statuses.count(StepStatus.IN_PROGRESS),
            failed_count=statuses.count(StepStatus.FAILED),
        )
    step_act(tx, plan, step, "start")
    if allowed(PLAN_MACHINE, plan, "run"):  # planning (a stalled plan has resumed above)
        plan_act(tx, plan, "run", reason="started")
    tx.events.record(
        AuditEvent.STEP_STARTED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"stepOrder": step.step_order, "stepType": step.step_type, "sessionId": session_id},
    )
    return NextStep(NextStepOutcome.STARTED, plan, step)


def _resume(tx: Tx, plan: ResearchPlan, steps: list[PlanStep]) -> None:
    """stalled -> executing, even when nothing is pending (seed 003's cross-session resume).

    The steps left in progress get a fresh clock: the new session decides what to do with them, and
    without it the next stall scan would stall the plan again at once. Their old start times are kept
    in the event.
    """
    restarted = {}
    for s in steps:
        if s.status == StepStatus.IN_PROGRESS:
            restarted[s.id] = s.started_at.isoformat() if s.started_at else None
            tx.write(s, started_at=tx.now, updated_at=tx.now)
    plan_act(tx, plan, "run", reason="resumed", restartedSteps=restarted)


async def _plan_complete(tx: Tx, plan: ResearchPlan, steps: list[PlanStep]) -> NextStep:
    skill = await tx.session.scalar(
        select(SkillExecution)
        .where(SkillExecution.plan_id == plan.id, SkillExecution.tenant_id == tx.tenant_id)
        .order_by(SkillExecution.started_at.desc())
        .limit(1)
    )
    return NextStep(
        NextStepOutcome.PLAN_COMPLETE,
        plan,
        output_media_type=skill.output_media_type if skill else None,
        output_formatting_instructions=skill.output_formatting_instructions if skill else None,
        step_formatting_notes=[
            s for s in steps if s.status == StepStatus.COMPLETED and s.output_formatting_notes
        ],
    )


@dataclass
class SubmittedResult:
    plan: ResearchPlan
    step: PlanStep
    fired: BranchingConditionRow | None
    skipped: list[PlanStep]


async def submit_step_result(tx: Tx, result: StepResult) -> SubmittedResult:
    settings = tx.settings
    problems = Problems()
    problems.check(
        check_text, result.result_summary, ["resultSummary"], settings.max_text_bytes, required=True
    )
    problems.check(
        check_text, result.step_execution_report, ["stepExecutionReport"], settings.max_result_bytes
    )
    problems.check(
        check_text, result.output_formatting_notes, ["outputFormattingNotes"], settings.max_text_bytes
    )
    problems.check(check_json_size, result.result_data, ["resultData"], settings.max_result_bytes)
    problems.check(check_confidence, result.confidence, ["confidence"])
    problems.raise_if_any()

    plan, step = await lock_plan_of_step(tx, result.step_id)
    require_not_terminal(plan, "stepId")
    for state in require(STEP_MACHINE, step, "submit_result", "stepId"):
        # Seed 003's timing edge case: a pending step walks through in_progress, which says why.
        early = {"reason": "result submitted for a pending step"} if state is StepStatus.IN_PROGRESS else {}
        move_step(tx, plan, step, state, **early)
    tx.write(
        step,
        result_summary=result.result_summary,
        result_data=result.result_data,
        confidence=result.confidence,
        step_execution_report=result.step_execution_report,
    )
    if result.output_formatting_notes is not None:
        # Notes given with the result replace the step's; without any, the step keeps those it was
        # created with (seed 003 hands them back at plan_complete).
        tx.write(step, output_formatting_notes=result.output_formatting_notes)
    tx.events.record(
        AuditEvent.STEP_COMPLETED,
        entity_type="step",
        entity_id=step.id,
        root_type="plan",
        root_id=plan.id,
        data={"stepOrder": step.step_order, "confidence": result.confidence},
    )

    fired = await _first_firing_condition(tx, step)
    if fired is not None:
        tx.events.record(
            EngineEvent.BRANCH_FIRED,
            entity_type="step",
            entity_id=step.id,
            root_type="plan",
            root_id=plan.id,
            data={
                "conditionId": fired.id,
                "action": fired.action,
                "field": fired.field,
                "op": fired.op,
                "value": fired.value,
                "targetStepId": fired.target_step_id,
            },
        )
        if fired.action == BranchAction.FAIL:
            rule = f"{fired.field} {fired.op} {fired.value!r}"
            why = f"branching condition on step {step.step_order} fired: {rule}"
            # Seed 000 has planning -> failed for exactly this case: no detour through executing.
            await end_plan_failed(
                tx, plan, why, "branching", reason="branching condition", conditionId=fired.id
            )
            return SubmittedResult(plan, step, fired, [])
    if allowed(PLAN_MACHINE, plan, "run"):
        plan_act(tx, plan, "run", reason="step result submitted")
    if fired is None:
        settle_plan(tx, plan, await step_statuses(tx, plan.id))
        return SubmittedResult(plan, step, None, [])
    steps = await plan_steps(tx, plan.id)
    skipped = _skip_to(tx, plan, steps, step, fired)
    settle_plan(tx, plan, statuses_of(steps))
    return SubmittedResult(plan, step, fired, skipped)


# Read on the driver (db/driver.py) on every submitted result, most often to find none; the one that
# fires, if any, is then loaded as the row the payload and the events show.
_CONDITIONS_AFTER = driver.Prepared(
    select(
        BranchingConditionRow.id,
        BranchingConditionRow.field,
        BranchingConditionRow.op,
        BranchingConditionRow.value,
        BranchingConditionRow.action,
    )
    .where(BranchingConditionRow.after_step_id == bindparam("step"))
    .order_by(BranchingConditionRow.position)
)


async def _first_firing_condition(tx: Tx, step: PlanStep) -> BranchingConditionRow | None:
    rows = await driver.read(tx.session, _CONDITIONS_AFTER, {"step": step.id})
    if not rows:
        return None
    outcome = StepOutcome(step.confidence, step.result_summary, step.result_data or {})
    for condition_id, field_, op, value, action in rows:
        cond = BranchingCondition(
            after_step_order=step.step_order,
            field=field_,
            op=BranchOp(op),
            value=value,
            action=BranchAction(action),
        )
        if condition_matches(cond, outcome):
            return await tx.session.get(BranchingConditionRow, condition_id)
    return None


def _skip_to(
    tx: Tx, plan: ResearchPlan, steps: list[PlanStep], source: PlanStep, cond: BranchingConditionRow
) -> list[PlanStep]:
    target = next((s for s in steps if s.id == cond.target_step_id), None)
    if target is None:
        return []
    skipped = [
        s
        for s in steps
        if source.step_order < s.step_order < target.step_order and allowed(STEP_MACHINE, s, "skip_by_branch")
    ]
    for s in skipped:
        step_act(tx, plan, s, "skip_by_branch", reason="branching skip_to", conditionId=cond.id)
    return skipped
