"""Seed 003's research-plan tools, with its names; each calls the service GraphQL's mutation calls."""

from __future__ import annotations

from typing import Any

from ..config import Settings
from ..db.models import PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ..errors import invalid
from ..machines.branching import BranchAction, BranchingCondition, BranchOp
from ..machines.plan import PlanStatus, StepStatus
from ..machines.stall import LONGEST_STALL_THRESHOLD, stall_threshold_problem
from ..services import skills
from ..services.plans import create as plan_create
from ..services.plans import execution as plan_execution
from ..services.plans import modify as plan_modify
from ..services.plans import reads as plan_reads
from ..services.plans import review as plan_review
from ..services.plans.execution import NextStepOutcome, check_session_id
from ..services.plans.inputs import (
    Decision,
    ModifyAction,
    NewPlan,
    NewStep,
    PlanModification,
    StepResult,
    StepType,
)
from .arguments import (
    BOOL,
    IDS,
    INT,
    NUM_OR_NULL,
    STR,
    STR_OR_NULL,
    Schema,
    Shape,
    Vocabulary,
    any_json,
    array,
    enum,
    integer,
    json_object,
    nullable,
    number,
    obj,
    output,
    states,
    text,
)
from .tools import Access, Answer, Call, Tool, ToolSpec, reads, table, writes
from .toolsets import Toolset

# -- what comes back --

PLAN_STATUS = states(PlanStatus)
STEP_STATUS = states(StepStatus)

STEP_BRIEF: dict[str, Schema] = {
    "stepId": STR,
    "order": INT,
    "stepType": states(StepType),
    "title": STR,
    "instructions": STR,
    "status": STEP_STATUS,
}
STEP_REQUIRED = ["stepId", "order", "stepType", "title", "instructions", "status"]
STEP_NAMES = {"stepId": "id", "order": "step_order"}
STEP = Shape(STEP_BRIEF, STEP_REQUIRED, renamed=STEP_NAMES)
STEP_FULL = Shape(
    {
        **STEP_BRIEF,
        "resultSummary": STR_OR_NULL,
        "resultData": {"type": ["object", "null"]},
        "confidence": NUM_OR_NULL,
        "stepExecutionReport": STR_OR_NULL,
        "outputFormattingNotes": STR_OR_NULL,
        "failureReason": STR_OR_NULL,
        "reviewSummary": STR_OR_NULL,
        "reviewQuestions": {"type": ["array", "null"], "items": STR},
        "startedAt": STR_OR_NULL,
        "completedAt": STR_OR_NULL,
    },
    STEP_REQUIRED,
    renamed=STEP_NAMES,
)
PLAN = Shape(
    {
        "planId": STR,
        "title": STR,
        "researchQuestion": STR,
        "status": PLAN_STATUS,
        "outputFormattingNotes": STR_OR_NULL,
        "sessionId": STR_OR_NULL,
        "failureReason": STR_OR_NULL,
        "createdAt": STR,
        "updatedAt": STR,
        "completedAt": STR_OR_NULL,
    },
    ["planId", "title", "researchQuestion", "status"],
    ident="planId",
)
SKILL = Shape(
    {
        "skillExecutionId": STR,
        "sessionId": STR,
        "skillName": STR,
        "status": {"type": "string", "enum": ["started", "completed"]},
        "planId": STR_OR_NULL,
        "outputMediaType": STR_OR_NULL,
        "outputFormattingInstructions": STR_OR_NULL,
        "resultSummary": STR_OR_NULL,
    },
    ["skillExecutionId", "sessionId", "skillName", "status"],
    ident="skillExecutionId",
)
CONDITION = Shape(
    {
        "conditionId": STR,
        "afterStepId": STR,
        "field": STR,
        "op": STR,
        "value": {},
        "action": STR,
        "targetStepId": STR_OR_NULL,
    },
    [],
    ident="conditionId",
)
OUTPUT = Shape(
    {
        "outputId": STR,
        "planId": STR,
        "title": STR,
        "mediaType": STR,
        "createdAt": STR,
    },
    ["outputId", "planId", "mediaType"],
    ident="outputId",
)
STEP_OUT, STEP_FULL_OUT, PLAN_OUT, SKILL_OUT = STEP.schema, STEP_FULL.schema, PLAN.schema, SKILL.schema
step_out, step_full, plan_out, skill_out = STEP.of, STEP_FULL.of, PLAN.of, SKILL.of
condition_out, output_out = CONDITION.of, OUTPUT.of
STEP_AND_PLAN_OUT = output(
    {"planId": STR, "planStatus": PLAN_STATUS, "stepId": STR, "stepStatus": STEP_STATUS},
    ["planId", "planStatus", "stepId", "stepStatus"],
)


def step_and_plan(plan: ResearchPlan, step: PlanStep) -> dict[str, Any]:
    return {"planId": plan.id, "planStatus": plan.status, "stepId": step.id, "stepStatus": step.status}


# -- how the simpler tools answer --


def _review_requested(done: Any) -> Answer:
    return Answer(
        step_and_plan(done.plan, done.step),
        f"Step {done.step.step_order} awaits a person; the plan is {done.plan.status}. A reviewer "
        "decides with submit_user_decision: call wait_for_decision with this stepId to wait for it.",
    )


def _decided(done: Any) -> Answer:
    return Answer(
        step_and_plan(done.plan, done.step),
        f"Decision made: step {done.step.step_order} is {done.step.status}, the plan {done.plan.status}.",
    )


def _retried(done: Any) -> Answer:
    step = next(s for s in done.steps if s.id == done.affected_step_ids[0])
    return Answer(
        step_and_plan(done.plan, step),
        f"Step {step.step_order} is pending again; call get_next_step to start it.",
    )


def _failed(plan: ResearchPlan) -> Answer:
    return Answer(
        {"planId": plan.id, "planStatus": plan.status, "failureReason": plan.failure_reason},
        f"Plan {plan.id} failed; its unfinished steps failed with it.",
    )


def _step_context(found: Any) -> Answer:
    return Answer(
        {
            "plan": plan_out(found.plan),
            "step": step_full(found.step),
            "priorSteps": [step_full(s) for s in found.prior_steps],
        },
        f"Step {found.step.step_order} ({found.step.status}) with {len(found.prior_steps)} completed "
        "steps before it.",
    )


def _stored(row: ResearchOutput) -> Answer:
    return Answer(output_out(row), f"Stored output {row.id} for plan {row.plan_id}.")


def _skill_started(row: SkillExecution) -> Answer:
    return Answer(
        skill_out(row),
        f"Skill execution {row.id} started. A plan created with the same sessionId links to it.",
    )


def _skill_completed(row: SkillExecution) -> Answer:
    return Answer(skill_out(row), f"Skill execution {row.id} completed.")


# -- the arguments several tools share --


def _session_id(v: Vocabulary) -> Schema:
    return v.short_text("Your agent session; one other than the plan's last is recorded as resuming it")


def _step_input(v: Vocabulary) -> Schema:
    return obj(
        {
            "stepType": enum(
                StepType,
                "The kind of work (a guide for you; the server treats all alike).",
            ),
            "instructions": v.long_text("What to do in this step"),
            "title": v.long_text("Short name"),
            "outputFormattingNotes": nullable(
                v.long_text("How this step's results should appear in the final deliverable")
            ),
        },
        ["stepType", "instructions"],
        "A new step; it starts pending.",
    )


def _condition_input(v: Vocabulary) -> Schema:
    return obj(
        {
            "afterStepOrder": integer("The 1-based order of the step whose result it reads.", minimum=1),
            "field": v.short_text(
                "What it reads: confidence, resultSummary, or a key of the step's resultData"
            ),
            "op": enum(BranchOp, "The comparison; lt, lte, gt and gte need a number or string value."),
            "value": any_json("What the field is compared with (any JSON value)."),
            "action": enum(BranchAction, "skip_to: skip forward to targetStepOrder; fail: fail the plan."),
            "targetStepOrder": nullable(
                integer(
                    "skip_to only (required there): the order of a later step; fail takes none.", minimum=1
                )
            ),
        },
        ["afterStepOrder", "field", "op", "value", "action"],
        "After step afterStepOrder completes: if `field op value`, then `action`; a step's first "
        "matching condition fires.",
    )


STALL_MAX = int(LONGEST_STALL_THRESHOLD.total_seconds())


# -- the tools, one function each: its handler (when it is more than one service call) and its spec --


async def _create_research_plan(call: Call) -> Answer:
    a = call.args
    new = NewPlan(
        research_question=a["researchQuestion"],
        steps=[_new_step(s) for s in a["steps"]],
        title=a.get("title") or "",
        branching_conditions=[
            BranchingCondition(
                c["afterStepOrder"],
                c["field"],
                BranchOp(c["op"]),
                c["value"],
                BranchAction(c["action"]),
                c.get("targetStepOrder"),
            )
            for c in a.get("branchingConditions") or []
        ],
        output_formatting_notes=a.get("outputFormattingNotes"),
        session_id=a.get("sessionId"),
        stall_threshold_seconds=a.get("stallThresholdSeconds"),
    )
    created = await call.write(lambda tx: plan_create.create_research_plan(tx, new))
    plan = created.plan
    return Answer(
        {
            "planId": plan.id,
            "status": plan.status,
            "stepIds": [s.id for s in created.steps],
            "firstStep": step_out(created.steps[0]),
        },
        f"Created plan {plan.id} ({plan.status}) with {len(created.steps)} steps. "
        "Next: call get_next_step with this planId to start step 1.",
    )


def create_research_plan(v: Vocabulary) -> Tool:
    return Tool(
        "create_research_plan",
        "Create a research plan",
        "Create a research plan (planning) with its steps (pending) and optional branching conditions; "
        "returns the planId, step ids and step 1. Starts nothing: call get_next_step next. With "
        "sessionId, the session's latest start_skill_execution is linked, and its output settings come "
        "back when the plan completes.",
        obj(
            {
                "researchQuestion": v.long_text("The question the plan answers"),
                "steps": array(
                    _step_input(v),
                    f"The steps, in order: at least 1, at most {v.max_steps}.",
                    minItems=1,
                    maxItems=v.max_steps,
                ),
                "title": v.long_text("Short name"),
                "branchingConditions": nullable(
                    array(_condition_input(v), "Rules checked when a step completes; none by default.")
                ),
                "outputFormattingNotes": nullable(v.long_text("How the final deliverable should be written")),
                "sessionId": nullable(_session_id(v)),
                "stallThresholdSeconds": nullable(
                    number(
                        f"This plan's stall threshold in seconds, in (0, {STALL_MAX}]; default: the "
                        "server's.",
                        exclusiveMinimum=0,
                        maximum=STALL_MAX,
                    )
                ),
            },
            ["researchQuestion", "steps"],
        ),
        output(
            {"planId": STR, "status": PLAN_STATUS, "stepIds": IDS, "firstStep": STEP_OUT},
            ["planId", "status", "stepIds", "firstStep"],
        ),
        Access.DRIVE,
        _create_research_plan,
    )


async def _get_next_step(call: Call) -> Answer:
    plan_id, session = call.args["planId"], call.args.get("sessionId")
    nxt = await call.write(lambda tx: plan_execution.start_next_step(tx, plan_id, session))
    data: dict[str, Any] = {"status": nxt.outcome.value, "planId": nxt.plan.id, "planStatus": nxt.plan.status}
    if nxt.outcome is NextStepOutcome.STARTED:
        assert nxt.step is not None
        data["step"] = step_out(nxt.step)
        summary = (
            f"Started step {nxt.step.step_order} ({nxt.step.step_type}). Do its instructions, then call "
            "submit_step_result with its stepId (or request_user_review to ask a person first)."
        )
    elif nxt.outcome is NextStepOutcome.PLAN_COMPLETE:
        data["outputMediaType"] = nxt.output_media_type
        data["outputFormattingInstructions"] = nxt.output_formatting_instructions
        data["planFormattingNotes"] = nxt.plan.output_formatting_notes
        data["stepFormattingNotes"] = [
            {"stepId": s.id, "order": s.step_order, "notes": s.output_formatting_notes or ""}
            for s in nxt.step_formatting_notes
        ]
        summary = (
            "The plan is complete. Write the deliverable following the formatting notes, then call "
            "store_research_output."
        )
    elif nxt.outcome is NextStepOutcome.PLAN_FAILED:
        data["failureReason"] = nxt.plan.failure_reason
        summary = "The plan has failed; no step will start. Tell the user why (failureReason)."
    elif nxt.outcome is NextStepOutcome.AWAITING_REVIEW:
        summary = (
            "The plan awaits a person's review: call wait_for_decision with this planId to wait for the "
            "reviewer's submit_user_decision, then call get_next_step again."
        )
    else:
        data["inProgressCount"] = nxt.in_progress_count
        data["failedCount"] = nxt.failed_count
        summary = (
            f"No pending step: {nxt.in_progress_count} in progress (submit their results), "
            f"{nxt.failed_count} failed (retry_step, or fail_plan)."
        )
    return Answer(data, summary)


def get_next_step(v: Vocabulary) -> Tool:
    return Tool(
        "get_next_step",
        "Start the next step",
        "Start the plan's first pending step, or say why there is none. `status`: started (`step` is now "
        "in_progress: do it, then submit_step_result, or request_user_review to ask a person); "
        "plan_complete (write the deliverable as the formatting fields say, then store_research_output); "
        "plan_failed (stop; see failureReason); awaiting_review (a reviewer must call "
        "submit_user_decision: wait_for_decision waits); no_pending_steps (inProgressCount need "
        "submit_step_result, failedCount retry_step). A planning or stalled plan starts (or resumes) "
        "executing. Starts at most one step; concurrent calls never start the same step twice.",
        obj({"planId": v.id_arg("plan"), "sessionId": nullable(_session_id(v))}, ["planId"]),
        output(
            {
                "status": {"type": "string", "enum": [o.value for o in NextStepOutcome]},
                "planId": STR,
                "planStatus": PLAN_STATUS,
                "step": STEP_OUT,
                "failureReason": STR_OR_NULL,
                "inProgressCount": INT,
                "failedCount": INT,
                "outputMediaType": STR_OR_NULL,
                "outputFormattingInstructions": STR_OR_NULL,
                "planFormattingNotes": STR_OR_NULL,
                "stepFormattingNotes": {
                    "type": "array",
                    "items": output(
                        {"stepId": STR, "order": INT, "notes": STR}, ["stepId", "order", "notes"]
                    ),
                },
            },
            ["status", "planId", "planStatus"],
        ),
        Access.DRIVE,
        _get_next_step,
    )


async def _submit_step_result(call: Call) -> Answer:
    a = call.args
    result = StepResult(
        step_id=a["stepId"],
        result_summary=a["resultSummary"],
        result_data=a.get("resultData"),
        confidence=a.get("confidence"),
        step_execution_report=a.get("stepExecutionReport"),
        output_formatting_notes=a.get("outputFormattingNotes"),
    )
    done = await call.write(lambda tx: plan_execution.submit_step_result(tx, result))
    data = {
        **step_and_plan(done.plan, done.step),
        "branchFired": condition_out(done.fired) if done.fired else None,
        "skippedStepIds": [s.id for s in done.skipped],
    }
    fired = f" Branch {done.fired.action} fired." if done.fired else ""
    return Answer(
        data,
        f"Step {done.step.step_order} completed; plan is {done.plan.status}.{fired} "
        "Next: call get_next_step.",
    )


def submit_step_result(v: Vocabulary) -> Tool:
    return Tool(
        "submit_step_result",
        "Submit a step's result",
        "Complete an in_progress (or pending) step with its result, then apply its branching conditions "
        "(skip_to skips steps, fail fails the plan); the plan completes when every step is finished. "
        "Next: get_next_step. Refused for a step awaiting_input (a reviewer decides it) or a finished "
        "plan.",
        obj(
            {
                "stepId": v.id_arg("step"),
                "resultSummary": v.long_text("What the step found"),
                "resultData": nullable(
                    json_object(
                        "Structured result, a JSON object whose keys branching conditions read; "
                        f"{v.result_limit}."
                    )
                ),
                "confidence": nullable(number("Confidence in the result, in [0, 1].", minimum=0, maximum=1)),
                "stepExecutionReport": nullable(
                    text(f"How the step was done (sources, method); {v.result_limit}.", v.result_max)
                ),
                "outputFormattingNotes": nullable(
                    v.long_text("Replaces the step's formatting notes; omitted or null keeps them")
                ),
            },
            ["stepId", "resultSummary"],
        ),
        output(
            {
                **STEP_AND_PLAN_OUT["properties"],
                "branchFired": {"type": ["object", "null"]},
                "skippedStepIds": IDS,
            },
            [*STEP_AND_PLAN_OUT["required"], "skippedStepIds"],
        ),
        Access.DRIVE,
        _submit_step_result,
    )


def request_user_review(v: Vocabulary) -> Tool:
    return Tool(
        "request_user_review",
        "Ask a person to review a step",
        "Pause an in_progress step of an executing plan for a person: step awaiting_input, plan "
        "awaiting_review, until a reviewer calls submit_user_decision (approve, reject, modify with "
        "feedback, skip). Decides nothing itself.",
        obj(
            {
                "stepId": v.id_arg("step"),
                "summary": v.long_text("What the person should review"),
                "questions": nullable(
                    array(
                        v.long_text("A question for the reviewer, non-empty"), "Questions for the reviewer."
                    )
                ),
            },
            ["stepId", "summary"],
        ),
        STEP_AND_PLAN_OUT,
        Access.DRIVE,
        writes(
            lambda tx, a: plan_review.request_user_review(
                tx, a["stepId"], a["summary"], a.get("questions") or []
            ),
            _review_requested,
        ),
    )


def submit_user_decision(v: Vocabulary) -> Tool:
    return Tool(
        "submit_user_decision",
        "Decide on a step awaiting review",
        "A person decides a step awaiting_input: approve (completed, plan resumes), reject (failed, plan "
        "fails), modify (feedback appended to its instructions, back to in_progress for the agent), skip "
        "(skipped, plan resumes).",
        obj(
            {
                "stepId": v.id_arg("step"),
                "decision": enum(Decision, "The decision."),
                "feedback": nullable(v.long_text("Required for modify: appended to the step's instructions")),
            },
            ["stepId", "decision"],
        ),
        STEP_AND_PLAN_OUT,
        Access.DECIDE,
        writes(
            lambda tx, a: plan_review.submit_user_decision(
                tx, a["stepId"], Decision(a["decision"]), a.get("feedback")
            ),
            _decided,
        ),
    )


async def _modify_plan(call: Call) -> Answer:
    a = call.args
    mod = PlanModification(
        plan_id=a["planId"],
        action=ModifyAction(a["action"]),
        steps=[_new_step(s) for s in a.get("steps") or []],
        insert_after_order=a.get("insertAfterOrder"),
        step_id=a.get("stepId"),
        step_ids=list(a.get("stepIds") or []),
        instructions=a.get("instructions"),
        reason=a.get("reason"),
        rationale=a.get("rationale"),
    )
    done = await call.write(lambda tx: plan_modify.modify_plan(tx, mod))
    return Answer(
        {"planId": done.plan.id, "planStatus": done.plan.status, "affectedStepIds": done.affected_step_ids},
        f"{mod.action.value} done on plan {done.plan.id} ({len(done.affected_step_ids)} steps affected).",
    )


def modify_plan(v: Vocabulary) -> Tool:
    return Tool(
        "modify_plan",
        "Change a plan",
        "Change a planning or executing plan (not awaiting_review, stalled or finished). `action`: "
        "add_steps (steps, insertAfterOrder); remove_step (stepId, pending); reorder_steps (stepIds: all "
        "of the plan's, in the new order); update_step_instructions (stepId, instructions; any status); "
        "fail_step (stepId, reason; pending or in_progress). Each change is recorded with the optional "
        "rationale.",
        obj(
            {
                "planId": v.id_arg("plan"),
                "action": enum(ModifyAction, "What to change."),
                "steps": nullable(
                    array(_step_input(v), "add_steps: the new steps (at least 1).", maxItems=v.max_steps)
                ),
                "insertAfterOrder": nullable(
                    integer("add_steps: insert after this order (0 = first); default appends.", minimum=0)
                ),
                "stepId": nullable(v.id_arg("step")),
                "stepIds": nullable(
                    array(v.id_arg("step"), "reorder_steps: every step id in the new order.")
                ),
                "instructions": nullable(v.long_text("update_step_instructions: the new instructions")),
                "reason": nullable(v.long_text("fail_step: why the step failed")),
                "rationale": nullable(v.long_text("Why, recorded in the event log")),
            },
            ["planId", "action"],
        ),
        output(
            {"planId": STR, "planStatus": PLAN_STATUS, "affectedStepIds": IDS},
            ["planId", "planStatus", "affectedStepIds"],
        ),
        Access.DRIVE,
        _modify_plan,
        destructive=True,
    )


async def _get_plan_status(call: Call) -> Answer:
    plan_id, per_call = call.args["planId"], call.args.get("stallThresholdSeconds")
    if per_call is not None and (why := stall_threshold_problem(per_call)):
        raise invalid(why, ["stallThresholdSeconds"])
    settings_threshold = call.runtime.settings.stall_threshold_seconds
    now = call.runtime.clock.now()
    report = await call.read(
        lambda s: plan_reads.plan_status(
            s, call.principal.tenant_id, plan_id, now, settings_threshold, per_call
        )
    )
    data = {
        "planId": report.plan.id,
        "status": report.plan.status,
        "derivedStatus": report.derived_status.value,
        "progressPercent": report.progress_percent,
        "stalled": report.stalled,
        "stalledStepIds": report.stalled_step_ids,
        "stallThresholdSeconds": report.threshold.total_seconds(),
        "totalSteps": len(report.steps),
        "counts": {state.value: n for state, n in report.counts.items()},
    }
    stalled = f", {len(report.stalled_step_ids)} step(s) stalled" if report.stalled else ""
    return Answer(
        data,
        f"Plan {report.plan.status}: {report.progress_percent:g}% of {len(report.steps)} steps{stalled}.",
    )


def get_plan_status(v: Vocabulary) -> Tool:
    return Tool(
        "get_plan_status",
        "Read a plan's progress",
        "A plan's progress: status stored and as its steps imply (derivedStatus), percent of steps "
        "finished, counts per state, and steps in_progress past the stall threshold (the argument's, "
        "else the plan's, else the server's). Changes nothing.",
        obj(
            {
                "planId": v.id_arg("plan"),
                "stallThresholdSeconds": nullable(
                    number(
                        f"Judge stalls by this many seconds, in (0, {STALL_MAX}]; changes nothing stored.",
                        exclusiveMinimum=0,
                        maximum=STALL_MAX,
                    )
                ),
            },
            ["planId"],
        ),
        output(
            {
                "planId": STR,
                "status": PLAN_STATUS,
                "derivedStatus": PLAN_STATUS,
                "progressPercent": {"type": "number"},
                "stalled": {"type": "boolean"},
                "stalledStepIds": IDS,
                "stallThresholdSeconds": {"type": "number"},
                "totalSteps": INT,
                "counts": output({s.value: INT for s in StepStatus}, [s.value for s in StepStatus]),
            },
            ["planId", "status", "derivedStatus", "progressPercent", "stalled", "totalSteps", "counts"],
        ),
        Access.READ,
        _get_plan_status,
    )


async def _get_research_context(call: Call) -> Answer:
    plan_id, session = call.args["planId"], call.args.get("sessionId")
    check_session_id(session)
    found = await call.read(lambda s: plan_reads.research_context(s, call.principal.tenant_id, plan_id))
    done = len(found.prior_results)
    # A read records nothing: get_next_step with the new session records the resume.
    resuming = bool(session) and session != found.plan.session_id
    follow = " with this sessionId: that records this session resuming the plan" if resuming else ""
    return Answer(
        {"plan": plan_out(found.plan), "steps": [step_full(s) for s in found.steps], "resuming": resuming},
        f"Plan {found.plan.status}, {done} of {len(found.steps)} steps completed. To continue, call "
        f"get_next_step{follow}.",
    )


def get_research_context(v: Vocabulary) -> Tool:
    return Tool(
        "get_research_context",
        "Read a plan to resume it",
        "The whole plan, every step with its results, to resume from a new session; `resuming`: "
        "sessionId differs from the plan's last. Changes nothing: get_next_step with your sessionId "
        "continues and records the resume.",
        obj(
            {"planId": v.id_arg("plan"), "sessionId": nullable(v.short_text("Your agent session"))},
            ["planId"],
        ),
        output(
            {"plan": PLAN_OUT, "steps": {"type": "array", "items": STEP_FULL_OUT}, "resuming": BOOL},
            ["plan", "steps", "resuming"],
        ),
        Access.READ,
        _get_research_context,
    )


def get_step_context(v: Vocabulary) -> Tool:
    return Tool(
        "get_step_context",
        "Read a step with the results before it",
        "One step with its plan and the completed steps before it (their results), to do the step well. "
        "Changes nothing.",
        obj({"stepId": v.id_arg("step")}, ["stepId"]),
        output(
            {
                "plan": PLAN_OUT,
                "step": STEP_FULL_OUT,
                "priorSteps": {"type": "array", "items": STEP_FULL_OUT},
            },
            ["plan", "step", "priorSteps"],
        ),
        Access.READ,
        reads(lambda s, tenant, a: plan_reads.step_context(s, tenant, a["stepId"]), _step_context),
    )


def store_research_output(v: Vocabulary) -> Tool:
    return Tool(
        "store_research_output",
        "Store the final deliverable",
        "Store a plan's final deliverable (after get_next_step answered plan_complete; a plan may have "
        "several). Returns the stored output's id.",
        obj(
            {
                "planId": v.id_arg("plan"),
                "content": text(f"The deliverable; {v.result_limit}.", v.result_max),
                "mediaType": v.short_text("How the content is written, e.g. text/markdown"),
                "title": v.long_text("Its title; optional"),
            },
            ["planId", "content", "mediaType"],
        ),
        OUTPUT.schema,
        Access.DRIVE,
        writes(
            lambda tx, a: skills.store_research_output(
                tx, a["planId"], a["content"], a["mediaType"], a.get("title") or ""
            ),
            _stored,
        ),
    )


def start_skill_execution(v: Vocabulary) -> Tool:
    return Tool(
        "start_skill_execution",
        "Record that a skill started",
        "Record that this session started a skill, with how the final output should look. Call it "
        "before create_research_plan with the same sessionId: the plan links to it, and get_next_step's "
        "plan_complete answer carries its output settings.",
        obj(
            {
                "sessionId": v.short_text("The agent session"),
                "skillName": v.short_text("The skill"),
                "outputMediaType": nullable(v.short_text("The media type the final output should have")),
                "outputFormattingInstructions": nullable(
                    v.long_text("How the final output should be formatted")
                ),
            },
            ["sessionId", "skillName"],
        ),
        SKILL_OUT,
        Access.DRIVE,
        writes(
            lambda tx, a: skills.start_skill_execution(
                tx,
                a["sessionId"],
                a["skillName"],
                a.get("outputMediaType"),
                a.get("outputFormattingInstructions"),
            ),
            _skill_started,
        ),
    )


def complete_skill_execution(v: Vocabulary) -> Tool:
    return Tool(
        "complete_skill_execution",
        "Record that a skill finished",
        "Mark a started skill execution completed, with an optional summary of what it produced.",
        obj(
            {
                "skillExecutionId": v.id_arg("skill execution"),
                "resultSummary": nullable(v.long_text("What it produced")),
            },
            ["skillExecutionId"],
        ),
        SKILL_OUT,
        Access.DRIVE,
        writes(
            lambda tx, a: skills.complete_skill_execution(tx, a["skillExecutionId"], a.get("resultSummary")),
            _skill_completed,
        ),
    )


def retry_step(v: Vocabulary) -> Tool:
    return Tool(
        "retry_step",
        "Retry a failed step",
        "Put a failed step back to pending, in a plan that is not finished; get_next_step then starts "
        "it again.",
        obj({"stepId": v.id_arg("step")}, ["stepId"]),
        STEP_AND_PLAN_OUT,
        Access.DRIVE,
        writes(lambda tx, a: plan_modify.retry_step(tx, a["stepId"]), _retried),
    )


def fail_plan(v: Vocabulary) -> Tool:
    return Tool(
        "fail_plan",
        "Fail a plan",
        "Fail a plan that is not finished, with a reason; its unfinished steps fail with it. This cannot "
        "be undone.",
        obj({"planId": v.id_arg("plan"), "reason": v.long_text("Why")}, ["planId", "reason"]),
        output(
            {"planId": STR, "planStatus": PLAN_STATUS, "failureReason": STR_OR_NULL},
            ["planId", "planStatus"],
        ),
        Access.DRIVE,
        writes(lambda tx, a: plan_modify.fail_plan(tx, a["planId"], a["reason"]), _failed),
        destructive=True,
    )


# The toolset, in the order tools/list shows it.
PLAN_TOOLS: tuple[ToolSpec, ...] = (
    create_research_plan,
    get_next_step,
    submit_step_result,
    request_user_review,
    submit_user_decision,
    modify_plan,
    get_plan_status,
    get_research_context,
    get_step_context,
    store_research_output,
    start_skill_execution,
    complete_skill_execution,
    retry_step,
    fail_plan,
)


def plan_tools(settings: Settings) -> list[Tool]:
    """The tools, their schemas stating this server's limits."""
    return table(Toolset.PLANS, PLAN_TOOLS, Vocabulary.of(settings))


def _new_step(s: dict[str, Any]) -> NewStep:
    return NewStep(
        StepType(s["stepType"]).value, s["instructions"], s.get("title") or "", s.get("outputFormattingNotes")
    )
