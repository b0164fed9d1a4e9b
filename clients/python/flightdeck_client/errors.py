"""Exceptions a step handler raises to report a failure in one of seed 002's error categories (§3.1).

Anything else a handler raises is reported as ``AGENT_ERROR`` (the agent crashed); the built-in
``TimeoutError`` as ``TIMEOUT``. The server's retry policy and the step's ``onFailure`` decide what the
failure leads to.
"""

from __future__ import annotations

from .generated.enums import WorkflowErrorCategory


class StepFailed(Exception):
    """Base class: the step failed; ``category`` is what the worker reports."""

    category = WorkflowErrorCategory.AGENT_ERROR


class TransientError(StepFailed):
    """Network timeout, rate limit, temporary unavailability: retried with back-off."""

    category = WorkflowErrorCategory.TRANSIENT


class AgentError(StepFailed):
    """The agent produced invalid output or crashed: retried only if the policy's retryOn says so."""

    category = WorkflowErrorCategory.AGENT_ERROR


class StepTimeout(StepFailed):
    """The step ran out of time: never retried; onFailure applies."""

    category = WorkflowErrorCategory.TIMEOUT


class ValidationFailed(StepFailed):
    """Input or output does not match its schema: never retried; onFailure applies."""

    category = WorkflowErrorCategory.VALIDATION


class ExternalError(StepFailed):
    """An external API failed or data is unavailable: retried only if the policy's retryOn says so."""

    category = WorkflowErrorCategory.EXTERNAL


class GovernanceBlocked(StepFailed):
    """A governance policy blocked the action: the step waits for a reviewer (the workflow BLOCKED)."""

    category = WorkflowErrorCategory.GOVERNANCE


class ClientError(Exception):
    """The server refused a call: ``code`` is its stable code (NOT_FOUND, FORBIDDEN, CONFLICT, ...)."""

    def __init__(self, code: str, message: str, field: list[str] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field or []


def category_of(exc: BaseException) -> WorkflowErrorCategory:
    if isinstance(exc, StepFailed):
        return exc.category
    if isinstance(exc, TimeoutError):
        return WorkflowErrorCategory.TIMEOUT
    return WorkflowErrorCategory.AGENT_ERROR
