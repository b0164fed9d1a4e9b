"""Errors raised by the pure state machines."""

from __future__ import annotations


class InvalidTransition(Exception):
    """A state change that the machine's transition table does not allow, or an action that may not
    start from the entity's state (then ``action`` names it and ``why`` says what it needs)."""

    def __init__(
        self,
        entity: str,
        from_state: str,
        to_state: str | None,
        entity_id: str | None = None,
        *,
        action: str | None = None,
        why: str | None = None,
    ) -> None:
        self.entity = entity
        self.from_state = from_state
        self.to_state = to_state
        self.entity_id = entity_id
        self.action = action
        self.why = why
        subject = f"{entity} {entity_id}" if entity_id else entity
        if why is not None:
            super().__init__(f"{subject} is {from_state}: {why}")
        else:
            super().__init__(f"{subject} cannot go from {from_state} to {to_state}")


class InvalidMachine(Exception):
    """A transition table that fails its definition checks."""
