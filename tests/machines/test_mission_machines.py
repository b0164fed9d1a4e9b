"""Mission, hop, tool step and asset machines against an independent copy of seed 004's tables.

The expected tables are typed here from the seed ("Complete State Transition Validation") plus the
rejection and retry edges DESIGN.md decides, never derived from server/machines: a change to the code's
tables cannot silently change the expectation. Every (from, to) pair of every machine is walked.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from server.machines.errors import InvalidTransition
from server.machines.machine import Machine
from server.machines.mission import (
    ASSET_MACHINE,
    ASSET_RETRY_TARGET,
    HOP_MACHINE,
    HOP_RETRY_TARGET,
    MISSION_MACHINE,
    MISSION_RETRY_TARGET,
    TOOL_STEP_MACHINE,
    TOOL_STEP_RETRY_TARGET,
)
from server.machines.registry import MACHINES, machine_by_entity

MISSION_STATES = {
    "PROPOSED",
    "APPROVED",
    "BUILDING_HOP",
    "HOP_READY",
    "EXECUTING_HOP",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
}
HOP_STATES = {
    "PLAN_PROPOSED",
    "READY_FOR_IMPLEMENTATION",
    "IMPLEMENTATION_PROPOSED",
    "READY_FOR_EXECUTION",
    "EXECUTING",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
}
TOOL_STEP_STATES = {
    "PROPOSED",
    "READY_TO_CONFIGURE",
    "READY_TO_EXECUTE",
    "EXECUTING",
    "COMPLETED",
    "FAILED",
    "CANCELLED",
}
ASSET_STATES = {"PROPOSED", "PENDING", "IN_PROGRESS", "READY", "ERROR", "EXPIRED"}

SEED_MISSION = {
    ("PROPOSED", "APPROVED"),
    ("APPROVED", "BUILDING_HOP"),
    ("BUILDING_HOP", "HOP_READY"),
    ("HOP_READY", "EXECUTING_HOP"),
    ("EXECUTING_HOP", "APPROVED"),
    ("EXECUTING_HOP", "COMPLETED"),
    ("EXECUTING_HOP", "FAILED"),
}
SEED_HOP = {
    ("PLAN_PROPOSED", "READY_FOR_IMPLEMENTATION"),
    ("READY_FOR_IMPLEMENTATION", "IMPLEMENTATION_PROPOSED"),
    ("IMPLEMENTATION_PROPOSED", "READY_FOR_EXECUTION"),
    ("READY_FOR_EXECUTION", "EXECUTING"),
    ("EXECUTING", "COMPLETED"),
    ("EXECUTING", "FAILED"),
    ("READY_FOR_IMPLEMENTATION", "FAILED"),
}
SEED_TOOL_STEP = {
    ("PROPOSED", "READY_TO_CONFIGURE"),
    ("READY_TO_CONFIGURE", "READY_TO_EXECUTE"),
    ("READY_TO_EXECUTE", "EXECUTING"),
    ("EXECUTING", "COMPLETED"),
    ("EXECUTING", "FAILED"),
    ("READY_TO_CONFIGURE", "FAILED"),
}
SEED_ASSET = {
    ("PROPOSED", "PENDING"),
    ("PENDING", "IN_PROGRESS"),
    ("IN_PROGRESS", "READY"),
    ("IN_PROGRESS", "ERROR"),
    ("READY", "ERROR"),
}

# DESIGN.md "Missions": rejection and retry as transitions (docs/decisions/0002-missions.md has the asset's).
REJECTION_AND_RETRY = {
    "mission": {("BUILDING_HOP", "APPROVED"), ("FAILED", "EXECUTING_HOP")},
    "hop": {
        ("IMPLEMENTATION_PROPOSED", "READY_FOR_IMPLEMENTATION"),
        ("FAILED", "EXECUTING"),
        ("FAILED", "READY_FOR_IMPLEMENTATION"),
    },
    "tool_step": {("FAILED", "EXECUTING"), ("FAILED", "READY_TO_CONFIGURE")},
    "asset": {("PROPOSED", "ERROR"), ("ERROR", "PROPOSED"), ("ERROR", "IN_PROGRESS")},
}
FINAL = {
    "mission": {"COMPLETED", "CANCELLED"},
    "hop": {"COMPLETED", "CANCELLED"},
    "tool_step": {"COMPLETED", "CANCELLED"},
    "asset": {"EXPIRED"},
}
# "Any -> CANCELLED" / "Any -> EXPIRED", only from states that are not final.
ANY_TO = {"mission": "CANCELLED", "hop": "CANCELLED", "tool_step": "CANCELLED", "asset": "EXPIRED"}
STATES = {"mission": MISSION_STATES, "hop": HOP_STATES, "tool_step": TOOL_STEP_STATES, "asset": ASSET_STATES}
SEED = {"mission": SEED_MISSION, "hop": SEED_HOP, "tool_step": SEED_TOOL_STEP, "asset": SEED_ASSET}
MACHINE: dict[str, Machine[Any]] = {
    "mission": MISSION_MACHINE,
    "hop": HOP_MACHINE,
    "tool_step": TOOL_STEP_MACHINE,
    "asset": ASSET_MACHINE,
}


def expected_edges(entity: str) -> set[tuple[str, str]]:
    any_edges = {(s, ANY_TO[entity]) for s in STATES[entity] - FINAL[entity] - {ANY_TO[entity]}}
    return SEED[entity] | REJECTION_AND_RETRY[entity] | any_edges


ALL_PAIRS = [
    (entity, a, b)
    for entity in sorted(STATES)
    for a, b in sorted(itertools.product(STATES[entity], repeat=2))
]


@pytest.mark.parametrize("entity", sorted(STATES))
def test_states_are_exactly_the_seeds(entity: str) -> None:
    machine = MACHINE[entity]
    assert {s.value for s in machine.states} == STATES[entity]
    assert {s.value for s in type(machine.initial)} == STATES[entity]


@pytest.mark.parametrize("entity", sorted(STATES))
def test_table_is_the_seeds_plus_rejection_retry_and_any_to_cancelled_or_expired(entity: str) -> None:
    assert {(a.value, b.value) for a, b in MACHINE[entity].edges()} == expected_edges(entity)


@pytest.mark.parametrize(
    ("entity", "initial"),
    [("mission", "PROPOSED"), ("hop", "PLAN_PROPOSED"), ("tool_step", "PROPOSED"), ("asset", "PROPOSED")],
)
def test_initial_state_is_the_seeds_none_row(entity: str, initial: str) -> None:
    assert MACHINE[entity].initial == initial


@pytest.mark.parametrize("entity", sorted(STATES))
def test_final_states_have_no_exits_and_failure_states_are_not_final(entity: str) -> None:
    machine = MACHINE[entity]
    assert {s.value for s in machine.final} == FINAL[entity]
    for state in machine.final:
        assert machine.transitions[state] == frozenset()
    failure = "ERROR" if entity == "asset" else "FAILED"
    assert failure not in FINAL[entity]  # retry leaves it


@pytest.mark.parametrize(("entity", "from_state", "to_state"), ALL_PAIRS, ids=lambda v: str(v))
def test_every_pair_is_allowed_exactly_when_the_table_has_it(
    entity: str, from_state: str, to_state: str
) -> None:
    machine = MACHINE[entity]
    states = type(machine.initial)
    allowed = (from_state, to_state) in expected_edges(entity)
    assert machine.can(states(from_state), states(to_state)) is allowed
    if allowed:
        assert machine.check(states(from_state), states(to_state)) == to_state
        return
    with pytest.raises(InvalidTransition) as caught:
        machine.check(states(from_state), states(to_state), entity_id="x-1")
    assert (caught.value.entity, caught.value.from_state, caught.value.to_state) == (
        entity,
        from_state,
        to_state,
    )


@pytest.mark.parametrize(
    ("machine", "targets"),
    [
        (MISSION_MACHINE, MISSION_RETRY_TARGET),
        (HOP_MACHINE, HOP_RETRY_TARGET),
        (TOOL_STEP_MACHINE, TOOL_STEP_RETRY_TARGET),
        (ASSET_MACHINE, ASSET_RETRY_TARGET),
    ],
    ids=lambda v: getattr(v, "entity", ""),
)
def test_every_state_a_failure_comes_from_has_a_retry_edge_back(machine: Machine[Any], targets: Any) -> None:
    states = type(machine.initial)
    failure = states("ERROR") if machine.entity == "asset" else states("FAILED")
    came_from = {s for s in machine.states if machine.can(s, failure)}
    assert set(targets) == came_from
    for target in targets.values():
        assert machine.can(failure, target)


def test_the_mission_machines_are_registered_under_missions() -> None:
    registered = [(domain, m.entity) for domain, m in MACHINES if domain == "missions"]
    assert registered == [
        ("missions", "mission"),
        ("missions", "hop"),
        ("missions", "tool_step"),
        ("missions", "asset"),
    ]
    for entity, machine in MACHINE.items():
        assert machine_by_entity(entity) is machine
