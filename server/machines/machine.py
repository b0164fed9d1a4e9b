"""A state machine as data: states, one initial state, final states and a transition table.

Each machine is checked when it is defined (python-statemachine style): every state has a row, the
initial state exists, final states have no exits, every non-final state has an exit, and every state
is reachable from the initial state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from .errors import InvalidMachine, InvalidTransition

S = TypeVar("S", bound=StrEnum)


@dataclass(frozen=True)
class Machine(Generic[S]):
    entity: str
    initial: S
    transitions: Mapping[S, frozenset[S]]
    final: frozenset[S]
    description: str = ""

    def __post_init__(self) -> None:
        _check_machine(self)

    @property
    def states(self) -> tuple[S, ...]:
        return tuple(self.transitions)

    def can(self, from_state: S, to_state: S) -> bool:
        return to_state in self.transitions.get(from_state, frozenset())

    def check(self, from_state: S, to_state: S, entity_id: str | None = None) -> S:
        """Return ``to_state`` if the table allows the edge, else raise ``InvalidTransition``."""
        if not self.can(from_state, to_state):
            raise InvalidTransition(self.entity, str(from_state), str(to_state), entity_id)
        return to_state

    def route(self, from_state: S, to_state: S, via: S) -> list[S]:
        """The states to pass on the way to ``to_state``: straight there, or through ``via`` when only
        that two-edge path is in the table (an operation may walk the table, never widen it)."""
        if from_state == to_state:
            return []
        if not self.can(from_state, to_state) and self.can(from_state, via) and self.can(via, to_state):
            return [via, to_state]
        return [to_state]

    def edges(self) -> list[tuple[S, S]]:
        return [(a, b) for a, targets in self.transitions.items() for b in sorted(targets)]


def _check_machine(machine: Machine[S]) -> None:
    states = set(machine.transitions)
    name = machine.entity
    if machine.initial not in states:
        raise InvalidMachine(f"{name}: initial state {machine.initial} has no row")
    for source, targets in machine.transitions.items():
        unknown = set(targets) - states
        if unknown:
            raise InvalidMachine(f"{name}: {source} leads to unknown states {sorted(unknown)}")
    for state in machine.final:
        if machine.transitions.get(state):
            raise InvalidMachine(f"{name}: final state {state} has exits")
    for state in states - machine.final:
        if not machine.transitions[state]:
            raise InvalidMachine(f"{name}: {state} is a trap (no exits and not final)")
    reached = {machine.initial}
    frontier = [machine.initial]
    while frontier:
        for nxt in machine.transitions[frontier.pop()]:
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    unreachable = states - reached
    if unreachable:
        raise InvalidMachine(f"{name}: unreachable states {sorted(unreachable)}")
