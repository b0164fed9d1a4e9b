"""GraphQL types of the workflow domain, built from ORM rows."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, cast

import strawberry
import yaml
from strawberry.scalars import JSON
from strawberry.types import Info

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...machines.durations import format_duration
from ...machines.retry import Backoff, ErrorCategory
from ...machines.workflow import (
    BlockedOn,
    CompensationStatus,
    FailurePolicy,
    OnFailure,
    WorkflowOutcome,
    WorkflowStatus,
    WorkflowStepStatus,
)
from ...services.workflows import queries as workflow_queries
from ...services.workflows.definition import retry_policy_from_document
from .. import actions
from ..actions import AVAILABLE_ACTIONS, AvailableAction, available_actions
from ..context import Context
from ..decisions.types import OPEN_DECISION, DecisionType, open_decision
from ..descriptions import (
    CREATED_AT,
    PAGE_AFTER,
    PAGE_FIRST,
    UPDATED_AT,
)
from ..node import Node
from ..pagination import Connection, capped, child_connection
from ..rows import from_row
from . import enums  # noqa: F401  (registers the enums)

I = Info[Context, Any]  # noqa: E741


def _duration(seconds: float | None) -> str | None:
    return format_duration(timedelta(seconds=seconds)) if seconds is not None else None


@strawberry.type(name="RetryPolicy", description="Seed 002 §3.2; the seed's example when a step names none.")
class RetryPolicyType:
    max_retries: int = strawberry.field(description="Retries after the first attempt; 0 never retries.")
    backoff: Backoff = strawberry.field(description="How the wait grows from one retry to the next.")
    initial_delay: str = strawberry.field(description='The wait before the first retry, e.g. "1s".')
    max_delay: str | None = strawberry.field(description="No wait is longer; null: up to 365d.")
    retry_on: list[ErrorCategory] = strawberry.field(description="Categories retried (transient always).")
    is_default: bool = strawberry.field(description="True when the step named no policy: this is the seed's.")


@strawberry.type(description="How to undo a completed step, and which agent does it (seed 002 §4.3).")
class CompensationEntry:
    action: str = strawberry.field(description="What its agent does to undo the step.")
    agent: str = strawberry.field(description="The only agent that may claim the compensation.")


@strawberry.type(name="WorkflowStep", description="One step of a workflow's DAG.")
class WorkflowStepType(Node):
    workflow_id: strawberry.ID = strawberry.field(description="The workflow it belongs to.")
    position: int = strawberry.field(description="1-based position in the definition.")
    name: str = strawberry.field(description="Unique within the workflow.")
    status: WorkflowStepStatus = strawberry.field(description="Where the step is in its lifecycle.")
    depends_on: list[str] = strawberry.field(
        description="Names of the steps that must be completed or skipped before it runs."
    )
    agent: str | None = strawberry.field(description="Only this agent may claim the step, if set.")
    timeout: str | None = strawberry.field(description='As in the definition, e.g. "5m".')
    timeout_seconds: float | None = strawberry.field(description="The same timeout in seconds.")
    heartbeat_timeout: str | None = strawberry.field(
        description='As in the definition, e.g. "30s": the longest a claimed step may go without a '
        "heartbeat; null: no heartbeats are required."
    )
    heartbeat_timeout_seconds: float | None = strawberry.field(
        description="The same heartbeat timeout in seconds."
    )
    on_failure: OnFailure = strawberry.field(
        description="What its failure does once not retried (the workflow's failurePolicy if it named none)."
    )
    retry_policy: RetryPolicyType = strawberry.field(description="When and how a failure is retried.")
    approval: bool = strawberry.field(description="An approval gate: decided by a reviewer, not an agent.")
    blocked_on: BlockedOn | None = strawberry.field(description="Set while the step waits for a reviewer.")
    compensation: CompensationEntry | None = strawberry.field(
        description="How to undo it once completed; null: it is not undone."
    )
    attempt: int = strawberry.field(description="Claims so far; 2 or more after a retry.")
    claimed_by: str | None = strawberry.field(description="The agent holding (or that last held) the step.")
    next_attempt_at: datetime | None = strawberry.field(
        description="When a retried step may be claimed again (its back-off ends), UTC."
    )
    timeout_at: datetime | None = strawberry.field(
        description="When the running step times out (UTC): the sooner of its own timeout and its "
        "heartbeat deadline; null when not running or without either."
    )
    started_at: datetime | None = strawberry.field(description="When it last went RUNNING (UTC).")
    heartbeat_at: datetime | None = strawberry.field(
        description="The holder's last heartbeat in this attempt (UTC); heartbeats never extend the "
        "step's own timeout, only its heartbeat deadline."
    )
    progress: JSON | None = strawberry.field(
        description="The last progress payload a heartbeat carried in this attempt (small JSON)."
    )
    completed_at: datetime | None = strawberry.field(
        description="When it reached COMPLETED, SKIPPED or FAILED (UTC)."
    )
    completion_order: int | None = strawberry.field(
        description="1 for the first step to complete, then 2, ..."
    )
    last_error: str | None = strawberry.field(description="The message of its last failure.")
    last_error_category: ErrorCategory | None = strawberry.field(
        description="The category of its last failure; null for a cancellation."
    )
    output: JSON | None = strawberry.field(description="What completeWorkflowStep reported.")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)

    @strawberry.field(description="The workflow it belongs to.")
    async def workflow(self, info: I) -> WorkflowType | None:
        key = (info.context.principal.tenant_id, str(self.workflow_id))
        row = await info.context.loaders.workflows.load(key)
        return WorkflowType.from_row(row) if row else None

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.WORKFLOW_STEP, self)

    @strawberry.field(description=OPEN_DECISION)
    async def open_decision(self, info: I) -> DecisionType | None:
        return await open_decision(info, str(self.id))

    @staticmethod
    def from_row(row: WorkflowStep) -> WorkflowStepType:
        policy = retry_policy_from_document(row.retry_policy)
        return WorkflowStepType(
            id=strawberry.ID(row.id),
            workflow_id=strawberry.ID(row.workflow_id),
            position=row.position,
            name=row.name,
            status=WorkflowStepStatus(row.status),
            depends_on=list(row.depends_on),
            agent=row.agent,
            timeout=_duration(row.timeout_seconds),
            timeout_seconds=row.timeout_seconds,
            heartbeat_timeout=_duration(row.heartbeat_timeout_seconds),
            heartbeat_timeout_seconds=row.heartbeat_timeout_seconds,
            on_failure=OnFailure(row.on_failure),
            retry_policy=RetryPolicyType(
                max_retries=policy.max_retries,
                backoff=policy.backoff,
                initial_delay=format_duration(policy.initial_delay),
                max_delay=format_duration(policy.max_delay) if policy.max_delay else None,
                retry_on=sorted(policy.retry_on),
                is_default=row.retry_policy is None,
            ),
            approval=row.approval,
            blocked_on=BlockedOn(row.blocked_on) if row.blocked_on else None,
            compensation=CompensationEntry(action=row.compensation_action, agent=row.compensation_agent)
            if row.compensation_action and row.compensation_agent
            else None,
            attempt=row.attempt,
            claimed_by=row.claimed_by,
            next_attempt_at=row.next_attempt_at,
            timeout_at=row.timeout_at,
            started_at=row.started_at,
            heartbeat_at=row.heartbeat_at,
            progress=cast(JSON, row.progress),
            completed_at=row.completed_at,
            completion_order=row.completion_order,
            last_error=row.last_error,
            last_error_category=ErrorCategory(row.last_error_category) if row.last_error_category else None,
            output=cast(JSON, row.output),
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


@strawberry.type(name="WorkflowCompensation", description="Undoing one completed step (seed 002 §4).")
class WorkflowCompensationType(Node):
    workflow_id: strawberry.ID = strawberry.field(description="The workflow being compensated.")
    step_id: strawberry.ID = strawberry.field(description="The completed step it undoes.")
    step_name: str = strawberry.field(description="That step's name.")
    position: int = strawberry.field(description="1 runs first: the step that completed last.")
    action: str = strawberry.field(description="What its agent does to undo the step.")
    agent: str = strawberry.field(description="The only agent that may claim it.")
    status: CompensationStatus = strawberry.field(description="Where it is in its lifecycle.")
    error: str | None = strawberry.field(description="Why it failed (FAILED only).")
    started_at: datetime | None = strawberry.field(description="When its agent claimed it (UTC).")
    completed_at: datetime | None = strawberry.field(description="When it COMPLETED or FAILED (UTC).")

    @staticmethod
    def from_row(row: WorkflowCompensation) -> WorkflowCompensationType:
        return from_row(WorkflowCompensationType, row)


@strawberry.type(name="WorkflowStepCounts", description="How many steps are in each state.")
class WorkflowStepCounts:
    pending: int = strawberry.field(description="Steps PENDING.")
    running: int = strawberry.field(description="Steps RUNNING.")
    completed: int = strawberry.field(description="Steps COMPLETED.")
    failed: int = strawberry.field(description="Steps FAILED.")
    skipped: int = strawberry.field(description="Steps SKIPPED.")


@strawberry.type(name="Workflow", description="A DAG workflow (seed 002).")
class WorkflowType(Node):
    name: str = strawberry.field(description="What the workflow is called.")
    status: WorkflowStatus = strawberry.field(description="Where the workflow is in its lifecycle.")
    outcome: WorkflowOutcome | None = strawberry.field(description="Set once the workflow is finished.")
    failure_policy: FailurePolicy = strawberry.field(
        description="What a failure does: for its timeout, and steps without onFailure."
    )
    timeout: str | None = strawberry.field(description='The whole workflow\'s, e.g. "30m"; null: none.')
    timeout_seconds: float | None = strawberry.field(description="The same timeout in seconds.")
    timeout_at: datetime | None = strawberry.field(description="Deadline; runs from the start of execution.")
    failure_reason: str | None = strawberry.field(description="Why it failed or was compensated.")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    queued_at: datetime | None = strawberry.field(description="When startWorkflow queued it (UTC).")
    started_at: datetime | None = strawberry.field(description="When it first went EXECUTING (UTC).")
    completed_at: datetime | None = strawberry.field(description="When it COMPLETED or FAILED (UTC).")
    rerun_of_id: strawberry.ID | None = strawberry.field(
        description="The finished workflow this one runs again (rerunWorkflow); null for a new definition."
    )

    @strawberry.field(description="The finished workflow this one runs again (rerunWorkflow), if any.")
    async def rerun_of(self, info: I) -> WorkflowType | None:
        if self.rerun_of_id is None:
            return None
        row = await info.context.loaders.workflows.load(
            (info.context.principal.tenant_id, str(self.rerun_of_id))
        )
        return WorkflowType.from_row(row) if row else None

    @strawberry.field(
        description="The workflows rerunWorkflow made from this one, oldest first (at most 100)."
    )
    async def reruns(self, info: I) -> list[WorkflowType]:
        async with info.context.runtime.db.reader() as session:
            rows = await workflow_queries.reruns_of(session, info.context.principal.tenant_id, str(self.id))
        return [WorkflowType.from_row(r) for r in rows]

    @strawberry.field(description="The definition as stored, in the YAML's own words.")
    async def definition(self, info: I) -> JSON:
        # Read only when asked for: the rows behind this type leave it out (it grows with the workflow).
        return cast(JSON, await info.context.loaders.workflow_definitions.load(str(self.id)))

    @strawberry.field(description="The definition as YAML (what createWorkflowFromYaml accepts).")
    async def definition_yaml(self, info: I) -> str:
        document = await info.context.loaders.workflow_definitions.load(str(self.id))
        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)

    @strawberry.field(description="The steps in definition order.")
    async def steps(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 100,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
    ) -> Connection[WorkflowStepType]:
        rows = await info.context.loaders.workflow_steps.load(str(self.id))
        page = workflow_queries.steps_page(rows, capped(info, first), after)
        return child_connection(rows, page, workflow_queries.step_cursor, WorkflowStepType.from_row)

    @strawberry.field(description="How many steps are in each state.")
    async def step_counts(self, info: I) -> WorkflowStepCounts:
        statuses = [s.status for s in await info.context.loaders.workflow_steps.load(str(self.id))]
        return WorkflowStepCounts(**{s.value: statuses.count(s.value) for s in WorkflowStepStatus})

    @strawberry.field(description="Compensations in the order they run (empty unless compensation started).")
    async def compensations(self, info: I) -> list[WorkflowCompensationType]:
        rows = await info.context.loaders.workflow_compensations.load(str(self.id))
        return [WorkflowCompensationType.from_row(r) for r in rows]

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.WORKFLOW, self)

    @staticmethod
    def from_row(row: Workflow) -> WorkflowType:
        return from_row(WorkflowType, row, timeout=_duration(row.timeout_seconds))
