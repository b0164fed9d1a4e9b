"""Error categories (seed 002 §3.1), retry policies and back-off (§3.2), and what a step failure leads to.

Pure: a failure's category, the step's policy and attempt number go in; a decision comes out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum

from .durations import LONGEST_DURATION, check_duration
from .workflow import OnFailure


class ErrorCategory(StrEnum):
    TRANSIENT = "transient"
    AGENT_ERROR = "agent_error"
    TIMEOUT = "timeout"
    VALIDATION = "validation"
    EXTERNAL = "external"
    GOVERNANCE = "governance"


class Backoff(StrEnum):
    CONSTANT = "constant"
    LINEAR = "linear"
    EXPONENTIAL = "exponential"


# §3.1's "Retry?" column: transient always may, agent_error and external when the policy says so.
CONFIGURABLE = frozenset({ErrorCategory.AGENT_ERROR, ErrorCategory.EXTERNAL})
NEVER_RETRIED = frozenset({ErrorCategory.TIMEOUT, ErrorCategory.VALIDATION, ErrorCategory.GOVERNANCE})


# Without a maxDelay, exponential back-off still ends somewhere: the longest duration a definition may name.
LONGEST_DELAY_SECONDS = LONGEST_DURATION.total_seconds()
MAX_RETRIES_LIMIT = 100


class InvalidRetryPolicy(ValueError):
    """A retry policy that no path may build: the readers of client input refuse these first."""


@dataclass(frozen=True)
class RetryPolicy:
    """A step's retry policy (seed 002 §3.2), valid by construction: whatever built it (the input
    reader, a stored definition, a test), a policy that exists retries a bounded number of times and
    can only yield waits from zero to ``LONGEST_DELAY_SECONDS``. Categories the seed never retries
    may be listed; ``retries`` ignores them."""

    max_retries: int
    backoff: Backoff
    initial_delay: timedelta
    max_delay: timedelta | None = None
    retry_on: frozenset[ErrorCategory] = field(default_factory=lambda: frozenset({ErrorCategory.TRANSIENT}))

    def __post_init__(self) -> None:
        longest = timedelta(seconds=LONGEST_DELAY_SECONDS)
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise InvalidRetryPolicy(f"max_retries must be a whole number, got {self.max_retries!r}")
        if not 0 <= self.max_retries <= MAX_RETRIES_LIMIT:
            raise InvalidRetryPolicy(
                f"max_retries must be from 0 to {MAX_RETRIES_LIMIT}, got {self.max_retries}"
            )
        if not isinstance(self.backoff, Backoff):
            raise InvalidRetryPolicy(f"backoff must be a Backoff, got {self.backoff!r}")
        if not isinstance(self.initial_delay, timedelta) or not timedelta(0) <= self.initial_delay <= longest:
            raise InvalidRetryPolicy(f"initial_delay must be from 0 to 365 days, got {self.initial_delay}")
        if self.max_delay is not None and (
            not isinstance(self.max_delay, timedelta) or not timedelta(0) <= self.max_delay <= longest
        ):
            raise InvalidRetryPolicy(f"max_delay must be from 0 to 365 days, got {self.max_delay}")
        if not isinstance(self.retry_on, frozenset) or not all(
            isinstance(c, ErrorCategory) for c in self.retry_on
        ):
            raise InvalidRetryPolicy(f"retry_on must be a set of error categories, got {self.retry_on!r}")

    def retries(self, category: ErrorCategory) -> bool:
        return category in self.retry_on and category not in NEVER_RETRIED


# The seed's own example policy (§3.2); used for a step that names none.
DEFAULT_RETRY_POLICY = RetryPolicy(
    max_retries=3,
    backoff=Backoff.EXPONENTIAL,
    initial_delay=timedelta(seconds=1),
    max_delay=timedelta(seconds=60),
)


def next_delay(policy: RetryPolicy, retry: int) -> timedelta:
    """The wait before retry number ``retry`` (1 for the first retry), capped at ``max_delay``.

    constant: d, d, d; linear: d, 2d, 3d; exponential: d, 2d, 4d, 8d (seed §3.2).
    """
    if retry < 1:
        raise ValueError(f"retries are numbered from 1, got {retry}")
    initial = policy.initial_delay.total_seconds()
    if policy.backoff is Backoff.CONSTANT:
        seconds = initial
    elif policy.backoff is Backoff.LINEAR:
        seconds = initial * retry
    else:
        seconds = initial * 2.0 ** min(retry - 1, 64)  # floats: no overflow on absurd retry counts
    cap = policy.max_delay.total_seconds() if policy.max_delay is not None else LONGEST_DELAY_SECONDS
    return timedelta(seconds=min(seconds, cap, LONGEST_DELAY_SECONDS))


class FailureAction(StrEnum):
    RETRY = "retry"  # running -> pending, claimable again at next_attempt_at
    ESCALATE = "escalate"  # governance: the step waits for a reviewer, the workflow blocks
    SKIP = "skip"  # running -> skipped, the steps after it may run
    FAIL = "fail"  # running -> failed, the workflow aborts or compensates


@dataclass(frozen=True)
class FailureDecision:
    """What a failed attempt leads to; a retry, and only a retry, waits ``delay`` (zero to 365 days)."""

    action: FailureAction
    delay: timedelta | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.action, FailureAction):
            raise ValueError(f"action must be a FailureAction, got {self.action!r}")
        if self.action is FailureAction.RETRY:
            check_duration("a retry's delay", self.delay, zero=True)
        elif self.delay is not None:
            raise ValueError(f"only a retry waits: {self.action} has no delay")


def decide_step_failure(
    category: ErrorCategory, policy: RetryPolicy, attempt: int, on_failure: OnFailure
) -> FailureDecision:
    """What a failed attempt (``attempt`` counts from 1) leads to, per seed §3.1 and §3.3."""
    if category is ErrorCategory.GOVERNANCE:
        return FailureDecision(FailureAction.ESCALATE)
    if policy.retries(category) and attempt <= policy.max_retries:
        return FailureDecision(FailureAction.RETRY, next_delay(policy, attempt))
    return settle_failed_step(on_failure)


def decide_heartbeat_timeout(policy: RetryPolicy, attempt: int, on_failure: OnFailure) -> FailureDecision:
    """A claimed step whose worker stopped heartbeating (Temporal's semantics).

    Its category is ``timeout``, but unlike a step that ran past its own timeout (never retried, §3.1)
    nothing judged the work: the worker vanished. So the step's retry policy decides, whatever its
    ``retryOn``: retried while attempts are left, then ``onFailure``.
    """
    if attempt <= policy.max_retries:
        return FailureDecision(FailureAction.RETRY, next_delay(policy, attempt))
    return settle_failed_step(on_failure)


def settle_failed_step(on_failure: OnFailure) -> FailureDecision:
    """A failure that will not be retried: skip the step, or fail it (the workflow then aborts or undoes)."""
    if on_failure is OnFailure.SKIP:
        return FailureDecision(FailureAction.SKIP)
    return FailureDecision(FailureAction.FAIL)
