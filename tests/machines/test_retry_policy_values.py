"""A retry policy is valid by construction: no path (input reader, stored definition, code) can build one
that yields a negative or unbounded wait or retries without end; none retries what the seed never retries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.machines.retry import (
    LONGEST_DELAY_SECONDS,
    MAX_RETRIES_LIMIT,
    NEVER_RETRIED,
    Backoff,
    ErrorCategory,
    InvalidRetryPolicy,
    RetryPolicy,
    next_delay,
)

LONGEST = timedelta(seconds=LONGEST_DELAY_SECONDS)
any_delta = st.timedeltas(min_value=-LONGEST * 3, max_value=LONGEST * 3)


def build(**fields: object) -> RetryPolicy:
    values: dict[str, object] = {
        "max_retries": 3,
        "backoff": Backoff.EXPONENTIAL,
        "initial_delay": timedelta(seconds=1),
        "max_delay": None,
        **fields,
    }
    return RetryPolicy(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fields",
    [
        {"initial_delay": timedelta(seconds=-5)},
        {"initial_delay": LONGEST + timedelta(seconds=1)},
        {"max_delay": timedelta(seconds=-1)},
        {"max_delay": LONGEST * 2},
        {"max_retries": -1},
        {"max_retries": MAX_RETRIES_LIMIT + 1},
        {"max_retries": True},
        {"max_retries": 2.5},
        {"backoff": "exponential"},
    ],
)
def test_a_policy_that_could_misbehave_cannot_be_built(fields: dict[str, object]) -> None:
    with pytest.raises(InvalidRetryPolicy):
        build(**fields)


@given(
    max_retries=st.integers(min_value=-5, max_value=MAX_RETRIES_LIMIT + 5),
    backoff=st.sampled_from(Backoff),
    initial=any_delta,
    cap=st.none() | any_delta,
    retry_on=st.frozensets(st.sampled_from(ErrorCategory)),
    retry=st.integers(min_value=1, max_value=10_000),
)
def test_every_policy_that_exists_waits_between_zero_and_a_year(
    max_retries: int,
    backoff: Backoff,
    initial: timedelta,
    cap: timedelta | None,
    retry_on: frozenset[ErrorCategory],
    retry: int,
) -> None:
    try:
        policy = RetryPolicy(max_retries, backoff, initial, cap, retry_on)
    except InvalidRetryPolicy:
        return
    assert 0 <= policy.max_retries <= MAX_RETRIES_LIMIT
    assert not any(policy.retries(category) for category in NEVER_RETRIED)
    wait = next_delay(policy, retry)
    assert timedelta(0) <= wait <= LONGEST
    assert policy.max_delay is None or wait <= policy.max_delay
