"""Execution slots per tenant (seed 002 §1: queued -> executing "when an execution slot is available").

A tenant may have ``workflow_slots_per_tenant`` workflows executing, blocked or compensating at once.
Promotion takes a per-tenant lock before any workflow lock (PostgreSQL: a transaction-scoped advisory
lock; SQLite: the writer lock already serializes), so two instances never fill the same free slot.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import func, select, text

from ...db.workflow_models import Workflow
from ...machines.workflow import ACTIVE_WORKFLOW, WORKFLOW_MACHINE, WorkflowStatus
from ..runtime import Tx
from ..transitions import allowed
from .progress import settle_workflow
from .rows import lock_workflow, workflow_act


def slot_lock_key(tenant_id: str) -> int:
    """A stable signed 64-bit key for the tenant's advisory lock (Python's hash() is per process)."""
    digest = hashlib.sha256(f"flightdeck:workflow-slots:{tenant_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


async def lock_tenant_slots(tx: Tx) -> None:
    """Taken first, before any workflow row, by every transaction that may promote."""
    if not tx.runtime.db.is_sqlite:
        await tx.session.execute(
            text("SELECT pg_advisory_xact_lock(:key)"), {"key": slot_lock_key(tx.tenant_id)}
        )


async def active_count(tx: Tx) -> int:
    count = await tx.session.scalar(
        select(func.count())
        .select_from(Workflow)
        .where(Workflow.tenant_id == tx.tenant_id, Workflow.status.in_([s.value for s in ACTIVE_WORKFLOW]))
    )
    return int(count or 0)


async def promote_queued(tx: Tx) -> list[Workflow]:
    """Move the oldest queued workflows to executing while slots are free (after ``lock_tenant_slots``)."""
    free = tx.settings.workflow_slots_per_tenant - await active_count(tx)
    if free <= 0:
        return []
    queued = await tx.session.scalars(
        select(Workflow.id)
        .where(Workflow.tenant_id == tx.tenant_id, Workflow.status == WorkflowStatus.QUEUED.value)
        .order_by(Workflow.queued_at, Workflow.id)
        .limit(free)
    )
    promoted = []
    for workflow_id in list(queued.all()):
        workflow = await lock_workflow(tx, workflow_id)
        if not allowed(WORKFLOW_MACHINE, workflow, "promote"):
            continue  # started elsewhere since the read
        workflow_act(tx, workflow, "promote", reason="execution slot free")
        await settle_workflow(tx, workflow)  # opens gates at the roots
        promoted.append(workflow)
    return promoted
