"""Workflow, workflow step and compensation machines against an independent copy of seed 002's tables."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from server.machines.errors import InvalidTransition
from server.machines.machine import Machine
from server.machines.registry import MACHINES
from server.machines.workflow import (
    COMPENSATION_MACHINE,
    WORKFLOW_MACHINE,
    WORKFLOW_STEP_MACHINE,
    CompensationStatus,
    WorkflowStatus,
    WorkflowStepStatus,
)

# Typed straight from seed 002 §1 "Valid State Transitions"; never derived from server/machines.
SEED_WORKFLOW_STATES = {"idle", "queued", "executing", "blocked", "completed", "failed", "compensating"}
SEED_WORKFLOW_TRANSITIONS = {
    ("idle", "queued"),
    ("queued", "executing"),
    ("executing", "blocked"),
    ("executing", "completed"),
    ("executing", "failed"),
    ("executing", "compensating"),
    ("blocked", "executing"),
    ("blocked", "failed"),
    ("compensating", "completed"),
    ("compensating", "failed"),
}
# §1 "Invalid Transitions (MUST NOT occur)".
SEED_INVALID_WORKFLOW_TRANSITIONS = [
    ("idle", "executing"),
    *[("completed", s) for s in sorted(SEED_WORKFLOW_STATES)],
    ("failed", "executing"),
    ("compensating", "executing"),
]

# §2's diagram: pending -> running -> completed | skipped | failed; plus DESIGN.md's retry edge.
SEED_STEP_STATES = {"pending", "running", "completed", "failed", "skipped"}
SEED_STEP_TRANSITIONS = {
    ("pending", "running"),
    ("running", "completed"),
    ("running", "skipped"),
    ("running", "failed"),
}
DESIGN_STEP_EXTENSIONS = {("running", "pending")}  # "a retry is the edge running -> pending"

COMPENSATION_STATES = {"pending", "running", "completed", "failed"}
COMPENSATION_TRANSITIONS = {
    ("pending", "running"),
    ("running", "completed"),
    ("running", "failed"),
}

TABLES: list[tuple[Machine[Any], type[Any], set[str], set[tuple[str, str]]]] = [
    (WORKFLOW_MACHINE, WorkflowStatus, SEED_WORKFLOW_STATES, SEED_WORKFLOW_TRANSITIONS),
    (
        WORKFLOW_STEP_MACHINE,
        WorkflowStepStatus,
        SEED_STEP_STATES,
        SEED_STEP_TRANSITIONS | DESIGN_STEP_EXTENSIONS,
    ),
    (COMPENSATION_MACHINE, CompensationStatus, COMPENSATION_STATES, COMPENSATION_TRANSITIONS),
]

ALL_PAIRS = [
    (machine, enum, pair, pair in allowed)
    for machine, enum, states, allowed in TABLES
    for pair in sorted(itertools.product(states, repeat=2))
]


@pytest.mark.parametrize(
    ("machine", "enum", "states", "allowed"), TABLES, ids=lambda v: getattr(v, "entity", "")
)
def test_states_and_edges_equal_the_seed_tables(
    machine: Machine[Any], enum: type[Any], states: set[str], allowed: set[tuple[str, str]]
) -> None:
    assert {s.value for s in enum} == states
    assert {s.value for s in machine.states} == states
    assert {(a.value, b.value) for a, b in machine.edges()} == allowed


@pytest.mark.parametrize(
    ("machine", "enum", "pair", "allowed"),
    ALL_PAIRS,
    ids=[f"{m.entity}:{p[0]}->{p[1]}" for m, _, p, _ in ALL_PAIRS],
)
def test_every_pair_is_accepted_exactly_when_the_table_has_it(
    machine: Machine[Any], enum: type[Any], pair: tuple[str, str], allowed: bool
) -> None:
    source, target = enum(pair[0]), enum(pair[1])
    assert machine.can(source, target) is allowed
    if allowed:
        assert machine.check(source, target, entity_id="x") == target
        return
    with pytest.raises(InvalidTransition) as caught:
        machine.check(source, target, entity_id="x")
    assert (caught.value.entity, caught.value.from_state, caught.value.to_state) == (machine.entity, *pair)


@pytest.mark.parametrize("pair", SEED_INVALID_WORKFLOW_TRANSITIONS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_the_seeds_invalid_workflow_transitions_are_refused(pair: tuple[str, str]) -> None:
    with pytest.raises(InvalidTransition):
        WORKFLOW_MACHINE.check(WorkflowStatus(pair[0]), WorkflowStatus(pair[1]))


def test_initial_and_final_states() -> None:
    assert (WORKFLOW_MACHINE.initial, WORKFLOW_STEP_MACHINE.initial) == ("idle", "pending")
    assert {s.value for s in WORKFLOW_MACHINE.final} == {"completed", "failed"}
    assert {s.value for s in WORKFLOW_STEP_MACHINE.final} == {"completed", "skipped", "failed"}
    assert {s.value for s in COMPENSATION_MACHINE.final} == {"completed", "failed"}


def test_a_retried_step_runs_again() -> None:
    state = WorkflowStepStatus.PENDING
    for nxt in ("running", "pending", "running", "completed"):
        state = WORKFLOW_STEP_MACHINE.check(state, WorkflowStepStatus(nxt))
    assert state == "completed"


def test_the_workflow_machines_are_registered_under_workflows() -> None:
    registered = [(domain, m.entity) for domain, m in MACHINES if domain == "workflows"]
    assert registered == [
        ("workflows", "workflow"),
        ("workflows", "workflow_step"),
        ("workflows", "workflow_compensation"),
    ]


def test_route_walks_through_executing_only_where_the_table_has_no_direct_edge() -> None:
    W = WorkflowStatus
    assert WORKFLOW_MACHINE.route(W.BLOCKED, W.COMPENSATING, via=W.EXECUTING) == [W.EXECUTING, W.COMPENSATING]
    assert WORKFLOW_MACHINE.route(W.BLOCKED, W.FAILED, via=W.EXECUTING) == [W.FAILED]
    assert WORKFLOW_MACHINE.route(W.EXECUTING, W.EXECUTING, via=W.EXECUTING) == []
    # No path at all: the single edge is returned, for the transition function to refuse.
    assert WORKFLOW_MACHINE.route(W.COMPENSATING, W.BLOCKED, via=W.EXECUTING) == [W.BLOCKED]
