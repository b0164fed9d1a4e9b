"""Stall detection (seed 001): pure functions of the steps, a fixed ``now`` and a threshold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.machines.stall import (
    DEFAULT_STALL_THRESHOLD,
    StepTimestamp,
    detect_stalled_steps,
    is_plan_stalled,
    stall_threshold_problem,
)

NOW = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)
NON_RUNNING_STATUSES = ["pending", "awaiting_input", "completed", "skipped", "failed"]


def _ago(**delta: float) -> datetime:
    return NOW - timedelta(**delta)


def _step(
    step_id: str,
    status: str = "in_progress",
    started_at: datetime | None = None,
    updated_at: datetime = NOW,
) -> StepTimestamp:
    return StepTimestamp(id=step_id, status=status, started_at=started_at, updated_at=updated_at)


# --- seed 001 examples -----------------------------------------------------------------------------


def test_falls_back_to_updated_at_when_started_at_is_null() -> None:
    step = _step("s1", started_at=None, updated_at=_ago(minutes=45))
    assert detect_stalled_steps([step], NOW) == ["s1"]


def test_started_at_is_preferred_over_a_recent_updated_at() -> None:
    step = _step("s1", started_at=_ago(minutes=45), updated_at=_ago(minutes=1))
    assert detect_stalled_steps([step], NOW) == ["s1"]


def test_recent_started_at_is_not_stalled_even_with_an_old_updated_at() -> None:
    step = _step("s1", started_at=_ago(minutes=1), updated_at=_ago(minutes=45))
    assert detect_stalled_steps([step], NOW) == []


def test_returns_ids_of_all_stalled_steps_in_input_order() -> None:
    steps = [
        _step("a", started_at=_ago(minutes=31)),
        _step("b", started_at=_ago(minutes=5)),
        _step("c", started_at=None, updated_at=_ago(hours=2)),
        _step("d", started_at=_ago(minutes=90)),
    ]
    assert detect_stalled_steps(steps, NOW) == ["a", "c", "d"]


def test_no_steps_means_nothing_stalled() -> None:
    assert detect_stalled_steps([], NOW) == []
    assert is_plan_stalled([], NOW) is False


# --- only in_progress counts -----------------------------------------------------------------------


@pytest.mark.parametrize("status", NON_RUNNING_STATUSES)
def test_step_not_in_progress_is_never_stalled_however_old(status: str) -> None:
    step = _step("s1", status=status, started_at=_ago(days=3), updated_at=_ago(days=3))
    assert detect_stalled_steps([step], NOW) == []
    assert is_plan_stalled([step], NOW) is False


def test_only_the_in_progress_step_is_reported_among_old_steps() -> None:
    steps = [_step(s, status=s, started_at=_ago(hours=5)) for s in [*NON_RUNNING_STATUSES, "in_progress"]]
    assert detect_stalled_steps(steps, NOW) == ["in_progress"]


# --- threshold -------------------------------------------------------------------------------------


def test_default_threshold_is_thirty_minutes() -> None:
    assert timedelta(minutes=30) == DEFAULT_STALL_THRESHOLD


def test_exactly_the_threshold_is_not_stalled() -> None:
    step = _step("s1", started_at=NOW - DEFAULT_STALL_THRESHOLD)
    assert detect_stalled_steps([step], NOW) == []


def test_one_microsecond_past_the_threshold_is_stalled() -> None:
    step = _step("s1", started_at=NOW - DEFAULT_STALL_THRESHOLD - timedelta(microseconds=1))
    assert detect_stalled_steps([step], NOW) == ["s1"]


def test_default_threshold_applies_when_none_is_passed() -> None:
    steps = [
        _step("under", started_at=_ago(minutes=29, seconds=59)),
        _step("over", started_at=_ago(minutes=31)),
    ]
    assert detect_stalled_steps(steps, NOW) == ["over"]


def test_exactly_a_per_call_threshold_is_not_stalled_and_just_past_it_is() -> None:
    threshold = timedelta(minutes=5)
    at = _step("at", started_at=NOW - threshold)
    past = _step("past", started_at=NOW - threshold - timedelta(microseconds=1))
    assert detect_stalled_steps([at, past], NOW, threshold) == ["past"]


def test_shorter_per_call_threshold_catches_a_step_the_default_would_not() -> None:
    step = _step("s1", started_at=_ago(minutes=15))
    assert detect_stalled_steps([step], NOW) == []
    assert detect_stalled_steps([step], NOW, timedelta(minutes=10)) == ["s1"]
    assert detect_stalled_steps([step], NOW, threshold=timedelta(minutes=10)) == ["s1"]


def test_longer_per_call_threshold_spares_a_step_the_default_would_flag() -> None:
    step = _step("s1", started_at=None, updated_at=_ago(minutes=45))
    assert detect_stalled_steps([step], NOW) == ["s1"]
    assert detect_stalled_steps([step], NOW, timedelta(hours=1)) == []


def test_step_started_after_now_is_not_stalled() -> None:
    step = _step("s1", started_at=NOW + timedelta(minutes=45))
    assert detect_stalled_steps([step], NOW) == []


# --- is_plan_stalled -------------------------------------------------------------------------------


def test_plan_is_stalled_when_any_in_progress_step_is_stalled() -> None:
    steps = [
        _step("done", status="completed", started_at=_ago(hours=3)),
        _step("fresh", started_at=_ago(minutes=2)),
        _step("stuck", started_at=_ago(minutes=40)),
    ]
    assert is_plan_stalled(steps, NOW) is True


def test_plan_is_not_stalled_when_every_in_progress_step_is_within_threshold() -> None:
    steps = [
        _step("done", status="completed", started_at=_ago(hours=3)),
        _step("fresh", started_at=_ago(minutes=30)),
    ]
    assert is_plan_stalled(steps, NOW) is False


def test_is_plan_stalled_honours_a_per_call_threshold() -> None:
    steps = [_step("s1", started_at=_ago(minutes=45))]
    assert is_plan_stalled(steps, NOW, timedelta(hours=1)) is False
    assert is_plan_stalled(steps, NOW, threshold=timedelta(minutes=44)) is True


def test_is_plan_stalled_accepts_a_one_shot_iterator() -> None:
    steps = iter([_step("s1", started_at=_ago(minutes=45))])
    assert is_plan_stalled(steps, NOW) is True


# --- property: agrees with a re-statement of the seed's four steps ---------------------------------

_statuses = st.sampled_from([*NON_RUNNING_STATUSES, "in_progress"])
_offsets = st.integers(min_value=-3 * 3600, max_value=3 * 3600).map(lambda s: timedelta(seconds=s))


@st.composite
def _steps(draw: st.DrawFn) -> list[StepTimestamp]:
    count = draw(st.integers(min_value=0, max_value=8))
    result = []
    for i in range(count):
        started = draw(st.none() | _offsets)
        updated = draw(_offsets)
        result.append(
            StepTimestamp(
                id=f"s{i}",
                status=draw(_statuses),
                started_at=None if started is None else NOW - started,
                updated_at=NOW - updated,
            )
        )
    return result


@given(_steps(), st.integers(min_value=0, max_value=2 * 3600).map(lambda s: timedelta(seconds=s)))
def test_detection_matches_the_seed_algorithm(steps: list[StepTimestamp], threshold: timedelta) -> None:
    expected = []
    for step in steps:
        if step.status != "in_progress":
            continue
        reference = step.updated_at if step.started_at is None else step.started_at
        if (NOW - reference) > threshold:
            expected.append(step.id)
    assert detect_stalled_steps(steps, NOW, threshold) == expected
    assert is_plan_stalled(steps, NOW, threshold) is (len(expected) > 0)


@pytest.mark.parametrize("seconds", [0, -1, 365 * 86400 + 1, 1e308, float("inf"), float("nan")])
def test_a_stall_threshold_outside_zero_to_a_year_is_a_problem(seconds: float) -> None:
    assert stall_threshold_problem(seconds) == "stallThresholdSeconds must be in (0, 31536000]"


@pytest.mark.parametrize("seconds", [0.001, 1800, 365 * 86400])
def test_a_stall_threshold_up_to_a_year_is_fine(seconds: float) -> None:
    assert stall_threshold_problem(seconds) is None
