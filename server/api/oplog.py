"""Records every GraphQL operation (name, type, duration, error flag) off the response path."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from strawberry.extensions import SchemaExtension

from ..limits import SHORT_TEXT
from ..oplog import OperationRecord


class OperationLogExtension(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        ctx = self.execution_context
        context = ctx.context
        writer = getattr(getattr(context, "runtime", None), "operation_log", None)
        if writer is None:
            return
        result = ctx.result
        error = bool(getattr(result, "errors", None)) or _has_user_errors(getattr(result, "data", None))
        op_type = ctx.operation_type.value if ctx.operation_type else "unknown"
        writer.submit(
            OperationRecord(
                tenant_id=context.principal.tenant_id,
                actor=context.principal.name,
                operation_name=_loggable_name(ctx.operation_name),
                operation_type=op_type,
                duration_ms=(time.perf_counter() - started) * 1000.0,
                error=error,
                at=context.runtime.clock.now(),
            )
        )


def _has_user_errors(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    return any(isinstance(v, dict) and v.get("userErrors") for v in data.values())


def _loggable_name(name: str | None) -> str:
    # An operation's name is a GraphQL Name (ASCII letters, digits, _) of any length; the column holds
    # 200, and one longer name made PostgreSQL refuse the whole batch it was written with.
    return (name or "(anonymous)")[:SHORT_TEXT]
