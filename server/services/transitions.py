"""The one place where an entity's state changes: check the machine's table, set the row, record it.

``apply`` runs a machine's named action: checks that it may start from the row's state (else
INVALID_TRANSITION, nothing written), walks its path and stamps each state it enters (``enter``).
``require`` is the check alone, for acts that look at more before they move.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol, TypeVar

from ..errors import from_invalid_transition
from ..machines.errors import InvalidTransition
from ..machines.machine import Machine
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
    row.status = to_state.value
    row.updated_at = tx.now
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
    timestamps, ``failed_from`` into and out of its failure state, the reason for the new state."""
    from_state = row.status
    if reason is not None:
        data = {**(data or {}), "reason": reason}
    change_state(tx, machine, row, to_state, root_type=root_type, root_id=root_id, data=data or None)
    if machine.reason_column is not None:
        # The reason explains the state the row is in now: a rejection, cancellation or failure sets
        # it, any other move (a retry, the next proposal) clears it. The event log keeps every one.
        setattr(row, machine.reason_column, reason)
    if machine.failure is not None:
        if to_state == machine.failure:
            row.failed_from = from_state  # a retry returns there
        elif from_state == machine.failure:
            row.failed_from = None
    for column in machine.stamps.get(to_state, ()):
        setattr(row, column, tx.now)


def require(machine: Machine[S], row: Any, action: str, field: str) -> list[S]:
    """The states ``action`` walks from the row's state; INVALID_TRANSITION on ``field`` when it may
    not start there (the error carries the entity, the from-state and, as its cause, the action)."""
    state = type(machine.initial)
    failed_from = getattr(row, "failed_from", None)
    try:
        return machine.path(action, state(row.status), state(failed_from) if failed_from else None, row.id)
    except InvalidTransition as exc:
        raise from_invalid_transition(exc, [field]) from exc


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
    for state in require(machine, row, action, field):
        enter(tx, machine, row, state, root_type=root_type, root_id=root_id, reason=reason, data=data)
