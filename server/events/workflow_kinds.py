"""Event kinds of the workflow domain (seed 002), past tense. Root type ``workflow``, root id its id.

State changes write ``workflow_transitioned``, ``workflow_step_transitioned`` and
``workflow_compensation_transitioned`` through the transition function; these record the rest.
"""

from __future__ import annotations

from enum import StrEnum

ROOT = "workflow"


class WorkflowEvent(StrEnum):
    WORKFLOW_CREATED = "workflow_created"
    STEP_CLAIMED = "workflow_step_claimed"
    STEP_FAILED = "workflow_step_failed"  # every reported failure, retried or not
    RETRY_SCHEDULED = "workflow_step_retry_scheduled"
    RETRY_DUE = "workflow_step_retry_due"
    STEP_TIMED_OUT = "workflow_step_timed_out"
    WORKFLOW_TIMED_OUT = "workflow_timed_out"
    WORKFLOW_CANCELLED = "workflow_cancelled"  # a person stopped it; the failure policy follows
    WORKFLOW_RERUN = "workflow_rerun"  # a new workflow runs its definition again (on both workflows)
    ESCALATED = "workflow_escalated"  # a governance error: the workflow waits for a reviewer
    APPROVAL_REQUESTED = "workflow_approval_requested"
    STEP_APPROVED = "workflow_step_approved"
    STEP_REJECTED = "workflow_step_rejected"
    COMPENSATION_PLANNED = "workflow_compensation_planned"
