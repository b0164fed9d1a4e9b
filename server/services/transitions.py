"""The one place where an entity's state changes: check the machine's table, set the row, record it.

``apply`` runs a machine's named action: checks that it may start from the row's state (else
INVALID_TRANSITION, nothing written), walks its path and stamps each state it enters (``enter``).
``require`` is the check alone, for acts that look at more before they move; ``allowed`` the same
check as a yes or no, for acts that pick their rows.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol, TypeVar

from ..errors import from_invalid_transition
from ..machines.errors import InvalidTransition
from ..machines.machine import Deadline, Machine
from .runtime import Tx


class Stateful(Protocol):
    id: str
    status: str
    updated_at: Any


S = TypeVar("S", bound=StrEnum)


def change_state(
    tx: Tx,
    machine: Machine[S],
    row: Stateful,
    to_state: S,
    *,
    root_type: str,
    root_id: str,
    data: dict[str, Any] | None = None,
) -> None:
    """Move ``row`` to ``to_state`` if the table allows it (else ``InvalidTransition``) and log it."""
    from_state = type(to_state)(row.status)
    machine.check(from_state, to_state, entity_id=row.id)
    tx.write(row, status=to_state.value, updated_at=tx.now)
    tx.events.record(
        f"{machine.entity}_transitioned",
        entity_type=machine.entity,
        entity_id=row.id,
        root_type=root_type,
        root_id=root_id,
        from_state=from_state.value,
        to_state=to_state.value,
        data=data,
    )


def enter(
    tx: Tx,
    machine: Machine[S],
    row: Any,
    to_state: S,
    *,
    root_type: str,
    root_id: str,
    reason: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """One transition (``change_state``) with what the machine stamps on entering ``to_state``: its
    timestamps, ``failed_from`` into and out of its failure state, the reason for the new state, the
    columns it computes on entering (``Machine.computed``)."""
    from_state = row.status
    if reason is not None:
        data = {**(data or {}), "reason": reason}
    change_state(tx, machine, row, to_state, root_type=root_type, root_id=root_id, data=data or None)
    stamped: dict[str, Any] = {}
    if machine.reason_column is not None:
        # The reason explains the state the row is in now: a rejection, cancellation or failure sets
        # it, any other move (a retry, the next proposal) clears it. The event log keeps every one.
        stamped[machine.reason_column] = reason
    if machine.failure is not None:
        if to_state == machine.failure:
            stamped["failed_from"] = from_state  # a retry returns there
        elif from_state == machine.failure:
            stamped["failed_from"] = None
    for column in machine.clears.get(to_state, ()):
        stamped[column] = None
    for column in machine.stamps.get(to_state, ()):
        stamped[column] = tx.now
    if stamped:
        tx.write(row, **stamped)
    compute = machine.computed.get(to_state)
    computed = compute(row, tx.now) if compute is not None else None
    if computed:  # after the stamps, which it may read (a deadline from started_at)
        tx.write(row, **computed)


def _facts(
    machine: Machine[S], row: Any, action: str, now: datetime | None
) -> tuple[S, S | None, dict[str, Any]]:
    """What ``machine.path`` looks at on the row: its state, the state it failed from, guarded columns."""
    state = type(machine.initial)
    failed_from = getattr(row, "failed_from", None)
    guards = machine.action(action).guards
    if now is None and any(isinstance(g, Deadline) for g in guards):
        # Without the time a deadline refuses nothing: an act that forgot it would slip past the rule.
        raise TypeError(f"{machine.entity}.{action} has a deadline guard: pass now")
    facts = {g.column: getattr(row, g.column) for g in guards}
    return state(row.status), state(failed_from) if failed_from else None, facts


def require(
    machine: Machine[S], row: Any, action: str, field: str, *, now: datetime | None = None
) -> list[S]:
    """The states ``action`` walks from the row's state; INVALID_TRANSITION on ``field`` when it may
    not start there or a guard refuses at ``now`` (the error carries the entity, the from-state and,
    as its cause, the action)."""
    from_state, failed_from, facts = _facts(machine, row, action, now)
    try:
        return machine.path(action, from_state, failed_from, row.id, facts, now)
    except InvalidTransition as exc:
        raise from_invalid_transition(exc, [field]) from exc


def allowed(machine: Machine[S], row: Any, action: str, *, now: datetime | None = None) -> bool:
    """Whether ``action`` may start from the row's state (its guards judged at ``now``): for acts that
    pick their rows (a timer's pass, a claim, a settle step) rather than refuse a caller."""
    from_state, failed_from, facts = _facts(machine, row, action, now)
    return machine.allows(action, from_state, failed_from, facts, now)


def apply(
    tx: Tx,
    machine: Machine[S],
    row: Any,
    action: str,
    *,
    root_type: str,
    root_id: str,
    field: str,
    reason: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Run the machine's action ``action`` on ``row``: check, then enter each state on its path."""
    for state in require(machine, row, action, field, now=tx.now):
        enter(tx, machine, row, state, root_type=root_type, root_id=root_id, reason=reason, data=data)
