"""Business errors: raised inside a service transaction (rolling it back) and returned as userErrors."""

from __future__ import annotations

from enum import StrEnum

from .echo import shown
from .machines.errors import InvalidTransition


class ErrorCode(StrEnum):
    INVALID_TRANSITION = "INVALID_TRANSITION"
    NOT_FOUND = "NOT_FOUND"
    VALIDATION_FAILED = "VALIDATION_FAILED"
    CONFLICT = "CONFLICT"
    FORBIDDEN = "FORBIDDEN"
    TOO_MANY_WAITS = "TOO_MANY_WAITS"

    HISTORY_TRUNCATED = "HISTORY_TRUNCATED"


class ServiceError(Exception):
    """One or more user errors; the transaction that raised it writes nothing."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(p.message for p in problems))


class Problem:
    __slots__ = ("code", "entity", "field", "from_state", "message", "to_state")

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        field: list[str] | None = None,
        entity: str | None = None,
        from_state: str | None = None,
        to_state: str | None = None,
    ) -> None:
        self.code = code
        self.message = message
        self.field = field or []
        self.entity = entity
        self.from_state = from_state
        self.to_state = to_state

    def __repr__(self) -> str:
        return f"Problem({self.code}, {self.message!r}, field={self.field})"


def fail(code: ErrorCode, message: str, field: list[str] | None = None) -> ServiceError:
    return ServiceError([Problem(code, message, field)])


def not_found(what: str, ident: str, field: list[str] | None = None) -> ServiceError:
    named = ident if len(ident) <= 100 else shown(ident)
    return fail(ErrorCode.NOT_FOUND, f"{what} {named} not found", field)


def invalid(message: str, field: list[str] | None = None) -> ServiceError:
    return fail(ErrorCode.VALIDATION_FAILED, message, field)


def refused(
    entity: str, row_id: str, from_state: str, why: str, field: str, to_state: str | None = None
) -> ServiceError:
    """INVALID_TRANSITION: the object's current state does not allow what was asked."""
    return ServiceError(
        [
            Problem(
                ErrorCode.INVALID_TRANSITION,
                f"{entity} {row_id} is {from_state}: {why}",
                [field],
                entity=entity,
                from_state=from_state,
                to_state=to_state,
            )
        ]
    )


def from_invalid_transition(exc: InvalidTransition, field: list[str] | None = None) -> ServiceError:
    return ServiceError(
        [
            Problem(
                ErrorCode.INVALID_TRANSITION,
                str(exc),
                field,
                entity=exc.entity,
                from_state=exc.from_state,
                to_state=exc.to_state,
            )
        ]
    )
