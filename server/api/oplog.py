"""Records every GraphQL operation (name, type, duration, outcome) in the operation log, off the response
path, and in the process's metrics."""

from __future__ import annotations

import time
from typing import Any

from ..limits import SHORT_TEXT
from ..logs import log_operation_record
from ..metrics import record_operation
from ..oplog import OperationRecord


def log_operation(context: Any, name: str | None, op_type: str, started: float, outcome: str) -> None:
    """One answered operation: a metrics sample, and an operation log record when the log is on.

    A subscription is recorded when it ends; its duration is its whole life, so it is not timed in the
    latency histogram.
    """
    seconds = time.perf_counter() - started
    record_operation(name, op_type, None if op_type == "subscription" else seconds, outcome)
    principal = getattr(context, "principal", None)
    tenant = principal.tenant_id if principal is not None else ""
    log_operation_record(tenant, _loggable_name(name), op_type, seconds, outcome)
    writer = getattr(getattr(context, "runtime", None), "operation_log", None)
    if writer is None:
        return
    writer.submit(
        OperationRecord(
            tenant_id=context.principal.tenant_id,
            actor=context.principal.name,
            operation_name=_loggable_name(name),
            operation_type=op_type,
            duration_ms=seconds * 1000.0,
            error=outcome != "ok",
            at=context.runtime.clock.now(),
        )
    )


def user_error_codes(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return []
    return [
        str(error.get("code"))
        for payload in data.values()
        if isinstance(payload, dict)
        for error in payload.get("userErrors") or []
        if isinstance(error, dict)
    ]


def _loggable_name(name: str | None) -> str:
    # An operation's name is a GraphQL Name (ASCII letters, digits, _) of any length; the column holds
    # 200, and one longer name made PostgreSQL refuse the whole batch it was written with.
    return (name or "(anonymous)")[:SHORT_TEXT]
