"""Seed 002's workflow worker tools: define, start, read, and claim / report steps and compensations.

Each tool is one service call, the same GraphQL's workflow mutation makes (server/api/workflows/).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from ..config import Settings
from ..db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ..limits import MAX_BATCH_STEPS
from ..machines.retry import ErrorCategory
from ..machines.workflow import CompensationStatus, WorkflowOutcome, WorkflowStatus, WorkflowStepStatus
from ..services.workflows import claims, compensation, control, create, reports
from ..services.workflows import queries as workflow_queries
from ..services.workflows.claims import Claim, ClaimOutcome, ClaimWait
from ..services.workflows.compensation import CompensationReport
from ..services.workflows.create import CreatedWorkflow
from ..services.workflows.reports import StepReport
from .arguments import (
    ANY,
    INT,
    STR,
    STR_OR_NULL,
    Schema,
    Shape,
    Vocabulary,
    enum,
    integer,
    items,
    nullable,
    obj,
    or_null,
    output,
    states,
)
from .tools import Access, Answer, Args, Tool, ToolSpec, reads, table, writes
from .toolsets import Toolset

WORKFLOW = Shape(
    {
        "workflowId": STR,
        "name": STR,
        "status": states(WorkflowStatus),
        "outcome": or_null(states(WorkflowOutcome)),
        "failureReason": STR_OR_NULL,
        "createdAt": STR,
        "startedAt": STR_OR_NULL,
        "completedAt": STR_OR_NULL,
    },
    ["workflowId", "name", "status"],
    ident="workflowId",
)
STEP = Shape(
    {
        "stepId": STR,
        "workflowId": STR,
        "name": STR,
        "status": states(WorkflowStepStatus),
        "attempt": INT,
        "agent": STR_OR_NULL,
        "claimedBy": STR_OR_NULL,
        "dependsOn": items(STR),
        "blockedOn": STR_OR_NULL,
        "lastError": STR_OR_NULL,
        "lastErrorCategory": STR_OR_NULL,
        "output": ANY,
        "timeoutAt": STR_OR_NULL,
    },
    ["stepId", "workflowId", "name", "status", "attempt"],
    ident="stepId",
)
COMPENSATION = Shape(
    {
        "compensationId": STR,
        "workflowId": STR,
        "stepId": STR,
        "stepName": STR,
        "position": INT,
        "action": STR,
        "agent": STR,
        "status": states(CompensationStatus),
        "error": STR_OR_NULL,
    },
    ["compensationId", "workflowId", "stepName", "action", "agent", "status"],
    ident="compensationId",
)
WORKFLOW_OUT, STEP_OUT, COMPENSATION_OUT = WORKFLOW.schema, STEP.schema, COMPENSATION.schema
workflow_out, step_out, compensation_out = WORKFLOW.of, STEP.of, COMPENSATION.of


def _step_report(done: StepReport) -> Answer:
    step, wf = done.step, done.workflow
    return Answer(
        {"workflow": workflow_out(wf), "step": step_out(step)},
        f"Step {step.name} is {step.status}; workflow {wf.name} is {wf.status}. Next: claim_workflow_step.",
    )


def _compensation_report(done: CompensationReport) -> Answer:
    comp, wf = done.compensation, done.workflow
    again = " (already reported: nothing changed)" if done.duplicate else ""
    return Answer(
        {
            "workflow": workflow_out(wf),
            "compensation": compensation_out(comp),
            "alreadyReported": done.duplicate,
        },
        f"Compensation of {comp.step_name} is {comp.status}{again}; workflow {wf.name} is {wf.status}.",
    )


def _claimed(batch: list[Claim]) -> Answer:
    """One claim's answer (``claims.claim_many``'s list: steps, or one compensation, or one NONE)."""
    claim = batch[0]
    data: dict[str, Any] = {
        "outcome": claim.outcome.value,
        "workflow": workflow_out(claim.workflow) if claim.workflow else None,
    }
    if claim.step is not None:
        return _claimed_steps(data, [c.step for c in batch if c.step is not None])
    if claim.compensation is not None:
        return _claimed_compensation(data, claim.compensation)
    return _nothing_claimed(data, claim)


def _claimed_steps(data: dict[str, Any], steps: list[WorkflowStep]) -> Answer:
    data["step"] = step_out(steps[0])
    data["steps"] = [step_out(s) for s in steps]
    named = ", ".join(f"{s.name} (attempt {s.attempt})" for s in steps)
    return Answer(
        data,
        f"Claimed step{'s' if len(steps) > 1 else ''} {named}. Do it, call heartbeat_workflow_step "
        "while it takes long, then complete_workflow_step or fail_workflow_step.",
    )


def _claimed_compensation(data: dict[str, Any], comp: WorkflowCompensation) -> Answer:
    data["compensation"] = compensation_out(comp)
    return Answer(
        data,
        f"Claimed the compensation of {comp.step_name}: {comp.action}. Undo "
        "it, then complete_workflow_compensation or fail_workflow_compensation.",
    )


def _nothing_claimed(data: dict[str, Any], claim: Claim) -> Answer:
    data["reason"] = claim.reason.value if claim.reason else None
    data["retryAt"] = claim.retry_at.isoformat() if claim.retry_at else None
    when = f"after {data['retryAt']}" if claim.retry_at else "when other work has moved on"
    return Answer(data, f"Nothing to claim for this agent now ({data['reason']}); call again {when}.")


def _created(done: CreatedWorkflow) -> Answer:
    wf = done.workflow
    warnings = [{"code": w.code, "message": w.message, "field": w.field} for w in done.warnings]
    return Answer(
        {"workflow": workflow_out(wf), "steps": [step_out(s) for s in done.steps], "warnings": warnings},
        f"Created workflow {wf.id} ({wf.status}) with {len(done.steps)} steps"
        f"{f' and {len(warnings)} warning(s)' if warnings else ''}. Next: start_workflow.",
    )


def _started(wf: Workflow) -> Answer:
    return Answer(
        {"workflow": workflow_out(wf)},
        f"Workflow {wf.name} is {wf.status}. Workers take its steps with claim_workflow_step.",
    )


async def _get(session: AsyncSession, tenant: str, a: Args) -> tuple[Workflow, list[Any], list[Any]]:
    wf = await workflow_queries.get_workflow(session, tenant, a["workflowId"], "workflowId")
    [steps] = await workflow_queries.steps_by_workflow(session, [wf.id])
    [comps] = await workflow_queries.compensations_by_workflow(session, [wf.id])
    return wf, steps, comps


def _shown(found: tuple[Workflow, list[WorkflowStep], list[WorkflowCompensation]]) -> Answer:
    wf, steps, comps = found
    done = sum(1 for s in steps if s.status == WorkflowStepStatus.COMPLETED)
    return Answer(
        {
            "workflow": workflow_out(wf),
            "steps": [step_out(s) for s in steps],
            "compensations": [compensation_out(c) for c in comps],
        },
        f"Workflow {wf.name} is {wf.status}: {done} of {len(steps)} steps completed.",
    )


# -- the arguments and answers several tools share --


def _agent(v: Vocabulary) -> Schema:
    return v.short_text("Your agent name, as claimed")


def _attempt() -> Schema:
    return nullable(integer("The attempt you claimed (step.attempt); an older one is CONFLICT.", minimum=0))


STEP_REPORT = output({"workflow": WORKFLOW_OUT, "step": STEP_OUT}, ["workflow", "step"])
COMPENSATION_REPORT = output(
    {"workflow": WORKFLOW_OUT, "compensation": COMPENSATION_OUT, "alreadyReported": {"type": "boolean"}},
    ["workflow", "compensation", "alreadyReported"],
)
THE_WORKFLOW: Schema = output({"workflow": WORKFLOW_OUT}, ["workflow"])


# -- the tools, one function each --


def create_workflow_from_yaml(v: Vocabulary) -> Tool:
    return Tool(
        "create_workflow_from_yaml",
        "Define a workflow from YAML",
        "Define a workflow (idle) from seed 002's YAML: spec.steps or top-level steps (name, dependsOn, "
        "agent, timeout, retryPolicy, onFailure: abort, skip or compensate, approval) and "
        "spec.compensation (how to undo steps, by which agent). `name` overrides metadata.name. Warnings "
        "are advice; it was accepted. Next: start_workflow.",
        obj(
            {
                "yaml": v.large_text("The definition as seed 002 writes it"),
                "name": nullable(v.short_text("The workflow's name")),
            },
            ["yaml"],
        ),
        output(
            {
                "workflow": WORKFLOW_OUT,
                "steps": items(STEP_OUT),
                "warnings": items(output({"code": STR, "message": STR, "field": items(STR)})),
            },
            ["workflow", "steps", "warnings"],
        ),
        Access.DRIVE,
        writes(lambda tx, a: create.create_workflow_from_yaml(tx, a["yaml"], a.get("name")), _created),
    )


def start_workflow(v: Vocabulary) -> Tool:
    return Tool(
        "start_workflow",
        "Start a workflow",
        "idle -> queued, and executing at once if one of the tenant's slots is free. Then workers claim "
        "its steps with claim_workflow_step.",
        obj({"workflowId": v.id_arg("workflow")}, ["workflowId"]),
        THE_WORKFLOW,
        Access.DRIVE,
        writes(lambda tx, a: create.start_workflow(tx, a["workflowId"]), _started),
    )


def get_workflow(v: Vocabulary) -> Tool:
    return Tool(
        "get_workflow",
        "Read a workflow",
        "A workflow with every step (status, attempt, who holds it, output, last error) and its "
        "compensations. Changes nothing.",
        obj({"workflowId": v.id_arg("workflow")}, ["workflowId"]),
        output(
            {"workflow": WORKFLOW_OUT, "steps": items(STEP_OUT), "compensations": items(COMPENSATION_OUT)},
            ["workflow", "steps", "compensations"],
        ),
        Access.READ,
        reads(_get, _shown),
    )


def claim_workflow_step(v: Vocabulary) -> Tool:
    return Tool(
        "claim_workflow_step",
        "Claim work",
        "Take a runnable step of an executing workflow (or, while it compensates, your next "
        "compensation). `outcome`: step (`step` is now running and yours: do it, then "
        "complete_workflow_step or fail_workflow_step with its stepId and attempt); compensation (undo "
        "`compensation.action`, then complete_workflow_compensation or fail_workflow_compensation); none "
        "(`reason` says why; call again after `retryAt`, else later). Never hands out a step naming "
        "another agent, nor the same work twice. With maxSteps, up to that many steps (each its own "
        "attempt) in `steps`, the first also in `step`; a compensation comes alone.",
        obj(
            {
                "agent": _agent(v),
                "workflowId": nullable(
                    v.id_arg("workflow") | {"description": "Only from this workflow; omitted: from any."}
                ),
                "maxSteps": nullable(
                    integer(f"The most steps to hand out, 1 to {MAX_BATCH_STEPS}; default 1.")
                ),
            },
            ["agent"],
        ),
        output(
            {
                "outcome": states(ClaimOutcome),
                "workflow": or_null(WORKFLOW_OUT),
                "step": STEP_OUT,
                "steps": items(STEP_OUT),
                "compensation": COMPENSATION_OUT,
                "reason": or_null(states(ClaimWait)),
                "retryAt": STR_OR_NULL,
            },
            ["outcome"],
        ),
        Access.DRIVE,
        writes(
            lambda tx, a: claims.claim_many(
                tx, a["agent"], a.get("workflowId"), 1 if a.get("maxSteps") is None else a["maxSteps"]
            ),
            _claimed,
        ),
    )


def heartbeat_workflow_step(v: Vocabulary) -> Tool:
    return Tool(
        "heartbeat_workflow_step",
        "Prove a claimed step is alive",
        "Proof of life for your running step (it does not extend its timeout). A CONFLICT refusal says "
        "the step is no longer yours: stop working on it.",
        obj(
            {"stepId": v.id_arg("workflow step"), "agent": _agent(v), "attempt": _attempt()},
            ["stepId", "agent"],
        ),
        STEP_REPORT,
        Access.DRIVE,
        writes(
            lambda tx, a: reports.heartbeat_workflow_step(tx, a["stepId"], a["agent"], a.get("attempt")),
            _step_report,
        ),
        idempotent=True,
    )


def complete_workflow_step(v: Vocabulary) -> Tool:
    return Tool(
        "complete_workflow_step",
        "Report a step done",
        "Report your running step completed, with what it produced; the steps depending on it may "
        "run. Next: claim_workflow_step.",
        obj(
            {
                "stepId": v.id_arg("workflow step"),
                "agent": _agent(v),
                "output": nullable(v.json_value("What the step produced")),
                "attempt": _attempt(),
            },
            ["stepId", "agent"],
        ),
        STEP_REPORT,
        Access.DRIVE,
        writes(
            lambda tx, a: reports.complete_workflow_step(
                tx, a["stepId"], a["agent"], a.get("output"), a.get("attempt")
            ),
            _step_report,
        ),
    )


def fail_workflow_step(v: Vocabulary) -> Tool:
    return Tool(
        "fail_workflow_step",
        "Report a step failed",
        "Report your running step failed. By category: a retry after its backoff when its retryPolicy "
        "covers it, a reviewer's escalation (governance: the workflow blocks), or the step's onFailure "
        "(abort fails the workflow, skip goes on without it, compensate undoes completed steps).",
        obj(
            {
                "stepId": v.id_arg("workflow step"),
                "agent": _agent(v),
                "category": enum(ErrorCategory, "What kind of failure it is."),
                "message": v.long_text("What went wrong"),
                "attempt": _attempt(),
            },
            ["stepId", "agent", "category", "message"],
        ),
        STEP_REPORT,
        Access.DRIVE,
        writes(
            lambda tx, a: reports.fail_workflow_step(
                tx, a["stepId"], a["agent"], ErrorCategory(a["category"]), a["message"], a.get("attempt")
            ),
            _step_report,
        ),
    )


def complete_workflow_compensation(v: Vocabulary) -> Tool:
    return Tool(
        "complete_workflow_compensation",
        "Report a compensation done",
        "Report your running compensation completed (reporting it again changes nothing); after the "
        "last one the workflow is completed, rolled back.",
        obj({"compensationId": v.id_arg("compensation"), "agent": _agent(v)}, ["compensationId", "agent"]),
        COMPENSATION_REPORT,
        Access.DRIVE,
        writes(
            lambda tx, a: compensation.complete_compensation(tx, a["compensationId"], a["agent"]),
            _compensation_report,
        ),
        idempotent=True,
    )


def fail_workflow_compensation(v: Vocabulary) -> Tool:
    return Tool(
        "fail_workflow_compensation",
        "Report a compensation failed",
        "Report your compensation failed: the workflow ends failed, partially rolled back, and no "
        "further compensation runs (reporting it again changes nothing).",
        obj(
            {
                "compensationId": v.id_arg("compensation"),
                "agent": _agent(v),
                "message": v.long_text("What went wrong"),
            },
            ["compensationId", "agent", "message"],
        ),
        COMPENSATION_REPORT,
        Access.DRIVE,
        writes(
            lambda tx, a: compensation.fail_compensation(tx, a["compensationId"], a["agent"], a["message"]),
            _compensation_report,
        ),
        idempotent=True,
        destructive=True,
    )


# A person's controls of a whole workflow: listed with the workflows set and with the admin set of
# every person's overrides of work under way.
PERSON_OVERRIDE = frozenset({Toolset.WORKFLOWS, Toolset.ADMIN})


def _cancelled(wf: Workflow) -> Answer:
    return Answer(
        {"workflow": workflow_out(wf)},
        f"Workflow {wf.name} is {wf.status}. When it has ended, rerun_workflow runs it again.",
    )


def _rerun(done: CreatedWorkflow) -> Answer:
    wf = done.workflow
    return Answer(
        {"workflow": workflow_out(wf), "rerunOfId": wf.rerun_of_id},
        f"Workflow {wf.id} reruns {wf.rerun_of_id}: {wf.status}. Workers take its steps with "
        "claim_workflow_step.",
    )


def cancel_workflow(v: Vocabulary) -> Tool:
    return Tool(
        "cancel_workflow",
        "Cancel a workflow",
        "A person stops an executing or blocked workflow: failed (running steps fail), or compensating "
        "under a compensate failurePolicy, as on timeout; the reason goes into failureReason and the "
        "event. Refused when idle, queued or ended (INVALID_TRANSITION). Undoes completed steps only by "
        "compensation. Then: rerun_workflow.",
        obj(
            {"workflowId": v.id_arg("workflow"), "reason": v.long_text("Why; kept in failureReason")},
            ["workflowId", "reason"],
        ),
        THE_WORKFLOW,
        Access.DECIDE,
        writes(lambda tx, a: control.cancel_workflow(tx, a["workflowId"], a["reason"]), _cancelled),
        destructive=True,
        toolset=PERSON_OVERRIDE,
    )


def rerun_workflow(v: Vocabulary) -> Tool:
    return Tool(
        "rerun_workflow",
        "Run a workflow again",
        "Run an ended (completed or failed) workflow again as a new one from the same definition, "
        "started at once (queued, or executing if a slot is free); rerunOfId names the old one, which is "
        "unchanged. Refused while it runs (INVALID_TRANSITION: cancel_workflow first). Then workers "
        "claim_workflow_step.",
        obj({"workflowId": v.id_arg("workflow")}, ["workflowId"]),
        output({"workflow": WORKFLOW_OUT, "rerunOfId": STR}, ["workflow", "rerunOfId"]),
        Access.DECIDE,
        writes(lambda tx, a: control.rerun_workflow(tx, a["workflowId"]), _rerun),
        toolset=PERSON_OVERRIDE,
    )


# The toolset, in the order tools/list shows it.
WORKFLOW_TOOLS: tuple[ToolSpec, ...] = (
    create_workflow_from_yaml,
    start_workflow,
    get_workflow,
    claim_workflow_step,
    heartbeat_workflow_step,
    complete_workflow_step,
    fail_workflow_step,
    complete_workflow_compensation,
    fail_workflow_compensation,
    cancel_workflow,
    rerun_workflow,
)


def workflow_tools(settings: Settings) -> list[Tool]:
    return table(Toolset.WORKFLOWS, WORKFLOW_TOOLS, Vocabulary.of(settings))
