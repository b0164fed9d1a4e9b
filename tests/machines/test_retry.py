"""Back-off sequences (seed 002 §3.2), durations, and what a failure leads to (§3.1, §3.3)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.machines.durations import BadDuration, format_duration, parse_duration
from server.machines.retry import (
    DEFAULT_RETRY_POLICY,
    Backoff,
    ErrorCategory,
    FailureAction,
    RetryPolicy,
    decide_step_failure,
    next_delay,
)
from server.machines.workflow import OnFailure

E = ErrorCategory


def seconds(policy: RetryPolicy, retries: int) -> list[float]:
    return [next_delay(policy, n).total_seconds() for n in range(1, retries + 1)]


def policy(backoff: str, initial: float, cap: float | None = None, **kw: object) -> RetryPolicy:
    return RetryPolicy(
        max_retries=kw.pop("max_retries", 3),  # type: ignore[arg-type]
        backoff=Backoff(backoff),
        initial_delay=timedelta(seconds=initial),
        max_delay=timedelta(seconds=cap) if cap is not None else None,
        **kw,  # type: ignore[arg-type]
    )


def test_constant_backoff_is_the_seeds_5s_5s_5s() -> None:
    assert seconds(policy("constant", 5), 3) == [5, 5, 5]


def test_linear_backoff_is_the_seeds_5s_10s_15s() -> None:
    assert seconds(policy("linear", 5), 3) == [5, 10, 15]


def test_exponential_backoff_is_the_seeds_1s_2s_4s_8s() -> None:
    assert seconds(policy("exponential", 1), 4) == [1, 2, 4, 8]


def test_max_delay_caps_every_strategy() -> None:
    assert seconds(policy("exponential", 1, cap=60), 8) == [1, 2, 4, 8, 16, 32, 60, 60]
    assert seconds(policy("linear", 5, cap=12), 4) == [5, 10, 12, 12]
    assert seconds(policy("constant", 5, cap=3), 2) == [3, 3]


def test_an_absurd_retry_number_does_not_overflow() -> None:
    assert next_delay(policy("exponential", 1, cap=60), 10_000) == timedelta(seconds=60)
    assert next_delay(policy("exponential", 1), 10_000) == timedelta(days=365)


def test_retries_are_numbered_from_one() -> None:
    with pytest.raises(ValueError, match="from 1"):
        next_delay(policy("constant", 5), 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        *[("5m", 300), ("30m", 1800), ("1s", 1), ("60s", 60), ("500ms", 0.5), ("2h", 7200), ("1d", 86400)],
        *[("1h30m", 5400), ("1.5s", 1.5), (" 5m ", 300)],
    ],
)
def test_durations_parse_like_the_seed_writes_them(text: str, expected: float) -> None:
    assert parse_duration(text).total_seconds() == expected


@pytest.mark.parametrize("text", ["", "5", "m", "5 m", "5min", "-5s", "0s", "5m3", "1h 30m", "1e3s"])
def test_anything_else_is_not_a_duration(text: str) -> None:
    with pytest.raises(BadDuration):
        parse_duration(text)


@pytest.mark.parametrize("text", ["366d", "99999999999d", "9" * 400 + "d", "8761h"])
def test_a_duration_longer_than_a_year_is_refused_before_it_overflows_a_datetime(text: str) -> None:
    with pytest.raises(BadDuration, match="longest"):
        parse_duration(text)
    assert parse_duration("365d") == timedelta(days=365)


@pytest.mark.parametrize(("text", "shown"), [("5m", "5m"), ("90s", "90s"), ("1h30m", "90m"), ("1d", "1d")])
def test_durations_format_back_exactly(text: str, shown: str) -> None:
    assert format_duration(parse_duration(text)) == shown
    assert format_duration(timedelta(milliseconds=1500)) == "1500ms"


# --- decide_step_failure -----------------------------------------------------------------------------


def test_a_transient_error_is_retried_with_back_off_until_max_retries() -> None:
    p = DEFAULT_RETRY_POLICY  # 3 retries, exponential 1s..60s
    decisions = [decide_step_failure(E.TRANSIENT, p, attempt, OnFailure.ABORT) for attempt in (1, 2, 3, 4)]
    assert [(d.action, d.delay) for d in decisions] == [
        (FailureAction.RETRY, timedelta(seconds=1)),
        (FailureAction.RETRY, timedelta(seconds=2)),
        (FailureAction.RETRY, timedelta(seconds=4)),
        (FailureAction.FAIL, None),
    ]


@pytest.mark.parametrize("category", [E.AGENT_ERROR, E.EXTERNAL])
def test_agent_and_external_errors_retry_only_when_the_policy_says_so(category: ErrorCategory) -> None:
    assert decide_step_failure(category, DEFAULT_RETRY_POLICY, 1, OnFailure.SKIP).action is FailureAction.SKIP
    opted_in = policy("constant", 5, retry_on=frozenset({E.TRANSIENT, category}))
    assert decide_step_failure(category, opted_in, 1, OnFailure.SKIP).action is FailureAction.RETRY


@pytest.mark.parametrize("category", [E.TIMEOUT, E.VALIDATION])
def test_timeouts_and_validation_errors_are_never_retried(category: ErrorCategory) -> None:
    everything = policy("constant", 5, retry_on=frozenset(ErrorCategory))
    assert decide_step_failure(category, everything, 1, OnFailure.ABORT).action is FailureAction.FAIL
    assert decide_step_failure(category, everything, 1, OnFailure.COMPENSATE).action is FailureAction.FAIL
    assert decide_step_failure(category, everything, 1, OnFailure.SKIP).action is FailureAction.SKIP


def test_a_governance_error_escalates_whatever_the_policy_and_on_failure() -> None:
    everything = policy("constant", 5, retry_on=frozenset(ErrorCategory))
    for on_failure in OnFailure:
        decision = decide_step_failure(E.GOVERNANCE, everything, 1, on_failure)
        assert decision.action is FailureAction.ESCALATE


def test_zero_max_retries_means_the_first_failure_is_final() -> None:
    never = policy("constant", 5, max_retries=0)
    assert decide_step_failure(E.TRANSIENT, never, 1, OnFailure.ABORT).action is FailureAction.FAIL
