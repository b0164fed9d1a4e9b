"""Plan and step machines against an independent copy of seed 000's tables, and derive_plan_status."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.machines.errors import InvalidTransition
from server.machines.plan import (
    PLAN_MACHINE,
    STEP_MACHINE,
    VALID_PLAN_TRANSITIONS,
    VALID_STEP_TRANSITIONS,
    PlanStatus,
    StepStatus,
    can_transition_plan,
    can_transition_step,
    derive_plan_status,
    transition_plan,
    transition_step,
)

# Typed straight from seed 000 ("Valid Plan Transitions" / "Valid Step Transitions"); never derived
# from server/machines, so a change to the code's table cannot silently change the expectation.
SEED_PLAN_STATES = {"planning", "executing", "awaiting_review", "stalled", "completed", "failed"}
SEED_PLAN_TRANSITIONS = {
    ("planning", "executing"),
    ("planning", "failed"),
    ("executing", "awaiting_review"),
    ("executing", "stalled"),
    ("executing", "completed"),
    ("executing", "failed"),
    ("awaiting_review", "executing"),
    ("awaiting_review", "failed"),
    ("stalled", "executing"),
    ("stalled", "failed"),
}

SEED_STEP_STATES = {"pending", "in_progress", "awaiting_input", "completed", "skipped", "failed"}
SEED_STEP_TRANSITIONS = {
    ("pending", "in_progress"),
    ("pending", "skipped"),
    ("in_progress", "awaiting_input"),
    ("in_progress", "completed"),
    ("in_progress", "failed"),
    ("awaiting_input", "in_progress"),
    ("awaiting_input", "completed"),
    ("awaiting_input", "skipped"),
    ("awaiting_input", "failed"),
    ("failed", "pending"),
}

SEED_TERMINAL_STEP_STATES = {"completed", "skipped", "failed"}  # terminal for derivePlanStatus

ALL_PLAN_PAIRS = sorted(itertools.product(SEED_PLAN_STATES, repeat=2))
ALL_STEP_PAIRS = sorted(itertools.product(SEED_STEP_STATES, repeat=2))


def _pair_id(pair: tuple[str, str]) -> str:
    return f"{pair[0]}->{pair[1]}"


# --- state sets and whole tables -------------------------------------------------------------------


def test_plan_states_are_exactly_the_six_seed_states() -> None:
    assert {s.value for s in PlanStatus} == SEED_PLAN_STATES
    assert {s.value for s in PLAN_MACHINE.states} == SEED_PLAN_STATES


def test_step_states_are_exactly_the_six_seed_states() -> None:
    assert {s.value for s in StepStatus} == SEED_STEP_STATES
    assert {s.value for s in STEP_MACHINE.states} == SEED_STEP_STATES


def test_plan_transition_table_equals_seed_table() -> None:
    code_pairs = {(a.value, b.value) for a, targets in VALID_PLAN_TRANSITIONS.items() for b in targets}
    assert code_pairs == SEED_PLAN_TRANSITIONS
    assert {(a.value, b.value) for a, b in PLAN_MACHINE.edges()} == SEED_PLAN_TRANSITIONS


def test_step_transition_table_equals_seed_table() -> None:
    code_pairs = {(a.value, b.value) for a, targets in VALID_STEP_TRANSITIONS.items() for b in targets}
    assert code_pairs == SEED_STEP_TRANSITIONS
    assert {(a.value, b.value) for a, b in STEP_MACHINE.edges()} == SEED_STEP_TRANSITIONS


def test_plan_starts_in_planning_and_step_starts_in_pending() -> None:
    assert PLAN_MACHINE.initial == "planning"
    assert STEP_MACHINE.initial == "pending"


def test_final_states_are_completed_failed_for_plans_and_completed_skipped_for_steps() -> None:
    assert {s.value for s in PLAN_MACHINE.final} == {"completed", "failed"}
    assert {s.value for s in STEP_MACHINE.final} == {"completed", "skipped"}


# --- every (from, to) pair -------------------------------------------------------------------------


@pytest.mark.parametrize("pair", ALL_PLAN_PAIRS, ids=_pair_id)
def test_can_transition_plan_allows_exactly_the_seed_edges(pair: tuple[str, str]) -> None:
    from_state, to_state = PlanStatus(pair[0]), PlanStatus(pair[1])
    assert can_transition_plan(from_state, to_state) is (pair in SEED_PLAN_TRANSITIONS)


@pytest.mark.parametrize("pair", ALL_PLAN_PAIRS, ids=_pair_id)
def test_transition_plan_returns_target_or_raises_invalid_transition_with_both_states(
    pair: tuple[str, str],
) -> None:
    from_state, to_state = PlanStatus(pair[0]), PlanStatus(pair[1])
    if pair in SEED_PLAN_TRANSITIONS:
        assert transition_plan(from_state, to_state) == to_state
        return
    with pytest.raises(InvalidTransition) as caught:
        transition_plan(from_state, to_state)
    error = caught.value
    assert error.entity == "plan"
    assert error.from_state == pair[0]
    assert error.to_state == pair[1]
    assert pair[0] in str(error)
    assert pair[1] in str(error)


@pytest.mark.parametrize("pair", ALL_STEP_PAIRS, ids=_pair_id)
def test_can_transition_step_allows_exactly_the_seed_edges(pair: tuple[str, str]) -> None:
    from_state, to_state = StepStatus(pair[0]), StepStatus(pair[1])
    assert can_transition_step(from_state, to_state) is (pair in SEED_STEP_TRANSITIONS)


@pytest.mark.parametrize("pair", ALL_STEP_PAIRS, ids=_pair_id)
def test_transition_step_returns_target_or_raises_invalid_transition_with_both_states(
    pair: tuple[str, str],
) -> None:
    from_state, to_state = StepStatus(pair[0]), StepStatus(pair[1])
    if pair in SEED_STEP_TRANSITIONS:
        assert transition_step(from_state, to_state) == to_state
        return
    with pytest.raises(InvalidTransition) as caught:
        transition_step(from_state, to_state)
    error = caught.value
    assert error.entity == "step"
    assert error.from_state == pair[0]
    assert error.to_state == pair[1]
    assert pair[0] in str(error)
    assert pair[1] in str(error)


# --- terminal states and the retry path ------------------------------------------------------------


@pytest.mark.parametrize("terminal", ["completed", "failed"])
def test_terminal_plan_state_has_no_exits(terminal: str) -> None:
    assert [t for t in PlanStatus if can_transition_plan(PlanStatus(terminal), t)] == []


@pytest.mark.parametrize("terminal", ["completed", "skipped"])
def test_terminal_step_state_has_no_exits(terminal: str) -> None:
    assert [t for t in StepStatus if can_transition_step(StepStatus(terminal), t)] == []


def test_failed_step_can_only_be_retried_back_to_pending() -> None:
    exits = [t.value for t in StepStatus if can_transition_step(StepStatus.FAILED, t)]
    assert exits == ["pending"]


def test_retried_step_can_run_again_after_failing() -> None:
    state = StepStatus.PENDING
    for nxt in ("in_progress", "failed", "pending", "in_progress", "completed"):
        state = transition_step(state, StepStatus(nxt))
    assert state == "completed"


def test_stalled_plan_resumes_to_executing() -> None:
    assert transition_plan(PlanStatus.STALLED, PlanStatus.EXECUTING) == "executing"


# --- derive_plan_status: seed examples -------------------------------------------------------------


def _derive(*statuses: str) -> str:
    return derive_plan_status([StepStatus(s) for s in statuses]).value


def test_derive_no_steps_is_planning() -> None:
    assert _derive() == "planning"


def test_derive_failed_step_with_pending_step_keeps_executing() -> None:
    assert _derive("completed", "failed", "pending") == "executing"


def test_derive_all_terminal_including_failed_is_completed_not_failed() -> None:
    assert _derive("completed", "failed", "skipped") == "completed"


def test_derive_awaiting_input_wins_over_failed_step() -> None:
    assert _derive("failed", "awaiting_input") == "awaiting_review"


# --- derive_plan_status: rule order ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("statuses", "expected"),
    [
        # rule 2 beats rule 3: every other step terminal, one awaiting input
        (("completed", "skipped", "failed", "awaiting_input"), "awaiting_review"),
        # rule 2 beats rule 4: other steps still running or pending
        (("in_progress", "pending", "awaiting_input"), "awaiting_review"),
        (("awaiting_input",), "awaiting_review"),
        (("awaiting_input", "awaiting_input"), "awaiting_review"),
        # rule 3: any mix of completed, skipped and failed
        (("completed",), "completed"),
        (("skipped",), "completed"),
        (("failed",), "completed"),
        (("failed", "failed"), "completed"),
        (("skipped", "completed"), "completed"),
        # rule 4: anything not terminal and not awaiting input
        (("pending",), "executing"),
        (("in_progress",), "executing"),
        (("completed", "in_progress"), "executing"),
        (("skipped", "pending"), "executing"),
        (("pending", "pending", "pending"), "executing"),
    ],
    ids=lambda v: ",".join(v) if isinstance(v, tuple) else v,
)
def test_derive_applies_rules_in_seed_order(statuses: tuple[str, ...], expected: str) -> None:
    assert _derive(*statuses) == expected


def test_derive_accepts_a_one_shot_iterator() -> None:
    statuses = iter([StepStatus.COMPLETED, StepStatus.PENDING])
    assert derive_plan_status(statuses) == "executing"


def _derive_by_seed_rules(statuses: list[str]) -> str:
    if len(statuses) == 0:
        return "planning"
    for status in statuses:
        if status == "awaiting_input":
            return "awaiting_review"
    if all(status in SEED_TERMINAL_STEP_STATES for status in statuses):
        return "completed"
    return "executing"


@given(st.lists(st.sampled_from(sorted(SEED_STEP_STATES)), max_size=12))
def test_derive_matches_the_four_ordered_seed_rules(statuses: list[str]) -> None:
    derived = derive_plan_status([StepStatus(s) for s in statuses])
    assert derived.value == _derive_by_seed_rules(statuses)
    assert derived not in {PlanStatus.FAILED, PlanStatus.STALLED}
