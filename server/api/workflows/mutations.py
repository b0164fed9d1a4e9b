"""Workflow mutations: parse input, call one service, map the result."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.scalars import JSON
from strawberry.types import Info

from ...errors import ErrorCode, ServiceError
from ...limits import MAX_BATCH_STEPS, PROGRESS_BYTES
from ...machines.retry import ErrorCategory
from ...services.runtime import Tx
from ...services.workflows import claims as workflow_claims
from ...services.workflows import compensation as workflow_compensation
from ...services.workflows import control as workflow_control
from ...services.workflows import create as workflow_create
from ...services.workflows import reports as workflow_reports
from ...services.workflows import review as workflow_review
from ...services.workflows.claims import ClaimOutcome, ClaimWait
from ...services.workflows.compensation import CompensationReport
from ...services.workflows.create import CreatedWorkflow
from ...services.workflows.reports import StepReport
from ..context import Context
from ..descriptions import NAME_LIMIT, RESULT_LIMIT, TEXT_LIMIT, user_errors
from ..errors import UserError, run_mutation
from ..permissions import CanDecide, CanDrive
from .inputs import CreateWorkflowInput
from .types import WorkflowCompensationType, WorkflowStepType, WorkflowType

I = Info[Context, Any]  # noqa: E741
DRIVE: list[type[BasePermission]] = [CanDrive]
DECIDE: list[type[BasePermission]] = [CanDecide]
A = strawberry.argument
StepId = Annotated[strawberry.ID, A(description="The workflow step.")]
Agent = Annotated[str, A(description=f"Your agent name, the one you claimed the work with; {NAME_LIMIT}.")]
Attempt = Annotated[
    int | None,
    A(description="The attempt you claimed (step.attempt); a report for an older attempt is CONFLICT."),
]
CompensationId = Annotated[strawberry.ID, A(description="The compensation.")]
WORKFLOW_NOW = "The workflow, as it is now."


@strawberry.type(description="Advice about a valid definition (e.g. more than 10 steps).")
class DefinitionWarning:
    code: str = strawberry.field(description="Stable code, e.g. TOO_MANY_STEPS.")
    message: str = strawberry.field(description="What to consider, for a person.")
    field: list[str] = strawberry.field(description="Path of the input field it is about.")


@strawberry.type(description="What createWorkflow and createWorkflowFromYaml made.")
class CreateWorkflowPayload:
    workflow: WorkflowType | None = strawberry.field(default=None, description="The new workflow (IDLE).")
    warnings: list[DefinitionWarning] = strawberry.field(
        default_factory=list, description="Advice about the definition; it was accepted anyway."
    )
    user_errors: list[UserError] = user_errors()

    @staticmethod
    def of(created: CreatedWorkflow | None, errors: list[UserError]) -> CreateWorkflowPayload:
        if created is None:
            return CreateWorkflowPayload(user_errors=errors)
        warnings = [
            DefinitionWarning(code=w.code, message=w.message, field=w.field) for w in created.warnings
        ]
        return CreateWorkflowPayload(workflow=WorkflowType.from_row(created.workflow), warnings=warnings)


@strawberry.type(description="A workflow after a workflow mutation.")
class WorkflowPayload:
    workflow: WorkflowType | None = strawberry.field(
        default=None, description=WORKFLOW_NOW + " For rerunWorkflow: the new workflow."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What a claim handed out; `outcome` says which of step and compensation is set.")
class ClaimWorkflowStepPayload:
    outcome: ClaimOutcome | None = strawberry.field(
        default=None, description="What was handed out; null only with userErrors."
    )
    workflow: WorkflowType | None = strawberry.field(
        default=None, description="The workflow of what was handed out; for NONE, the one asked for (if any)."
    )
    step: WorkflowStepType | None = strawberry.field(
        default=None, description="STEP: the step, now RUNNING and held by you."
    )
    compensation: WorkflowCompensationType | None = strawberry.field(
        default=None, description="COMPENSATION: the compensation, now RUNNING and held by you."
    )
    reason: ClaimWait | None = strawberry.field(
        default=None, description="NONE: why nothing was handed out; null otherwise."
    )
    retry_at: datetime | None = strawberry.field(
        default=None,
        description="NONE: the earliest moment something may become claimable for you (a back-off's "
        "end, UTC); null when it waits on other work (a step finishing, a reviewer, a slot): subscribe "
        "to workAvailable instead.",
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(
    description="What claimWorkflowSteps handed out: steps (each RUNNING and held by you, with its own "
    "attempt), or one compensation, or nothing and why."
)
class ClaimWorkflowStepsPayload:
    outcome: ClaimOutcome | None = strawberry.field(
        default=None, description="STEP when `steps` is not empty; null only with userErrors."
    )
    steps: list[WorkflowStepType] = strawberry.field(
        default_factory=list,
        description="STEP: the steps, in the order handed out (oldest started workflow first, then "
        "definition order); report each with its own `attempt`.",
    )
    compensation: WorkflowCompensationType | None = strawberry.field(
        default=None,
        description="COMPENSATION: the compensation, now RUNNING and held by you (one at a time).",
    )
    reason: ClaimWait | None = strawberry.field(
        default=None, description="NONE: why nothing was handed out; null otherwise."
    )
    retry_at: datetime | None = strawberry.field(
        default=None, description="NONE: as claimWorkflowStep's retryAt."
    )
    completed: list[WorkflowStepPayload] = strawberry.field(
        default_factory=list,
        description="One per item of the `completed` argument, in the order given, as "
        "completeWorkflowSteps' results: each with its own userErrors; they stand even when the claim "
        "is refused.",
    )
    user_errors: list[UserError] = user_errors()

    @staticmethod
    def of(
        claims: list[workflow_claims.Claim] | None,
        errors: list[UserError],
        completed: list[WorkflowStepPayload] | None = None,
    ) -> ClaimWorkflowStepsPayload:
        completed = completed or []
        if claims is None:
            return ClaimWorkflowStepsPayload(user_errors=errors, completed=completed)
        first = claims[0]
        return ClaimWorkflowStepsPayload(
            completed=completed,
            outcome=first.outcome,
            steps=[WorkflowStepType.from_row(c.step) for c in claims if c.step is not None],
            compensation=WorkflowCompensationType.from_row(first.compensation)
            if first.compensation
            else None,
            reason=first.reason,
            retry_at=first.retry_at,
        )


@strawberry.type(description="A step and its workflow after a step mutation.")
class WorkflowStepPayload:
    workflow: WorkflowType | None = strawberry.field(default=None, description=WORKFLOW_NOW)
    step: WorkflowStepType | None = strawberry.field(default=None, description="The step, as it is now.")
    user_errors: list[UserError] = user_errors()

    @staticmethod
    def of(report: StepReport | None, errors: list[UserError]) -> WorkflowStepPayload:
        if report is None:
            return WorkflowStepPayload(user_errors=errors)
        return WorkflowStepPayload(
            workflow=WorkflowType.from_row(report.workflow), step=WorkflowStepType.from_row(report.step)
        )


@strawberry.input(description="One step's completion in completeWorkflowSteps.")
class StepCompletionInput:
    step_id: strawberry.ID = strawberry.field(description="Your RUNNING step.")
    attempt: int | None = strawberry.field(
        default=None,
        description="The attempt you claimed (step.attempt); a report for an older attempt is CONFLICT.",
    )
    output: JSON | None = strawberry.field(default=None, description=f"What it produced; {RESULT_LIMIT}.")


def _complete(
    items: list[workflow_reports.Completion], agent: str, tx: Tx
) -> Awaitable[list[StepReport | ServiceError]]:
    return workflow_reports.complete_workflow_steps(tx, agent, items)


def _complete_then_claim(
    items: list[workflow_reports.Completion], agent: str, wid: str | None, max_steps: int, tx: Tx
) -> Awaitable[tuple[list[StepReport | ServiceError], list[workflow_claims.Claim] | None]]:
    return workflow_claims.complete_then_claim(tx, agent, items, wid, max_steps)


def _completions(given: list[StepCompletionInput]) -> list[workflow_reports.Completion]:
    return [workflow_reports.Completion(str(d.step_id), d.output, d.attempt) for d in given]


def _completion_results(
    done: list[StepReport | ServiceError] | None, errors: list[UserError], field: str, first: int
) -> list[WorkflowStepPayload]:
    """One payload per item the service took (``done``; None: one item refused as a whole with
    ``errors``), numbered from ``first`` in ``field``."""
    results: list[WorkflowStepPayload] = []
    for outcome in done if done is not None else [None]:
        if isinstance(outcome, ServiceError):
            problems = [UserError.from_problem(p) for p in outcome.problems]
        else:
            problems = errors if outcome is None else []
        at = [field, str(first + len(results))]
        report = outcome if isinstance(outcome, StepReport) else None
        results.append(WorkflowStepPayload.of(report, [replace(e, field=[*at, *e.field]) for e in problems]))
    return results


async def _complete_all(
    info: I, agent: str, items: list[workflow_reports.Completion], field: str, first: int = 0
) -> list[WorkflowStepPayload]:
    """completeWorkflowSteps' work: one transaction per workflow's run of items."""
    results: list[WorkflowStepPayload] = []
    while len(results) < len(items):
        # The service stops at another workflow's step: the next transaction takes it.
        done, errors = await run_mutation(info, partial(_complete, items[len(results) :], agent))
        assert done != [], "the service takes at least one item"  # else this would never end
        results += _completion_results(done, errors, field, first + len(results))
    return results


@strawberry.type(description="What completeWorkflowSteps did with each completion, in the order given.")
class CompleteWorkflowStepsPayload:
    results: list[WorkflowStepPayload] = strawberry.field(
        default_factory=list,
        description="One per completion, in the order given, each with its own userErrors: a refused "
        "one (CONFLICT: the step is no longer yours) leaves the others done.",
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A compensation and its workflow after a compensation report.")
class WorkflowCompensationPayload:
    workflow: WorkflowType | None = strawberry.field(default=None, description=WORKFLOW_NOW)
    compensation: WorkflowCompensationType | None = strawberry.field(
        default=None, description="The compensation, as it is now."
    )
    already_reported: bool | None = strawberry.field(
        default=None, description="True when this result had been reported before and nothing changed."
    )
    user_errors: list[UserError] = user_errors()

    @staticmethod
    def of(report: CompensationReport | None, errors: list[UserError]) -> WorkflowCompensationPayload:
        if report is None:
            return WorkflowCompensationPayload(user_errors=errors)
        return WorkflowCompensationPayload(
            workflow=WorkflowType.from_row(report.workflow),
            compensation=WorkflowCompensationType.from_row(report.compensation),
            already_reported=report.duplicate,
        )


@strawberry.type
class WorkflowMutations:
    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Define a workflow (IDLE) from typed input. Agent or admin keys.",
    )
    async def create_workflow(
        self, info: I, input: Annotated[CreateWorkflowInput, A(description="The definition.")]
    ) -> CreateWorkflowPayload:
        created, errors = await run_mutation(
            info, lambda tx: workflow_create.create_workflow(tx, input.to_document())
        )
        return CreateWorkflowPayload.of(created, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Define a workflow (IDLE) from the seed's YAML; `name` overrides metadata.name. "
        "Agent or admin keys.",
    )
    async def create_workflow_from_yaml(
        self,
        info: I,
        yaml: Annotated[
            str,
            A(
                description=f"The definition as seed 002 writes it (spec.steps, or steps at the top); "
                f"{RESULT_LIMIT}."
            ),
        ],
        name: Annotated[str | None, A(description=f"The workflow's name; {NAME_LIMIT}.")] = None,
    ) -> CreateWorkflowPayload:
        created, errors = await run_mutation(
            info, lambda tx: workflow_create.create_workflow_from_yaml(tx, yaml, name)
        )
        return CreateWorkflowPayload.of(created, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="IDLE -> QUEUED, and EXECUTING at once if one of the tenant's slots is free. "
        "Agent or admin keys.",
    )
    async def start_workflow(
        self, info: I, workflow_id: Annotated[strawberry.ID, A(description="The workflow.")]
    ) -> WorkflowPayload:
        row, errors = await run_mutation(
            info, lambda tx: workflow_create.start_workflow(tx, str(workflow_id))
        )
        return WorkflowPayload(workflow=WorkflowType.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Cancel an EXECUTING or BLOCKED workflow: it ends FAILED (running steps fail, "
        "cancelled), or COMPENSATING when its failurePolicy is compensate, as its own timeout would; "
        "the reason is in the workflow_cancelled event and failureReason. IDLE and QUEUED workflows "
        "cannot be cancelled (INVALID_TRANSITION). Reviewer or admin keys.",
    )
    async def cancel_workflow(
        self,
        info: I,
        workflow_id: Annotated[strawberry.ID, A(description="The workflow.")],
        reason: Annotated[str, A(description=f"Why; required, {TEXT_LIMIT}.")],
    ) -> WorkflowPayload:
        row, errors = await run_mutation(
            info, lambda tx: workflow_control.cancel_workflow(tx, str(workflow_id), reason)
        )
        return WorkflowPayload(workflow=WorkflowType.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Run a finished (COMPLETED or FAILED) workflow again as a new workflow: the same "
        "definition, started at once (QUEUED, EXECUTING if a slot is free). The new one's rerunOf names "
        "the old one, whose reruns list it. Reviewer or admin keys.",
    )
    async def rerun_workflow(
        self, info: I, workflow_id: Annotated[strawberry.ID, A(description="The finished workflow.")]
    ) -> WorkflowPayload:
        created, errors = await run_mutation(
            info, lambda tx: workflow_control.rerun_workflow(tx, str(workflow_id))
        )
        workflow = WorkflowType.from_row(created.workflow) if created else None
        return WorkflowPayload(workflow=workflow, user_errors=errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Take one runnable step of an EXECUTING workflow (or, while COMPENSATING, your next "
        "compensation), if any; it is RUNNING and yours until you report it. Agent or admin keys.",
    )
    async def claim_workflow_step(
        self,
        info: I,
        agent: Annotated[
            str, A(description=f"Your agent name; steps naming another agent are not yours; {NAME_LIMIT}.")
        ],
        workflow_id: Annotated[
            strawberry.ID | None,
            A(description="Only from this workflow; omitted: from any, the oldest started first."),
        ] = None,
    ) -> ClaimWorkflowStepPayload:
        wid = str(workflow_id) if workflow_id is not None else None
        claim, errors = await run_mutation(info, lambda tx: workflow_claims.claim_work(tx, agent, wid))
        if claim is None:
            return ClaimWorkflowStepPayload(user_errors=errors)
        return ClaimWorkflowStepPayload(
            outcome=claim.outcome,
            workflow=WorkflowType.from_row(claim.workflow) if claim.workflow else None,
            step=WorkflowStepType.from_row(claim.step) if claim.step else None,
            compensation=WorkflowCompensationType.from_row(claim.compensation)
            if claim.compensation
            else None,
            reason=claim.reason,
            retry_at=claim.retry_at,
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="claimWorkflowStep for up to `maxSteps` steps at once (a worker with that many free "
        "slots): each is claimed exactly as one claim would be, with its own attempt; or, while "
        "COMPENSATING, your next compensation alone. Agent or admin keys.",
    )
    async def claim_workflow_steps(
        self,
        info: I,
        agent: Annotated[
            str, A(description=f"Your agent name; steps naming another agent are not yours; {NAME_LIMIT}.")
        ],
        workflow_id: Annotated[
            strawberry.ID | None,
            A(description="Only from this workflow; omitted: from any, the oldest started first."),
        ] = None,
        max_steps: Annotated[int, A(description=f"The most steps to hand out, 1 to {MAX_BATCH_STEPS}.")] = 1,
        completed: Annotated[
            list[StepCompletionInput] | None,
            A(
                description="Steps you finished since your last claim, reported before the claim and "
                "in its transaction (one request and one commit instead of two), each exactly as "
                f"completeWorkflowSteps reports it; at most {MAX_BATCH_STEPS}. Their results are in "
                "the payload's `completed`."
            ),
        ] = None,
    ) -> ClaimWorkflowStepsPayload:
        wid = str(workflow_id) if workflow_id is not None else None
        items = _completions(completed or [])
        if len(items) > MAX_BATCH_STEPS:
            problem = f"completed must hold at most {MAX_BATCH_STEPS} completions, not {len(items)}"
            return ClaimWorkflowStepsPayload(
                user_errors=[
                    UserError(code=ErrorCode.VALIDATION_FAILED, message=problem, field=["completed"])
                ]
            )
        results: list[WorkflowStepPayload] = []
        while True:
            rest = items[len(results) :]
            # Each transaction: one workflow's run of completions; the claim goes with the last run.
            out, errors = await run_mutation(info, partial(_complete_then_claim, rest, agent, wid, max_steps))
            if out is None:  # the claim was refused: the run's completions rolled back with it
                results += await _complete_all(info, agent, rest, "completed", len(results))
                return ClaimWorkflowStepsPayload.of(None, errors, results)
            done, claims = out
            results += _completion_results(done, [], "completed", len(results))
            if claims is not None:
                return ClaimWorkflowStepsPayload.of(claims, [], results)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your RUNNING step COMPLETED; the steps depending on it may run. Agent or "
        "admin keys.",
    )
    async def complete_workflow_step(
        self,
        info: I,
        step_id: StepId,
        agent: Agent,
        output: Annotated[JSON | None, A(description=f"What the step produced; {RESULT_LIMIT}.")] = None,
        attempt: Attempt = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_reports.complete_workflow_step(tx, str(step_id), agent, output, attempt)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="completeWorkflowStep for several of your RUNNING steps in one request, in the order "
        "given: each is checked exactly as completeWorkflowStep checks it, and a refused one changes "
        "nothing while the others complete. A run of steps of the same workflow is completed in one "
        "transaction. Agent or admin keys.",
    )
    async def complete_workflow_steps(
        self,
        info: I,
        agent: Agent,
        steps: Annotated[
            list[StepCompletionInput], A(description=f"The completions, 1 to {MAX_BATCH_STEPS}.")
        ],
    ) -> CompleteWorkflowStepsPayload:
        if not 1 <= len(steps) <= MAX_BATCH_STEPS:
            problem = f"steps must hold 1 to {MAX_BATCH_STEPS} completions, not {len(steps)}"
            return CompleteWorkflowStepsPayload(
                user_errors=[UserError(code=ErrorCode.VALIDATION_FAILED, message=problem, field=["steps"])]
            )
        return CompleteWorkflowStepsPayload(
            results=await _complete_all(info, agent, _completions(steps), "steps")
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your RUNNING step failed; the category decides retry (back to PENDING), "
        "escalation (the workflow BLOCKED) or onFailure. Agent or admin keys.",
    )
    async def fail_workflow_step(
        self,
        info: I,
        step_id: StepId,
        agent: Agent,
        category: Annotated[ErrorCategory, A(description="What kind of failure it is.")],
        message: Annotated[str, A(description=f"What went wrong; required, {TEXT_LIMIT}.")],
        attempt: Attempt = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info,
            lambda tx: workflow_reports.fail_workflow_step(
                tx, str(step_id), agent, category, message, attempt
            ),
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Proof of life for your RUNNING step: it restarts the step's heartbeat deadline "
        "(heartbeatTimeout), never its own timeout; a userError says the step is no longer yours. Agent "
        "or admin keys.",
    )
    async def heartbeat_workflow_step(
        self,
        info: I,
        step_id: StepId,
        agent: Agent,
        attempt: Attempt = None,
        progress: Annotated[
            JSON | None,
            A(description=f"How far along it is, shown on the step; at most {PROGRESS_BYTES} bytes of JSON."),
        ] = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info,
            lambda tx: workflow_reports.heartbeat_workflow_step(tx, str(step_id), agent, attempt, progress),
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Approve a step waiting for a reviewer: a gate completes, an escalated step runs again "
        "(PENDING). Reviewer or admin keys.",
    )
    async def approve_workflow_step(
        self,
        info: I,
        step_id: Annotated[strawberry.ID, A(description="The step waiting for a reviewer.")],
        comment: Annotated[str | None, A(description=f"Why, recorded in the event; {TEXT_LIMIT}.")] = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_review.approve_workflow_step(tx, str(step_id), comment)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject a step waiting for a reviewer: it fails (category governance; onFailure "
        "applies). Reviewer or admin keys.",
    )
    async def reject_workflow_step(
        self,
        info: I,
        step_id: Annotated[strawberry.ID, A(description="The step waiting for a reviewer.")],
        reason: Annotated[str, A(description=f"Why; required, {TEXT_LIMIT}.")],
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_review.reject_workflow_step(tx, str(step_id), reason)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your RUNNING compensation COMPLETED (idempotent); after the last one the "
        "workflow is COMPLETED, rolled back. Agent or admin keys.",
    )
    async def complete_workflow_compensation(
        self, info: I, compensation_id: CompensationId, agent: Agent
    ) -> WorkflowCompensationPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_compensation.complete_compensation(tx, str(compensation_id), agent)
        )
        return WorkflowCompensationPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your compensation failed: the workflow ends FAILED, partially rolled back "
        "(idempotent). Agent or admin keys.",
    )
    async def fail_workflow_compensation(
        self,
        info: I,
        compensation_id: CompensationId,
        agent: Agent,
        message: Annotated[str, A(description=f"What went wrong; required, {TEXT_LIMIT}.")],
    ) -> WorkflowCompensationPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_compensation.fail_compensation(tx, str(compensation_id), agent, message)
        )
        return WorkflowCompensationPayload.of(report, errors)
