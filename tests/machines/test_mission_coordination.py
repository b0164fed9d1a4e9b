"""Seed 004's coordination tables as pure checks: every (mission state, hop state) and (hop state, tool
step state) combination, against an independent copy of the seed's rows plus our decided ones."""

from __future__ import annotations

import itertools

import pytest

from server.machines.mission import HopStatus, MissionStatus, ToolStepStatus
from server.machines.mission_coordination import (
    HopView,
    coordination_problems,
    hop_step_problems,
    mission_hop_problems,
)

# seed 004 "Mission-Hop Coordination", plus our rows for the states it does not list
MISSION_HOP = {
    "APPROVED": set(),
    "BUILDING_HOP": {"PLAN_PROPOSED", "READY_FOR_IMPLEMENTATION", "IMPLEMENTATION_PROPOSED", "FAILED"},
    "HOP_READY": {"READY_FOR_EXECUTION"},
    "EXECUTING_HOP": {"EXECUTING"},
    "COMPLETED": {"COMPLETED"},
    "PROPOSED": set(),
    "FAILED": {"FAILED"},
    "CANCELLED": set(),
}
# seed 004 "Hop-Tool Step Coordination", plus ours
HOP_STEP = {
    "PLAN_PROPOSED": set(),
    "READY_FOR_IMPLEMENTATION": set(),
    "IMPLEMENTATION_PROPOSED": {"PROPOSED", "READY_TO_CONFIGURE", "READY_TO_EXECUTE", "FAILED"},
    "READY_FOR_EXECUTION": {"READY_TO_EXECUTE"},
    "EXECUTING": {"EXECUTING", "COMPLETED"},
    "COMPLETED": {"COMPLETED"},
    "FAILED": {"EXECUTING", "COMPLETED", "FAILED"},
    "CANCELLED": {"COMPLETED"},
}
NEEDS_STEPS = {"IMPLEMENTATION_PROPOSED", "READY_FOR_EXECUTION", "EXECUTING", "COMPLETED"}


def _hop(status: str, *steps: str, final: bool = False) -> HopView:
    return HopView("h", HopStatus(status), final, tuple(ToolStepStatus(s) for s in steps))


def _steps_for(status: str) -> tuple[str, ...]:
    """A step set valid for a hop in ``status`` (so only the mission <-> hop rule is under test)."""
    return {
        "IMPLEMENTATION_PROPOSED": ("PROPOSED",),
        "READY_FOR_EXECUTION": ("READY_TO_EXECUTE",),
        "EXECUTING": ("EXECUTING",),
        "COMPLETED": ("COMPLETED",),
    }.get(status, ())


@pytest.mark.parametrize(
    ("mission", "hop"), sorted(itertools.product(MISSION_HOP, HOP_STEP)), ids=lambda v: str(v)
)
def test_mission_with_one_hop_is_valid_exactly_when_the_table_allows_the_pair(mission: str, hop: str) -> None:
    view = _hop(hop, *_steps_for(hop), final=mission == "COMPLETED")
    problems = mission_hop_problems("m", MissionStatus(mission), [view])
    if hop in ("COMPLETED", "CANCELLED") and mission != "COMPLETED":
        # a finished hop is the mission's past: fine wherever no hop must be in progress
        expected_ok = not MISSION_HOP[mission]
    else:
        expected_ok = hop in MISSION_HOP[mission]
    assert (problems == []) is expected_ok, problems


@pytest.mark.parametrize("mission", sorted(MISSION_HOP))
def test_mission_without_hops_is_valid_only_where_no_hop_is_needed(mission: str) -> None:
    problems = mission_hop_problems("m", MissionStatus(mission), [])
    assert (problems == []) is (not MISSION_HOP[mission])


@pytest.mark.parametrize(
    ("hop", "step"),
    sorted(itertools.product(HOP_STEP, [s.value for s in ToolStepStatus])),
    ids=lambda v: str(v),
)
def test_hop_with_one_tool_step_is_valid_exactly_when_the_table_allows_the_pair(hop: str, step: str) -> None:
    problems = hop_step_problems(_hop(hop, step))
    # a cancelled step is history: the hop then has no live step, which only some states allow
    expected_ok = hop not in NEEDS_STEPS if step == "CANCELLED" else step in HOP_STEP[hop]
    if hop == "FAILED" and step not in ("FAILED", "CANCELLED"):
        expected_ok = False  # a hop failed in execution has a failed step
    assert (problems == []) is expected_ok, problems


@pytest.mark.parametrize("hop", sorted(HOP_STEP))
def test_hop_without_live_steps_is_valid_only_before_implementation_failed_or_cancelled(hop: str) -> None:
    valid = hop not in NEEDS_STEPS
    assert (hop_step_problems(_hop(hop)) == []) is valid
    # cancelled steps of a rejected implementation do not count as steps
    assert (hop_step_problems(_hop(hop, "CANCELLED", "CANCELLED")) == []) is valid


def test_executing_hop_with_every_step_running_or_done_is_valid_and_one_left_ready_is_not() -> None:
    assert hop_step_problems(_hop("EXECUTING", "EXECUTING", "COMPLETED", "CANCELLED")) == []
    [problem] = hop_step_problems(_hop("EXECUTING", "EXECUTING", "READY_TO_EXECUTE"))
    assert "READY_TO_EXECUTE" in problem


def test_two_hops_in_progress_break_the_mission_table() -> None:
    hops = [HopView("a", HopStatus.PLAN_PROPOSED), HopView("b", HopStatus.PLAN_PROPOSED)]
    assert any("2 hops in progress" in p for p in mission_hop_problems("m", MissionStatus.BUILDING_HOP, hops))


def test_completed_mission_needs_its_final_hop_completed() -> None:
    done = HopView("a", HopStatus.COMPLETED, True, (ToolStepStatus.COMPLETED,))
    not_final = HopView("a", HopStatus.COMPLETED, False, (ToolStepStatus.COMPLETED,))
    assert coordination_problems("m", MissionStatus.COMPLETED, [done]) == []
    assert coordination_problems("m", MissionStatus.COMPLETED, [not_final]) != []
    # ... and a completed final hop means the mission is completed
    assert coordination_problems("m", MissionStatus.APPROVED, [done]) != []


def test_history_of_completed_and_cancelled_hops_beside_the_one_in_progress_is_valid() -> None:
    hops = [
        HopView("1", HopStatus.COMPLETED, False, (ToolStepStatus.COMPLETED,)),
        HopView("2", HopStatus.CANCELLED),
        HopView("3", HopStatus.EXECUTING, True, (ToolStepStatus.EXECUTING, ToolStepStatus.CANCELLED)),
    ]
    assert coordination_problems("m", MissionStatus.EXECUTING_HOP, hops) == []
    assert coordination_problems("m", MissionStatus.HOP_READY, hops) != []


def test_the_registered_coordination_tables_have_a_row_for_every_state() -> None:
    from server.machines.registry import COORDINATION

    tables = {title: table for _, title, _, table in COORDINATION}
    assert set(tables["mission and hop"]) == set(MissionStatus)
    assert set(tables["hop and tool steps"]) == set(HopStatus)
    assert {k.value: {s.value for s in v} for k, v in tables["mission and hop"].items()} == MISSION_HOP
    assert {k.value: {s.value for s in v} for k, v in tables["hop and tool steps"].items()} == HOP_STEP
