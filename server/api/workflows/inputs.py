"""GraphQL inputs of the workflow domain: the seed's YAML definition as typed input.

``to_document`` turns an input into the YAML's document (same keys), which the service checks the
same way whichever form it came in.
"""

from __future__ import annotations

from typing import Any

import strawberry

from ...machines.retry import Backoff, ErrorCategory
from ...machines.workflow import FailurePolicy, OnFailure
from . import enums  # noqa: F401  (registers the enums)


@strawberry.input(description="Seed 002 §3.2. Delays are durations like 1s, 5m.")
class RetryPolicyInput:
    max_retries: int = 3
    backoff: Backoff = Backoff.EXPONENTIAL
    initial_delay: str = "1s"
    max_delay: str | None = None
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
    name: str
    depends_on: list[str] = strawberry.field(default_factory=list)
    agent: str | None = strawberry.field(default=None, description="Only this agent may claim the step.")
    timeout: str | None = strawberry.field(default=None, description='A duration like "5m".')
    on_failure: OnFailure | None = strawberry.field(
        default=None, description="Defaults to the workflow's failurePolicy."
    )
    retry_policy: RetryPolicyInput | None = None
    approval: bool = strawberry.field(
        default=False, description="An approval gate: the workflow blocks until a reviewer answers."
    )

    def to_document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "name": self.name,
            "dependsOn": list(self.depends_on),
            "approval": self.approval,
        }
        for key, value in (("agent", self.agent), ("timeout", self.timeout)):
            if value is not None:
                doc[key] = value
        if self.on_failure is not None:
            doc["onFailure"] = self.on_failure.value
        if self.retry_policy is not None:
            doc["retryPolicy"] = self.retry_policy.to_document()
        return doc


@strawberry.input(description="How to undo a completed step, and the agent that does it (seed 002 §4.3).")
class CompensationInput:
    step: str
    action: str
    agent: str


@strawberry.input(description="A workflow definition (the seed's YAML spec as typed input).")
class CreateWorkflowInput:
    name: str
    steps: list[WorkflowStepInput]
    compensation: list[CompensationInput] = strawberry.field(default_factory=list)
    timeout: str | None = strawberry.field(default=None, description='The whole workflow\'s, e.g. "30m".')
    failure_policy: FailurePolicy = FailurePolicy.ABORT

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
