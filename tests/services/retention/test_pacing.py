"""Archival and retention batches are sized to hold the write lock about HOLD_TARGET_SECONDS."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from server.services.retention.pacing import (
    FIRST,
    HOLD_TARGET_SECONDS,
    MAX_PAUSE_SECONDS,
    PAUSE_FACTOR,
    SMALLEST,
    BatchSizer,
    Paced,
    pause_for,
)


def test_a_batch_that_held_the_lock_too_long_makes_the_next_smaller_in_proportion() -> None:
    sizer = BatchSizer(1_000)
    assert sizer.size == FIRST
    sizer.held(HOLD_TARGET_SECONDS * 4)  # four times too long
    assert sizer.size == FIRST // 4
    sizer.held(HOLD_TARGET_SECONDS * 1_000)
    assert sizer.size == SMALLEST  # never below


def test_a_quick_batch_lets_the_next_grow_at_most_twofold_up_to_the_largest() -> None:
    sizer = BatchSizer(1_000)
    sizer.held(HOLD_TARGET_SECONDS / 100)
    assert sizer.size == 2 * FIRST
    for _ in range(10):
        sizer.held(0.0)
    assert sizer.size == 1_000
    small = BatchSizer(3)
    assert small.size == 3
    small.held(HOLD_TARGET_SECONDS * 100)
    assert small.size == 3  # a largest below SMALLEST is the size


@given(
    largest=st.integers(1, 100_000),
    holds=st.lists(st.floats(0, 10, allow_nan=False), max_size=30),
)
@example(largest=1, holds=[5e-324])  # the division overflowed to infinity
@example(largest=1_000, holds=[float("inf"), 0.0, 1e-300])
def test_the_size_stays_between_the_smallest_and_the_largest(largest: int, holds: list[float]) -> None:
    sizer = BatchSizer(largest)
    for seconds in holds:
        before = sizer.size
        sizer.held(seconds)
        assert min(SMALLEST, largest) <= sizer.size <= largest
        assert sizer.size <= 2 * before


async def test_each_batch_after_the_first_waits_in_proportion_to_how_long_the_last_held_the_lock() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    held = iter([0.002, 0.004, 10.0])
    times = iter([0.0, next(held), 1.0, 1.0 + next(held), 2.0, 2.0 + next(held)])
    paced = Paced(1_000, timer=lambda: next(times), sleep=sleep)
    for _ in range(3):
        async with paced.batch():
            pass
    # None before the first batch; then PAUSE_FACTOR times each hold.
    assert waits == [pytest.approx(0.002 * PAUSE_FACTOR), pytest.approx(0.004 * PAUSE_FACTOR)]
    assert paced.held == 10.0
    assert pause_for(paced.held) == MAX_PAUSE_SECONDS  # the pause before a fourth, capped
    assert pause_for(0.0) == 0.0
