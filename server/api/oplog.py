"""Records every GraphQL operation (name, type, duration, outcome) in the operation log, off the response
path, and in the process's metrics."""

from __future__ import annotations

import time
from typing import Any

from graphql import DocumentNode, FieldNode, OperationDefinitionNode

from ..limits import SHORT_TEXT
from ..logs import log_operation_record
from ..metrics import record_operation
from ..oplog import OperationRecord

# Root fields named in one label; a document selecting more is labelled by the first few and "+more".
MAX_ROOT_FIELDS = 3


def log_operation(
    context: Any,
    name: str | None,
    op_type: str,
    started: float,
    outcome: str,
    document: DocumentNode | None = None,
) -> None:
    """One answered operation: a metrics sample, and an operation log record when the log is on.

    A subscription is recorded when it ends; its duration is its whole life, so it is not timed in the
    latency histogram.
    """
    seconds = time.perf_counter() - started
    runtime = getattr(context, "runtime", None)
    clients_names = runtime is not None and runtime.settings.metrics_operation_names
    label = name if clients_names else root_fields_label(document, name)
    record_operation(label, op_type, None if op_type == "subscription" else seconds, outcome)
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


def root_fields_label(document: DocumentNode | None, name: str | None) -> str:
    """The operation's root fields (``createResearchPlan``, ``plan+plans``): names from the schema, not
    the client's own text; ``invalid`` for a document that did not parse."""
    if document is None:
        return "invalid"
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    chosen = next((o for o in operations if o.name is not None and o.name.value == name), None)
    if chosen is None and len(operations) == 1:
        chosen = operations[0]
    if chosen is None:
        return "invalid"
    fields = sorted({s.name.value for s in chosen.selection_set.selections if isinstance(s, FieldNode)})
    return "+".join(fields[:MAX_ROOT_FIELDS]) + ("+more" if len(fields) > MAX_ROOT_FIELDS else "") or "other"


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
