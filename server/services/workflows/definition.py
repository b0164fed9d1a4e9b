"""A checked workflow definition (seed 002) and its document in the YAML's own words.

``workflow_reader`` builds one from typed input or YAML; the document is what a workflow row stores
and what the API shows back (``definitionYaml``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ...machines.durations import check_duration, format_duration, parse_duration
from ...machines.retry import DEFAULT_RETRY_POLICY, Backoff, ErrorCategory, RetryPolicy
from ...machines.workflow import FailurePolicy, OnFailure


@dataclass(frozen=True)
class Compensation:
    action: str
    agent: str


@dataclass(frozen=True)
class StepDefinition:
    name: str
    depends_on: tuple[str, ...]
    agent: str | None
    timeout: timedelta | None
    on_failure: OnFailure
    retry_policy: RetryPolicy | None
    approval: bool
    compensation: Compensation | None
    heartbeat_timeout: timedelta | None = None

    def __post_init__(self) -> None:
        for name, value in (("timeout", self.timeout), ("heartbeatTimeout", self.heartbeat_timeout)):
            if value is not None:
                check_duration(f'step "{self.name}": {name}', value)
        if self.retry_policy is not None and not isinstance(self.retry_policy, RetryPolicy):
            raise TypeError(f"retry_policy must be a RetryPolicy, got {self.retry_policy!r}")


@dataclass(frozen=True)
class WorkflowDefinition:
    name: str
    steps: tuple[StepDefinition, ...]
    timeout: timedelta | None
    failure_policy: FailurePolicy
    document: dict[str, Any]  # the definition as stored and shown back, in the YAML's words

    def __post_init__(self) -> None:
        if self.timeout is not None:
            check_duration("timeout", self.timeout)


def definition_document(
    name: str, steps: Sequence[StepDefinition], timeout: timedelta | None, policy: FailurePolicy
) -> dict[str, Any]:
    spec: dict[str, Any] = {"failurePolicy": policy.value}
    if timeout is not None:
        spec["timeout"] = format_duration(timeout)
    spec["steps"] = [step_document(s) for s in steps]
    compensation = [
        {"step": s.name, "action": s.compensation.action, "agent": s.compensation.agent}
        for s in steps
        if s.compensation is not None
    ]
    if compensation:
        spec["compensation"] = compensation
    return {"metadata": {"name": name}, "spec": spec}


def step_document(step: StepDefinition) -> dict[str, Any]:
    out: dict[str, Any] = {"name": step.name}
    if step.depends_on:
        out["dependsOn"] = list(step.depends_on)
    if step.agent is not None:
        out["agent"] = step.agent
    if step.timeout is not None:
        out["timeout"] = format_duration(step.timeout)
    if step.heartbeat_timeout is not None:
        out["heartbeatTimeout"] = format_duration(step.heartbeat_timeout)
    out["onFailure"] = step.on_failure.value
    if step.approval:
        out["approval"] = True
    if step.retry_policy is not None:
        out["retryPolicy"] = retry_policy_document(step.retry_policy)
    return out


def retry_policy_document(policy: RetryPolicy) -> dict[str, Any]:
    out: dict[str, Any] = {
        "maxRetries": policy.max_retries,
        "backoff": policy.backoff.value,
        "initialDelay": format_duration(policy.initial_delay),
    }
    if policy.max_delay is not None:
        out["maxDelay"] = format_duration(policy.max_delay)
    out["retryOn"] = sorted(c.value for c in policy.retry_on)
    return out


def retry_policy_from_document(doc: Mapping[str, Any] | None) -> RetryPolicy:
    """The policy stored on a step row (``DEFAULT_RETRY_POLICY`` when it named none)."""
    if doc is None:
        return DEFAULT_RETRY_POLICY
    return RetryPolicy(
        max_retries=int(doc["maxRetries"]),
        backoff=Backoff(doc["backoff"]),
        initial_delay=parse_duration(doc["initialDelay"]),
        max_delay=parse_duration(doc["maxDelay"]) if doc.get("maxDelay") else None,
        retry_on=frozenset(ErrorCategory(c) for c in doc.get("retryOn", ["transient"])),
    )
