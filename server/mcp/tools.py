"""What a tool is, who may call it, and how a call runs: one transaction through the same services."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

import mcp_types as types
from sqlalchemy.ext.asyncio import AsyncSession

from ..api.permissions import CanDecide, CanDrive
from ..auth import Principal
from ..echo import ECHO_LIMIT, clipped
from ..errors import ErrorCode, Problem, ServiceError, from_invalid_transition
from ..machines.errors import InvalidTransition
from ..services.runtime import Runtime, Tx, unit_of_work
from .arguments import ArgumentCheck, Schema, Vocabulary
from .toolsets import Membership

R = TypeVar("R")

FORBIDDEN = "FORBIDDEN"

# What a caller can do about each kind of refusal (STYLE.md: say whether retrying can help).
_ADVICE = {
    ErrorCode.INVALID_TRANSITION: "Retrying the same call will not help until the state changes.",
    ErrorCode.NOT_FOUND: "Check the id: ids are UUIDs, and only your tenant's objects are found.",
    ErrorCode.VALIDATION_FAILED: "Fix the argument named in `field` and call again.",
    ErrorCode.CONFLICT: "It is not yours to report: another agent holds it, or the attempt is older.",
    FORBIDDEN: "This key's role may not call it; retrying with the same key will not help.",
}


class Access(StrEnum):
    """Which keys see and may call a tool (DESIGN.md rule 8)."""

    READ = "read"  # every role, viewers included
    DRIVE = "drive"  # agent and admin keys
    DECIDE = "decide"  # reviewer and admin keys

    def allows(self, principal: Principal) -> bool:
        if self is Access.DRIVE:
            return principal.can_drive
        if self is Access.DECIDE:
            return principal.can_decide
        return True

    @property
    def refusal(self) -> str:
        return CanDecide.message if self is Access.DECIDE else CanDrive.message


@dataclass
class Call:
    """One tool call: who makes it, on which runtime, with its checked arguments."""

    runtime: Runtime
    principal: Principal
    args: dict[str, Any]

    async def write(self, action: Callable[[Tx], Awaitable[R]]) -> R:
        """``action`` in one transaction, as GraphQL's run_mutation: a refusal writes nothing."""
        try:
            async with unit_of_work(self.runtime, self.principal) as tx:
                return await action(tx)
        except InvalidTransition as exc:
            raise from_invalid_transition(exc) from None

    async def read(self, action: Callable[[AsyncSession], Awaitable[R]]) -> R:
        async with self.runtime.db.reader() as session:
            return await action(session)


@dataclass(frozen=True)
class Answer:
    """A tool's structured result and the one line a model reads first."""

    data: dict[str, Any]
    summary: str


Run = Callable[[Call], Awaitable[Answer]]
Args = dict[str, Any]


def writes(act: Callable[[Tx, Args], Awaitable[R]], show: Callable[[R], Answer]) -> Run:
    """A tool that changes state: ``act`` (one service call) in one transaction, its result shown."""

    async def run(call: Call) -> Answer:
        return show(await call.write(lambda tx: act(tx, call.args)))

    return run


def reads(fetch: Callable[[AsyncSession, str, Args], Awaitable[R]], show: Callable[[R], Answer]) -> Run:
    """A tool that changes nothing: ``fetch`` on a reader session, with the caller's tenant."""

    async def run(call: Call) -> Answer:
        return show(await call.read(lambda s: fetch(s, call.principal.tenant_id, call.args)))

    return run


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: Schema
    output_schema: Schema
    access: Access
    run: Run
    idempotent: bool = False
    destructive: bool = False
    toolset: Membership | None = None  # set by in_toolset for a module's tools unless a tool names its own
    check: ArgumentCheck = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "check", ArgumentCheck(self.input_schema))

    def describe(self) -> types.Tool:
        read_only = self.access is Access.READ
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=self.input_schema,
            output_schema=self.output_schema,
            # A hint left out is the specification's default (not read-only, not idempotent).
            annotations=types.ToolAnnotations(
                read_only_hint=read_only or None,
                destructive_hint=None if read_only else self.destructive,
                idempotent_hint=read_only or self.idempotent or None,
                open_world_hint=False,
            ),
        )


def in_toolset(toolset: Membership, tools: list[Tool]) -> list[Tool]:
    """The tools, each in ``toolset`` unless it names another."""
    return [t if t.toolset is not None else replace(t, toolset=toolset) for t in tools]


# One tool: its spec and handler, its schemas stating this server's limits (``Vocabulary``).
ToolSpec = Callable[[Vocabulary], Tool]


def table(toolset: Membership, specs: Iterable[ToolSpec], v: Vocabulary) -> list[Tool]:
    """A toolset's tools, in the order given, each in ``toolset`` unless it names another."""
    return in_toolset(toolset, [spec(v) for spec in specs])


def refusal(problems: list[Problem]) -> types.CallToolResult:
    """A tool error carrying GraphQL's userErrors: the same codes, messages and fields.

    The errors travel in the text, not in ``structuredContent``: a client checks structured content
    against the tool's output schema even on an error (the TypeScript SDK does, and then throws
    instead of returning the error), and a refusal is not the tool's output. The first line is for a
    model; the second is ``{"errors": [...]}`` for a program.
    """
    errors = [_user_error(p) for p in problems]
    first = errors[0]
    where = f" (field: {'.'.join(first['field'])})" if first["field"] else ""
    text = f"{first['code']}: {first['message']}{where}. {_ADVICE.get(first['code'], '')}".rstrip()
    if len(errors) > 1:
        text += f" ({len(errors) - 1} more below)"
    return _error_result(text, errors)


def forbidden(message: str) -> types.CallToolResult:
    text = f"{FORBIDDEN}: {message}. {_ADVICE[FORBIDDEN]}"
    return _error_result(text, [{"code": FORBIDDEN, "message": message, "field": []}])


def _error_result(text: str, errors: list[dict[str, Any]]) -> types.CallToolResult:
    body = json.dumps({"errors": errors}, ensure_ascii=False, separators=(",", ":"))
    return types.CallToolResult(content=[types.TextContent(text=f"{text}\n{body}")], is_error=True)


def refusal_code(result: types.CallToolResult) -> str:
    """The stable code of a refusal made by ``refusal`` or ``forbidden`` (its text starts with it)."""
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, types.TextContent) else ""
    return text.partition(":")[0] or "ERROR"


def success(answer: Answer) -> types.CallToolResult:
    body = json.dumps(answer.data, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.CallToolResult(
        content=[types.TextContent(text=f"{answer.summary}\n{body}")],
        structured_content=answer.data,
    )


def _user_error(p: Problem) -> dict[str, Any]:
    error: dict[str, Any] = {
        "code": p.code.value,
        "message": clipped(p.message),
        "field": [clipped(f, ECHO_LIMIT) for f in p.field],
    }
    for key, value in (("entity", p.entity), ("fromState", p.from_state), ("toState", p.to_state)):
        if value is not None:
            error[key] = value
    return error


async def run_tool(
    tool: Tool, runtime: Runtime, principal: Principal, arguments: dict[str, Any]
) -> types.CallToolResult:
    """Role, then arguments, then the service: each refusal an isError result, nothing written."""
    if not tool.access.allows(principal):
        return forbidden(tool.access.refusal)
    args, problems = tool.check.problems(arguments)
    if problems:
        return refusal(problems)
    try:
        answer = await tool.run(Call(runtime, principal, args))
    except ServiceError as exc:
        return refusal(exc.problems)
    return success(answer)
