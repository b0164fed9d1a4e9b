"""GraphQL inputs of the workflow domain: the seed's YAML definition as typed input.

``to_document`` turns an input into the YAML's document (same keys), which the service checks the
same way whichever form it came in.
"""

from __future__ import annotations

from typing import Any

import strawberry

from ...machines.retry import Backoff, ErrorCategory
from ...machines.workflow import FailurePolicy, OnFailure
from ..descriptions import NAME_LIMIT, TEXT_LIMIT
from . import enums  # noqa: F401  (registers the enums)

DURATION = 'A duration like "30s", "5m" or "1h30m" (units ms, s, m, h, d), more than zero, at most 365d.'


@strawberry.input(description="Seed 002 §3.2. Delays are durations like 1s, 5m.")
class RetryPolicyInput:
    max_retries: int = strawberry.field(
        default=3, description="Retries after the first attempt, 0 to 100; 0 never retries."
    )
    backoff: Backoff = strawberry.field(
        default=Backoff.EXPONENTIAL, description="How the wait grows from one retry to the next."
    )
    initial_delay: str = strawberry.field(
        default="1s", description=f"The wait before the first retry. {DURATION}"
    )
    max_delay: str | None = strawberry.field(
        default=None, description=f"No wait is longer than this; null: up to 365d. {DURATION}"
    )
    retry_on: list[ErrorCategory] | None = strawberry.field(
        default=None,
        description="Categories to retry: transient always; agent_error and external may be added.",
    )

    def to_document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "maxRetries": self.max_retries,
            "backoff": self.backoff.value,
            "initialDelay": self.initial_delay,
        }
        if self.max_delay is not None:
            doc["maxDelay"] = self.max_delay
        if self.retry_on is not None:
            doc["retryOn"] = [c.value for c in self.retry_on]
        return doc


@strawberry.input(description="One step of the DAG.")
class WorkflowStepInput:
    name: str = strawberry.field(
        description=f"Unique within the workflow ({NAME_LIMIT}); dependsOn and compensation name it."
    )
    depends_on: list[str] = strawberry.field(
        default_factory=list,
        description="Names of the steps that must be completed or skipped before this one runs; no cycles.",
    )
    agent: str | None = strawberry.field(
        default=None, description=f"Only this agent may claim the step ({NAME_LIMIT}); not for gates."
    )
    timeout: str | None = strawberry.field(
        default=None,
        description=f"How long the step may run from its claim before it fails (category timeout). "
        f"{DURATION}",
    )
    heartbeat_timeout: str | None = strawberry.field(
        default=None,
        description=f"How long a claimed step may go without a heartbeat (from its claim, then from each "
        f"heartbeat) before it times out (category timeout) and its retry policy, then onFailure, "
        f"decide. Not for gates. {DURATION}",
    )
    on_failure: OnFailure | None = strawberry.field(
        default=None,
        description="What the step's failure does once it is not retried; default: the workflow's "
        "failurePolicy.",
    )
    retry_policy: RetryPolicyInput | None = strawberry.field(
        default=None,
        description="When to retry a failure; null: the seed's (3 retries, exponential, 1s up to 60s). "
        "Not for gates.",
    )
    approval: bool = strawberry.field(
        default=False, description="An approval gate: the workflow blocks until a reviewer answers."
    )

    def to_document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "dependsOn": list(self.depends_on),
            "approval": self.approval,
        }
        for key, value in (
            ("agent", self.agent),
            ("timeout", self.timeout),
            ("heartbeatTimeout", self.heartbeat_timeout),
        ):
            if value is not None:
                doc[key] = value
        if self.on_failure is not None:
            doc["onFailure"] = self.on_failure.value
        if self.retry_policy is not None:
            doc["retryPolicy"] = self.retry_policy.to_document()
        return doc


@strawberry.input(description="How to undo a completed step, and the agent that does it (seed 002 §4.3).")
class CompensationInput:
    step: str = strawberry.field(description="The step it undoes; one entry per step at most.")
    action: str = strawberry.field(description=f"What its agent does to undo the step; {TEXT_LIMIT}.")
    agent: str = strawberry.field(
        description=f"The only agent that may claim this compensation ({NAME_LIMIT})."
    )


@strawberry.input(description="A workflow definition (the seed's YAML spec as typed input).")
class CreateWorkflowInput:
    name: str = strawberry.field(description=f"What the workflow is called; required, {NAME_LIMIT}.")
    steps: list[WorkflowStepInput] = strawberry.field(
        description="The DAG's steps: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default); more "
        "than 10 gives a warning."
    )
    compensation: list[CompensationInput] = strawberry.field(
        default_factory=list,
        description="How to undo completed steps; steps without an entry are not undone.",
    )
    timeout: str | None = strawberry.field(
        default=None,
        description=f"The whole workflow's, running from the start of execution (queued time excluded). "
        f"{DURATION}",
    )
    failure_policy: FailurePolicy = strawberry.field(
        default=FailurePolicy.ABORT,
        description="What a failure does: for the workflow's timeout, and steps without onFailure.",
    )

    def to_document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "failurePolicy": self.failure_policy.value,
            "steps": [s.to_document() for s in self.steps],
            "compensation": [
                {"step": c.step, "action": c.action, "agent": c.agent} for c in self.compensation
            ],
        }
        if self.timeout is not None:
            doc["timeout"] = self.timeout
        return doc
