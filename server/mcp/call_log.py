"""Seed 003's mcp_tool_call_log: every tool call recorded (tool, tenant, session, duration, error flag,
argument and result sizes), fire and forget, by the operation log's writer (server/oplog.py): recording
only enqueues, so it never delays the reply."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import mcp_types as types

from ..auth import Principal
from ..limits import SHORT_TEXT
from ..metrics import record_tool_call
from ..services.runtime import Runtime
from .tools import refusal_code


@dataclass(frozen=True)
class ToolCallRecord:
    tenant_id: str
    tool: str
    actor: str
    session_id: str | None
    transport: str
    duration_ms: float
    error: bool
    error_code: str | None
    argument_bytes: int
    result_bytes: int
    at: datetime


def record_call(
    runtime: Runtime,
    principal: Principal,
    tool: str,
    transport: str,
    session: str | None,
    started: float,
    arguments: dict[str, Any],
    result: types.CallToolResult | None,
) -> None:
    """Enqueue one record; ``result`` None: the call was refused before any tool ran (unknown tool)."""
    seconds = time.perf_counter() - started
    code = None
    if result is None:
        code = "UNKNOWN_TOOL"
    elif result.is_error:
        code = refusal_code(result)[:32]
    outcome = "unknown_tool" if result is None else "error" if code else "ok"
    record_tool_call(tool if result is not None else None, outcome, seconds)
    writer = runtime.tool_call_log
    if writer is None:
        return
    writer.submit(
        ToolCallRecord(
            tenant_id=principal.tenant_id,
            tool=tool[:SHORT_TEXT],
            actor=principal.name[:SHORT_TEXT],
            session_id=session[:SHORT_TEXT] if session else None,
            transport=transport,
            duration_ms=seconds * 1000.0,
            error=code is not None,
            error_code=code,
            argument_bytes=_size(arguments),
            result_bytes=sum(len(c.text.encode()) for c in result.content if isinstance(c, types.TextContent))
            if result is not None
            else 0,
            at=runtime.clock.now(),
        )
    )


def _size(arguments: dict[str, Any]) -> int:
    try:
        return len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=str).encode())
    except (ValueError, RecursionError):  # a lone surrogate, or nested too deeply: refused anyway
        return 0
