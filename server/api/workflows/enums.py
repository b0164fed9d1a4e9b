"""GraphQL enums of the workflow domain, made from the machines' own enums so names cannot drift."""

from __future__ import annotations

import strawberry

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
from ...services.workflow_claims import ClaimOutcome

WorkflowStatusEnum = strawberry.enum(WorkflowStatus, name="WorkflowStatus")
WorkflowStepStatusEnum = strawberry.enum(WorkflowStepStatus, name="WorkflowStepStatus")
CompensationStatusEnum = strawberry.enum(CompensationStatus, name="WorkflowCompensationStatus")
WorkflowOutcomeEnum = strawberry.enum(
    WorkflowOutcome, name="WorkflowOutcome", description="How a finished workflow ended."
)
FailurePolicyEnum = strawberry.enum(
    FailurePolicy, name="WorkflowFailurePolicy", description="What a failing workflow does (seed 002 §1)."
)
OnFailureEnum = strawberry.enum(
    OnFailure, name="StepFailureAction", description="A step's onFailure (seed 002 §3.3)."
)
BackoffEnum = strawberry.enum(Backoff, name="BackoffStrategy")
ErrorCategoryEnum = strawberry.enum(
    ErrorCategory, name="WorkflowErrorCategory", description="Seed 002 §3.1; decides whether to retry."
)
BlockedOnEnum = strawberry.enum(
    BlockedOn, name="WorkflowBlockedOn", description="Why a running step waits for a reviewer."
)
ClaimOutcomeEnum = strawberry.enum(ClaimOutcome, name="ClaimOutcome")
