"""Workflow mutations: parse input, call one service, map the result."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.scalars import JSON
from strawberry.types import Info

from ...machines.retry import ErrorCategory
from ...services import (
    workflow_claims,
    workflow_compensation,
    workflow_create,
    workflow_reports,
    workflow_review,
)
from ...services.workflow_claims import ClaimOutcome
from ...services.workflow_compensation import CompensationReport
from ...services.workflow_create import CreatedWorkflow
from ...services.workflow_reports import StepReport
from ..context import Context
from ..errors import UserError, run_mutation
from ..permissions import CanDecide, CanDrive
from .inputs import CreateWorkflowInput
from .types import WorkflowCompensationType, WorkflowStepType, WorkflowType

I = Info[Context, Any]  # noqa: E741
DRIVE: list[type[BasePermission]] = [CanDrive]
DECIDE: list[type[BasePermission]] = [CanDecide]


@strawberry.type(description="Advice about a valid definition (e.g. more than 10 steps).")
class DefinitionWarning:
    code: str
    message: str
    field: list[str]


@strawberry.type
class CreateWorkflowPayload:
    workflow: WorkflowType | None = None
    warnings: list[DefinitionWarning] = strawberry.field(default_factory=list)
    user_errors: list[UserError] = strawberry.field(default_factory=list)

    @staticmethod
    def of(created: CreatedWorkflow | None, errors: list[UserError]) -> CreateWorkflowPayload:
        if created is None:
            return CreateWorkflowPayload(user_errors=errors)
        warnings = [
            DefinitionWarning(code=w.code, message=w.message, field=w.field) for w in created.warnings
        ]
        return CreateWorkflowPayload(workflow=WorkflowType.from_row(created.workflow), warnings=warnings)


@strawberry.type
class WorkflowPayload:
    workflow: WorkflowType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type(description="What a claim handed out; `outcome` says which of step and compensation is set.")
class ClaimWorkflowStepPayload:
    outcome: ClaimOutcome | None = None
    workflow: WorkflowType | None = None
    step: WorkflowStepType | None = None
    compensation: WorkflowCompensationType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class WorkflowStepPayload:
    workflow: WorkflowType | None = None
    step: WorkflowStepType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)

    @staticmethod
    def of(report: StepReport | None, errors: list[UserError]) -> WorkflowStepPayload:
        if report is None:
            return WorkflowStepPayload(user_errors=errors)
        return WorkflowStepPayload(
            workflow=WorkflowType.from_row(report.workflow), step=WorkflowStepType.from_row(report.step)
        )


@strawberry.type
class WorkflowCompensationPayload:
    workflow: WorkflowType | None = None
    compensation: WorkflowCompensationType | None = None
    already_reported: bool | None = strawberry.field(
        default=None, description="True when this result had been reported before and nothing changed."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)

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
    @strawberry.mutation(permission_classes=DRIVE, description="Define a workflow (idle) from typed input.")
    async def create_workflow(self, info: I, input: CreateWorkflowInput) -> CreateWorkflowPayload:
        created, errors = await run_mutation(
            info, lambda tx: workflow_create.create_workflow(tx, input.to_document())
        )
        return CreateWorkflowPayload.of(created, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Define a workflow (idle) from the seed's YAML; `name` overrides metadata.name.",
    )
    async def create_workflow_from_yaml(
        self, info: I, yaml: str, name: str | None = None
    ) -> CreateWorkflowPayload:
        created, errors = await run_mutation(
            info, lambda tx: workflow_create.create_workflow_from_yaml(tx, yaml, name)
        )
        return CreateWorkflowPayload.of(created, errors)

    @strawberry.mutation(
        permission_classes=DRIVE, description="idle -> queued, and executing at once if a slot is free."
    )
    async def start_workflow(self, info: I, workflow_id: strawberry.ID) -> WorkflowPayload:
        row, errors = await run_mutation(
            info, lambda tx: workflow_create.start_workflow(tx, str(workflow_id))
        )
        return WorkflowPayload(workflow=WorkflowType.from_row(row) if row else None, user_errors=errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Take one runnable step (or, while compensating, your next compensation), if any.",
    )
    async def claim_workflow_step(
        self, info: I, agent: str, workflow_id: strawberry.ID | None = None
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
        )

    @strawberry.mutation(permission_classes=DRIVE, description="Report your running step done.")
    async def complete_workflow_step(
        self,
        info: I,
        step_id: strawberry.ID,
        agent: str,
        output: JSON | None = None,
        attempt: int | None = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_reports.complete_workflow_step(tx, str(step_id), agent, output, attempt)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your running step failed; the category decides retry, escalation or onFailure.",
    )
    async def fail_workflow_step(
        self,
        info: I,
        step_id: strawberry.ID,
        agent: str,
        category: ErrorCategory,
        message: str,
        attempt: int | None = None,
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info,
            lambda tx: workflow_reports.fail_workflow_step(
                tx, str(step_id), agent, category, message, attempt
            ),
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE, description="Proof of life; a userError says the step is no longer yours."
    )
    async def heartbeat_workflow_step(
        self, info: I, step_id: strawberry.ID, agent: str, attempt: int | None = None
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_reports.heartbeat_workflow_step(tx, str(step_id), agent, attempt)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Approve a step waiting for a reviewer: a gate completes, an escalated step runs again.",
    )
    async def approve_workflow_step(
        self, info: I, step_id: strawberry.ID, comment: str | None = None
    ) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_review.approve_workflow_step(tx, str(step_id), comment)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject a step waiting for a reviewer: it fails (onFailure applies).",
    )
    async def reject_workflow_step(self, info: I, step_id: strawberry.ID, reason: str) -> WorkflowStepPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_review.reject_workflow_step(tx, str(step_id), reason)
        )
        return WorkflowStepPayload.of(report, errors)

    @strawberry.mutation(permission_classes=DRIVE, description="Report your compensation done (idempotent).")
    async def complete_workflow_compensation(
        self, info: I, compensation_id: strawberry.ID, agent: str
    ) -> WorkflowCompensationPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_compensation.complete_compensation(tx, str(compensation_id), agent)
        )
        return WorkflowCompensationPayload.of(report, errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Report your compensation failed: the workflow ends failed, partially rolled back.",
    )
    async def fail_workflow_compensation(
        self, info: I, compensation_id: strawberry.ID, agent: str, message: str
    ) -> WorkflowCompensationPayload:
        report, errors = await run_mutation(
            info, lambda tx: workflow_compensation.fail_compensation(tx, str(compensation_id), agent, message)
        )
        return WorkflowCompensationPayload.of(report, errors)
