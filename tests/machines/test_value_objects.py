"""Values that check themselves: whatever builds one (an input reader, a stored definition, the engine,
a test), a duration, a failure decision, a step tally or a completion order that could misbehave cannot
exist. Each property states what every value the constructor accepts satisfies, over generated input."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.machines.durations import LONGEST_DURATION, BadDuration, check_duration, parse_duration
from server.machines.retry import (
    DEFAULT_RETRY_POLICY,
    Backoff,
    ErrorCategory,
    FailureAction,
    FailureDecision,
    InvalidRetryPolicy,
    RetryPolicy,
    decide_heartbeat_timeout,
    decide_step_failure,
)
from server.machines.workflow import FailurePolicy, OnFailure
from server.machines.workflow_policy import CompletedStep, StepTally, verdict_of
from server.services.workflows.definition import StepDefinition, WorkflowDefinition

deltas = st.timedeltas(min_value=-LONGEST_DURATION * 2, max_value=LONGEST_DURATION * 2)
anything = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=5), deltas)


@given(value=st.one_of(deltas, anything), zero=st.booleans())
def test_a_checked_duration_is_a_timedelta_within_the_longest(value: object, zero: bool) -> None:
    try:
        check_duration("d", value, zero=zero)
    except BadDuration:
        assert not (
            isinstance(value, timedelta)
            and (timedelta(0) <= value if zero else timedelta(0) < value)
            and value <= LONGEST_DURATION
        )
    else:
        assert isinstance(value, timedelta)
        assert (timedelta(0) if zero else timedelta.resolution) <= value <= LONGEST_DURATION


@given(st.text(alphabet="0123456789.smhd", max_size=12))
def test_every_duration_a_definition_can_name_passes_the_check(text: str) -> None:
    try:
        parsed = parse_duration(text)
    except BadDuration:
        return
    check_duration("d", parsed)


@given(action=st.sampled_from(FailureAction), delay=st.one_of(st.none(), deltas))
def test_only_a_retry_waits_and_never_a_negative_or_endless_time(
    action: FailureAction, delay: timedelta | None
) -> None:
    try:
        decision = FailureDecision(action, delay)
    except ValueError:
        fits = delay is not None and timedelta(0) <= delay <= LONGEST_DURATION
        assert (action is FailureAction.RETRY and not fits) or (
            action is not FailureAction.RETRY and delay is not None
        )
    else:
        if decision.action is FailureAction.RETRY:
            assert decision.delay is not None
            assert timedelta(0) <= decision.delay <= LONGEST_DURATION
        else:
            assert decision.delay is None


@given(
    category=st.sampled_from(ErrorCategory),
    attempt=st.integers(min_value=1, max_value=200),
    on_failure=st.sampled_from(OnFailure),
    max_retries=st.integers(min_value=0, max_value=100),
    backoff=st.sampled_from(Backoff),
    initial=st.timedeltas(min_value=timedelta(0), max_value=LONGEST_DURATION),
)
def test_the_engine_only_ever_decides_a_valid_decision(
    category: ErrorCategory,
    attempt: int,
    on_failure: OnFailure,
    max_retries: int,
    backoff: Backoff,
    initial: timedelta,
) -> None:
    """The decisions the engine makes are built through the same checks (none is refused)."""
    policy = RetryPolicy(max_retries, backoff, initial, retry_on=frozenset(ErrorCategory))
    assert isinstance(decide_step_failure(category, policy, attempt, on_failure), FailureDecision)
    assert isinstance(decide_heartbeat_timeout(policy, attempt, on_failure), FailureDecision)


@pytest.mark.parametrize("retry_on", [frozenset({"transient"}), {ErrorCategory.TRANSIENT}, None])
def test_a_retry_policy_retries_only_on_error_categories(retry_on: object) -> None:
    with pytest.raises(InvalidRetryPolicy):
        RetryPolicy(1, Backoff.CONSTANT, timedelta(seconds=1), retry_on=retry_on)  # type: ignore[arg-type]


counts = st.one_of(st.integers(min_value=-3, max_value=5), st.booleans())


@given(failed_compensate=counts, failed=counts, awaiting=counts, unsatisfied=counts)
def test_a_step_tally_is_counts_a_workflow_can_have(
    failed_compensate: int, failed: int, awaiting: int, unsatisfied: int
) -> None:
    values = (failed_compensate, failed, awaiting, unsatisfied)
    try:
        tally = StepTally(*values)
    except ValueError:
        whole = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in values)
        assert not whole or failed_compensate > failed or failed > unsatisfied
    else:
        assert 0 <= tally.failed_compensate <= tally.failed <= tally.unsatisfied
        verdict_of(tally)  # every tally that exists has a verdict


@given(order=st.one_of(st.integers(min_value=-5, max_value=5), st.booleans(), st.floats()))
def test_completion_orders_count_from_one(order: object) -> None:
    try:
        step = CompletedStep("s", order)  # type: ignore[arg-type]
    except ValueError:
        assert isinstance(order, bool) or not isinstance(order, int) or order < 1
    else:
        assert isinstance(step.completion_order, int)
        assert step.completion_order >= 1


def _step(**fields: object) -> StepDefinition:
    values: dict[str, object] = {
        "name": "s",
        "depends_on": (),
        "agent": "a",
        "timeout": None,
        "on_failure": OnFailure.ABORT,
        "retry_policy": DEFAULT_RETRY_POLICY,
        "approval": False,
        "compensation": None,
        **fields,
    }
    return StepDefinition(**values)  # type: ignore[arg-type]


@given(timeout=st.one_of(st.none(), deltas), heartbeat=st.one_of(st.none(), deltas))
def test_a_definition_holds_only_durations_it_could_have_been_written_with(
    timeout: timedelta | None, heartbeat: timedelta | None
) -> None:
    def fits(d: timedelta | None) -> bool:
        return d is None or timedelta(0) < d <= LONGEST_DURATION

    try:
        _step(timeout=timeout, heartbeat_timeout=heartbeat)
        WorkflowDefinition("w", (), timeout, FailurePolicy.ABORT, {})
    except BadDuration:
        assert not (fits(timeout) and fits(heartbeat))
    else:
        assert fits(timeout)
        assert fits(heartbeat)


def test_a_step_definition_takes_a_built_retry_policy_only() -> None:
    with pytest.raises(TypeError):
        _step(retry_policy={"maxRetries": 3})
