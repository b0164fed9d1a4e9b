"""userErrors (business errors as data) and top-level auth errors."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry.types import ExecutionContext, Info

from ..echo import ECHO_LIMIT, clipped
from ..errors import ErrorCode, Problem, ServiceError, from_invalid_transition
from ..machines.errors import InvalidTransition
from ..request_id import current_request_id
from ..services.retention.truncation import HistoryTruncated
from ..services.runtime import Tx, unit_of_work
from .context import Context
from .descriptions import described_enum

UserErrorCode = described_enum(
    ErrorCode,
    "UserErrorCode",
    "Stable codes for userErrors (and for top-level errors' extensions.code).",
    {
        ErrorCode.INVALID_TRANSITION: "The object's current state does not allow this (fromState says "
        "which state); retrying the same call will not help until the state changes.",
        ErrorCode.NOT_FOUND: "No such object in your tenant (`field` names the id).",
        ErrorCode.VALIDATION_FAILED: "An input is malformed or over a limit (`field` names it); fix it "
        "and call again.",
        ErrorCode.CONFLICT: "The workflow step or compensation is held by (or belongs to) another agent, "
        "or the report is for an older attempt: it is not yours to report.",
        ErrorCode.FORBIDDEN: "Your API key may not do this: it acts as other agents (see the key's "
        "agents), so claiming or reporting under this name is refused.",
        ErrorCode.TOO_MANY_WAITS: "This key already holds as many waits for decisions as one key may "
        "(MCP wait_for_decision); call again when one has returned.",
        ErrorCode.HISTORY_TRUNCATED: "The events asked for were archived and deleted from the log: "
        "`extensions.earliestSeq` (top-level errors) is the lowest seq it still has; resume with "
        "`after` = earliestSeq - 1, accepting the hole (docs/tutorial/live-updates.md).",
    },
)


@strawberry.type(description="A business error: the mutation changed nothing.")
class UserError:
    code: ErrorCode = strawberry.field(description="Stable code to branch on.")
    message: str = strawberry.field(description="What went wrong, for a person; the wording may change.")
    field: list[str] = strawberry.field(description="Path of the input field the error is about.")
    entity: str | None = strawberry.field(
        default=None, description="INVALID_TRANSITION: the kind of object refused (plan, step, hop, ...)."
    )
    from_state: str | None = strawberry.field(
        default=None, description="INVALID_TRANSITION: the object's current state."
    )
    to_state: str | None = strawberry.field(
        default=None, description="INVALID_TRANSITION: the state the call would have moved it to, if one."
    )

    @staticmethod
    def from_problem(p: Problem) -> UserError:
        return UserError(
            code=p.code,
            message=clipped(p.message),
            field=[clipped(f, ECHO_LIMIT) for f in p.field],
            entity=p.entity,
            from_state=p.from_state,
            to_state=p.to_state,
        )


class AuthCode(StrEnum):
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"


R = TypeVar("R")


async def run_mutation(
    info: Info[Context, Any], action: Callable[[Tx], Awaitable[R]]
) -> tuple[R | None, list[UserError]]:
    """Run ``action`` in one transaction; business errors come back as userErrors, nothing written."""
    ctx = info.context
    try:
        async with unit_of_work(ctx.runtime, ctx.principal) as tx:
            result = await action(tx)
    except ServiceError as exc:
        return None, [UserError.from_problem(p) for p in exc.problems]
    except InvalidTransition as exc:
        return None, [UserError.from_problem(p) for p in from_invalid_transition(exc).problems]
    return result, []


async def run_query(info: Info[Context, Any], action: Callable[[Any], Awaitable[R]]) -> R | None:
    """Run a read. Not found is null; a malformed argument is a top-level error with its code."""
    try:
        async with info.context.runtime.db.reader() as session:
            return await action(session)
    except ServiceError as exc:
        if exc.problems[0].code is ErrorCode.NOT_FOUND:
            return None
        raise top_level_error(exc) from None
    except HistoryTruncated as exc:
        raise truncated_error(exc) from None


def truncated_error(exc: HistoryTruncated) -> GraphQLError:
    """HISTORY_TRUNCATED as a top-level error, with the seq the reader can resume from."""
    return GraphQLError(
        str(exc),
        extensions={"code": ErrorCode.HISTORY_TRUNCATED.value, "earliestSeq": exc.earliest_seq},
    )


def top_level_error(exc: ServiceError) -> GraphQLError:
    """A business error where there are no userErrors: its first code and field, in extensions."""
    first = exc.problems[0]
    return GraphQLError(str(exc), extensions={"code": first.code.value, "field": first.field})


UNEXPECTED_ERROR = "Unexpected error."
SAFE_CODES = {c.value for c in AuthCode} | {c.value for c in ErrorCode}


def should_mask_error(error: GraphQLError) -> bool:
    """Mask what we did not mean to say: unexpected exceptions, not validation or our own codes.

    graphql-core wraps its own request errors (a variable of the wrong type, an unknown enum value) in
    another GraphQLError; only a chain that ends in an arbitrary exception is unexpected.
    """
    cause: BaseException | None = error.original_error
    while isinstance(cause, GraphQLError):
        cause = cause.original_error
    if cause is None:
        return False
    code = (error.extensions or {}).get("code")
    return code not in SAFE_CODES


logger = logging.getLogger("server.api")


def log_errors(errors: list[GraphQLError], execution_context: ExecutionContext | None) -> None:
    """One line for an expected refusal; a traceback, with the request id, for an unexpected error.

    Replaces Strawberry's logging, which logs every error of every kind with its traceback.
    """
    request_id = current_request_id() or "-"
    operation = (execution_context.operation_name if execution_context else None) or "(anonymous)"
    for error in errors:
        where = ".".join(str(p) for p in error.path or []) or operation
        if should_mask_error(error):
            logger.error(
                "unexpected error at %s [request %s]", where, request_id, exc_info=error.original_error
            )
        else:
            code = (error.extensions or {}).get("code") or "REQUEST_ERROR"
            logger.info(
                "refused %s at %s [request %s]: %s", code, where, request_id, clipped(error.message, 200)
            )
