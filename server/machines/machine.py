"""A state machine as data: states, one initial state, final states, a transition table, and the
named actions that walk it, with what entering a state stamps on the row.

Each machine is checked when it is defined (python-statemachine style): every state has a row, the
initial state exists, final states have no exits, every non-final state has an exit, every state is
reachable from the initial state, and every action's path from each of its start states is in the table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Generic, TypeVar

from .errors import InvalidMachine, InvalidTransition

S = TypeVar("S", bound=StrEnum)


@dataclass(frozen=True)
class Guard:
    """A condition an action puts on one more column of the row besides its state (python-statemachine's
    ``cond``): the column must hold one of ``allowed``, else the action is refused with ``refusal``,
    in which ``{value}`` names what the column holds."""

    column: str
    allowed: frozenset[str | None]
    refusal: str
    # The state a refusal names as the one asked for, when not the action's target.
    names: str | None = None

    def refuses(self, value: object, now: datetime | None = None) -> str | None:
        return None if value in self.allowed else self.refusal.format(value=value)

    def describe(self) -> str:
        allowed = sorted(self.allowed, key=str)
        return f"`{self.column}` is " + " or ".join("none" if v is None else f"`{v}`" for v in allowed)


@dataclass(frozen=True)
class Deadline:
    """A condition on a time column: ``passed`` False, the action needs the time not to have come yet
    (or no time set); ``passed`` True, it needs the time to have come. ``{value}`` in ``refusal`` is
    the time in ISO 8601. Without ``now`` (a reader that has no clock, such as ``availableActions``)
    it cannot judge and refuses nothing; every act passes the transaction's time."""

    column: str
    passed: bool
    refusal: str
    names: str | None = None

    def refuses(self, value: object, now: datetime | None = None) -> str | None:
        if now is None:
            return None
        if value is not None and not isinstance(value, datetime):
            raise TypeError(f"{self.column} must be a datetime, not {type(value).__name__}")
        came = value is not None and value <= now
        if came == self.passed:
            return None
        return self.refusal.format(value=value.isoformat() if value is not None else None)

    def describe(self) -> str:
        if self.passed:
            return f"`{self.column}` has passed"
        return f"`{self.column}` is none or still ahead"


@dataclass(frozen=True)
class Computed:
    """Columns a machine sets on entering a state from the row and the transaction's time (a deadline
    counted from entering, a first start): ``compute`` returns some of ``columns`` (those it sets)."""

    columns: tuple[str, ...]
    compute: Callable[[Any, datetime], Mapping[str, Any]]

    def __call__(self, row: Any, now: datetime) -> dict[str, Any]:
        values = dict(self.compute(row, now))
        unknown = set(values) - set(self.columns)
        if unknown:
            raise ValueError(f"computed {sorted(unknown)}, which it does not declare")
        return values


@dataclass(frozen=True)
class Action(Generic[S]):
    """A named act on one entity: the states it may start from, where it ends, and what the refusal
    says when the entity is elsewhere.

    ``target`` None is a retry: back to the state the row failed from (the machine's ``retry_targets``).
    ``via``: the table has no direct edge from some start state, so the action walks through ``via``
    (``pending -> in_progress -> failed``); the table is walked, never widened. A start state equal to
    ``target`` walks nothing (the row is there already). ``internal``: the action checks and moves
    nothing (a heartbeat, a report whose outcome a policy decides next); its ``target``, if any, is
    only what a refusal names as the state asked for. ``guards``: conditions on other columns.
    """

    name: str
    sources: frozenset[S]
    refusal: str
    target: S | None = None
    via: S | None = None
    internal: bool = False
    guards: tuple[Guard | Deadline, ...] = ()


@dataclass(frozen=True)
class Machine(Generic[S]):
    entity: str
    initial: S
    transitions: Mapping[S, frozenset[S]]
    final: frozenset[S]
    description: str = ""
    actions: tuple[Action[S], ...] = ()
    # Entering a state sets these timestamp columns to the transaction's time.
    stamps: Mapping[S, tuple[str, ...]] = field(default_factory=dict)
    # The failure state: entering it keeps the state it came from in ``failed_from``, leaving clears it.
    failure: S | None = None
    # A retry from ``failure``: failed_from -> the state the row returns to.
    retry_targets: Mapping[S, S] = field(default_factory=dict)
    # The column that keeps the reason for the row's current state (set on every move), if any.
    reason_column: str | None = None
    # Entering a state sets these columns to None (before its stamps).
    clears: Mapping[S, tuple[str, ...]] = field(default_factory=dict)
    # Entering a state sets the columns these compute from the row (after its stamps and clears, which
    # they see) and the transaction's time.
    computed: Mapping[S, Computed] = field(default_factory=dict)

    def owned_columns(self) -> frozenset[str]:
        """The columns only the write path sets on a row of this machine: its state, what entering a
        state stamps or computes, the state it failed from, the reason for its state."""
        owned = {"status", *(c for cols in self.stamps.values() for c in cols)}
        owned |= {c for computed in self.computed.values() for c in computed.columns}
        if self.failure is not None:
            owned.add("failed_from")
        if self.reason_column is not None:
            owned.add(self.reason_column)
        return frozenset(owned)

    def __post_init__(self) -> None:
        _check_machine(self)

    def action(self, name: str) -> Action[S]:
        for action in self.actions:
            if action.name == name:
                return action
        raise KeyError(f"{self.entity} has no action {name!r}")

    def path(
        self,
        name: str,
        from_state: S,
        failed_from: S | None = None,
        entity_id: str | None = None,
        facts: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> list[S]:
        """The states action ``name`` walks from ``from_state``; ``InvalidTransition`` (carrying the
        entity, the action and the from-state) when it may not start there, or when a guard refuses
        the row's ``facts`` (its other columns, by name) at time ``now``."""
        action = self.action(name)
        target = action.target
        if target is None and from_state in action.sources and failed_from is not None:
            target = self.retry_targets.get(failed_from)
        why: str | None = action.refusal
        to = action.target.value if action.target is not None else None
        if from_state in action.sources and (target is not None or action.internal):
            values = facts or {}
            why = None
            for guard in action.guards:
                why = guard.refuses(values.get(guard.column), now)
                if why is not None:
                    to = guard.names or to
                    break
        if why is not None:
            raise InvalidTransition(self.entity, str(from_state), to, entity_id, action=name, why=why)
        if action.internal or target == from_state or target is None:
            return []
        return self.route(from_state, target, action.via) if action.via is not None else [target]

    def allows(
        self,
        name: str,
        from_state: S,
        failed_from: S | None = None,
        facts: Mapping[str, Any] | None = None,
        now: datetime | None = None,
    ) -> bool:
        """Whether action ``name`` may start from ``from_state`` (``path`` without the refusal)."""
        try:
            self.path(name, from_state, failed_from, facts=facts, now=now)
        except InvalidTransition:
            return False
        return True

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
    _check_actions(machine)


def _check_actions(machine: Machine[S]) -> None:
    name = machine.entity
    names = [a.name for a in machine.actions]
    if len(set(names)) != len(names):
        raise InvalidMachine(f"{name}: an action is declared twice")
    for action in machine.actions:
        if action.internal:
            if action.via is not None:
                raise InvalidMachine(f"{name}: {action.name} moves nothing, so it walks no via")
            continue
        targets = [action.target] if action.target is not None else list(machine.retry_targets.values())
        for source in action.sources:
            for target in targets:
                if source == target:
                    continue  # the row is there already: nothing to walk
                path = machine.route(source, target, action.via) if action.via is not None else [target]
                steps = zip([source, *path], path, strict=False)
                if not all(machine.can(a, b) for a, b in steps):
                    raise InvalidMachine(
                        f"{name}: {action.name} from {source} to {target} is not in the table"
                    )
