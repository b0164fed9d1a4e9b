"""The one place where an entity's state changes: check the machine's table, set the row, record it."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol, TypeVar

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
