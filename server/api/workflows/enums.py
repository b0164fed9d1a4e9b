"""GraphQL enums of the workflow domain, made from the machines' own enums so names cannot drift."""

from __future__ import annotations

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
from ...services.workflows.claims import ClaimOutcome, ClaimWait
from ..descriptions import described_enum

WorkflowStatusEnum = described_enum(
    WorkflowStatus,
    "WorkflowStatus",
    "Where a workflow is in its lifecycle (seed 002 §1).",
    {
        WorkflowStatus.IDLE: "Defined, not started: startWorkflow queues it.",
        WorkflowStatus.QUEUED: "Waiting for one of the tenant's execution slots "
        "(FLIGHTDECK_WORKFLOW_SLOTS_PER_TENANT); the oldest goes first.",
        WorkflowStatus.EXECUTING: "Running: agents claim its ready steps with claimWorkflowStep.",
        WorkflowStatus.BLOCKED: "A running step waits for a reviewer (an approval gate or a governance "
        "escalation); no new step is handed out until every one is answered.",
        WorkflowStatus.COMPLETED: "Final: succeeded, or rolled back in full (see `outcome`).",
        WorkflowStatus.FAILED: "Final: aborted, or a compensation failed (see `outcome`).",
        WorkflowStatus.COMPENSATING: "Undoing its completed steps, last completed first; their agents "
        "claim the compensations.",
    },
)
WorkflowStepStatusEnum = described_enum(
    WorkflowStepStatus,
    "WorkflowStepStatus",
    "Where a workflow step is in its lifecycle (seed 002 §2).",
    {
        WorkflowStepStatus.PENDING: "Waiting for its dependencies, a claim, or a retry's back-off "
        "(nextAttemptAt).",
        WorkflowStepStatus.RUNNING: "Claimed by an agent (or an approval gate opened); blockedOn is set "
        "while it waits for a reviewer.",
        WorkflowStepStatus.COMPLETED: "Final: done; steps that depend on it may run.",
        WorkflowStepStatus.FAILED: "Final: failed and not retried; its onFailure applied.",
        WorkflowStepStatus.SKIPPED: "Final: failed with onFailure skip; steps that depend on it may run.",
    },
)
CompensationStatusEnum = described_enum(
    CompensationStatus,
    "WorkflowCompensationStatus",
    "Where one compensation is: claimed by its named agent, then completed or failed.",
    {
        CompensationStatus.PENDING: "Not yet claimed; they run one at a time, in order.",
        CompensationStatus.RUNNING: "Claimed by its agent, who reports it done or failed.",
        CompensationStatus.COMPLETED: "Final: the step was undone.",
        CompensationStatus.FAILED: "Final: undoing failed; the workflow ends FAILED, partially rolled back.",
    },
)
WorkflowOutcomeEnum = described_enum(
    WorkflowOutcome,
    "WorkflowOutcome",
    "How a finished workflow ended.",
    {
        WorkflowOutcome.SUCCEEDED: "COMPLETED: every step completed or was skipped.",
        WorkflowOutcome.ROLLED_BACK: "COMPLETED: a failure was compensated and every compensation "
        "completed (or there was nothing to undo).",
        WorkflowOutcome.PARTIALLY_ROLLED_BACK: "FAILED: a compensation failed; the ones after it never ran.",
        WorkflowOutcome.FAILED: "FAILED: a failure aborted it, without compensation.",
    },
)
FailurePolicyEnum = described_enum(
    FailurePolicy,
    "WorkflowFailurePolicy",
    "What a failing workflow does (seed 002 §1): for its timeout, and for steps without onFailure.",
    {
        FailurePolicy.ABORT: "Stop: the workflow ends FAILED.",
        FailurePolicy.COMPENSATE: "Undo the completed steps that have a compensation entry, last "
        "completed first (COMPENSATING).",
    },
)
OnFailureEnum = described_enum(
    OnFailure,
    "StepFailureAction",
    "A step's onFailure (seed 002 §3.3): what its failure does once it is not retried.",
    {
        OnFailure.ABORT: "The step FAILED and the workflow ends FAILED.",
        OnFailure.SKIP: "The step SKIPPED; the steps after it may still run.",
        OnFailure.COMPENSATE: "The step FAILED and the workflow starts COMPENSATING.",
    },
)
BackoffEnum = described_enum(
    Backoff,
    "BackoffStrategy",
    "How the wait before each retry grows (seed 002 §3.2), never beyond maxDelay.",
    {
        Backoff.CONSTANT: "Every retry waits initialDelay.",
        Backoff.LINEAR: "Retry n waits n * initialDelay.",
        Backoff.EXPONENTIAL: "Retry n waits 2^(n-1) * initialDelay.",
    },
)
ErrorCategoryEnum = described_enum(
    ErrorCategory,
    "WorkflowErrorCategory",
    "Seed 002 §3.1; decides whether to retry.",
    {
        ErrorCategory.TRANSIENT: "Network timeout, rate limit, temporary unavailability: retried while "
        "retries are left.",
        ErrorCategory.AGENT_ERROR: "Invalid output or a crash: retried only when the policy's "
        "retryOn has it.",
        ErrorCategory.TIMEOUT: "The step exceeded its timeout (the engine reports these itself); "
        "never retried.",
        ErrorCategory.VALIDATION: "Input or output does not match its schema; never retried.",
        ErrorCategory.EXTERNAL: "An external API failed or data is unavailable: retried only when the "
        "policy's retryOn has it.",
        ErrorCategory.GOVERNANCE: "Blocked by a governance policy: the step waits for a reviewer and the "
        "workflow blocks (escalation); never retried.",
    },
)
BlockedOnEnum = described_enum(
    BlockedOn,
    "WorkflowBlockedOn",
    "Why a running step waits for a reviewer.",
    {
        BlockedOn.APPROVAL: "It is an approval gate: approving completes it.",
        BlockedOn.GOVERNANCE: "Its agent reported a governance error: approving hands it back to the "
        "agents (PENDING).",
    },
)
ClaimOutcomeEnum = described_enum(
    ClaimOutcome,
    "ClaimOutcome",
    "What claimWorkflowStep handed out.",
    {
        ClaimOutcome.STEP: "A step, now RUNNING and yours: `step` is set.",
        ClaimOutcome.COMPENSATION: "A compensation, now RUNNING and yours: `compensation` is set.",
        ClaimOutcome.NONE: "Nothing ready for you now: `reason` says why, `retryAt` when to ask again "
        "(or subscribe to workAvailable).",
    },
)
ClaimWaitEnum = described_enum(
    ClaimWait,
    "ClaimWaitReason",
    "Why a claim handed out nothing.",
    {
        ClaimWait.NOTHING_READY: "No step is ready for you: its dependencies are still running, or "
        "every ready step names another agent (or, compensating, it is not your compensation's turn).",
        ClaimWait.BACKING_OFF: "A step of yours waits out a retry's back-off; `retryAt` says until when.",
        ClaimWait.WAITING_AT_GATE: "The workflow is BLOCKED: it waits for a reviewer (an approval gate "
        "or an escalation).",
        ClaimWait.WORKFLOW_QUEUED: "The workflow is QUEUED for one of the tenant's execution slots.",
        ClaimWait.WORKFLOW_NOT_EXECUTING: "The workflow is IDLE (not started) or finished.",
    },
)
