"""createWorkflow (typed input or YAML) and startWorkflow (seed 002 §1: idle -> queued -> executing)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ...db.workflow_models import Workflow, WorkflowStep
from ...events.workflow_kinds import WorkflowEvent
from ...machines.workflow import WorkflowStatus, WorkflowStepStatus
from ..runtime import Tx
from .definition import WorkflowDefinition, retry_policy_document
from .reader import DefinitionWarning, document_from_yaml, read_definition
from .rows import lock_workflow, record_workflow_event, workflow_act
from .slots import lock_tenant_slots, promote_queued


@dataclass
class CreatedWorkflow:
    workflow: Workflow
    steps: list[WorkflowStep]
    warnings: list[DefinitionWarning]


async def create_workflow(
    tx: Tx, document: Any, name: str | None = None, rerun_of: str | None = None
) -> CreatedWorkflow:
    """From a definition document in the YAML's words (the typed input is turned into one);
    ``rerun_of``: the finished workflow this one runs again."""
    definition, warnings = read_definition(document, tx.settings, name=name)
    return await _insert(tx, definition, warnings, rerun_of)


async def create_workflow_from_yaml(tx: Tx, text: str, name: str | None = None) -> CreatedWorkflow:
    document, prefix = document_from_yaml(text, tx.settings)
    definition, warnings = read_definition(document, tx.settings, prefix, name)
    return await _insert(tx, definition, warnings)


async def _insert(
    tx: Tx, definition: WorkflowDefinition, warnings: list[DefinitionWarning], rerun_of: str | None = None
) -> CreatedWorkflow:
    workflow = Workflow(
        id=str(uuid.uuid4()),
        tenant_id=tx.tenant_id,
        name=definition.name,
        status=WorkflowStatus.IDLE.value,
        failure_policy=definition.failure_policy.value,
        timeout_seconds=definition.timeout.total_seconds() if definition.timeout else None,
        definition=definition.document,
        rerun_of_id=rerun_of,
        created_at=tx.now,
        updated_at=tx.now,
    )
    tx.session.add(workflow)
    await tx.session.flush()  # no ORM relationships: the workflow row must exist before its steps
    depended_on = {d for s in definition.steps for d in s.depends_on}
    steps = [
        WorkflowStep(
            id=str(uuid.uuid4()),
            tenant_id=tx.tenant_id,
            workflow_id=workflow.id,
            position=i + 1,
            name=s.name,
            agent=s.agent,
            depends_on=list(s.depends_on),
            timeout_seconds=s.timeout.total_seconds() if s.timeout else None,
            heartbeat_timeout_seconds=s.heartbeat_timeout.total_seconds() if s.heartbeat_timeout else None,
            on_failure=s.on_failure.value,
            retry_policy=retry_policy_document(s.retry_policy) if s.retry_policy else None,
            approval=s.approval,
            has_dependents=s.name in depended_on,
            compensation_action=s.compensation.action if s.compensation else None,
            compensation_agent=s.compensation.agent if s.compensation else None,
            status=WorkflowStepStatus.PENDING.value,
            attempt=0,
            created_at=tx.now,
            updated_at=tx.now,
        )
        for i, s in enumerate(definition.steps)
    ]
    tx.session.add_all(steps)
    record_workflow_event(
        tx,
        workflow,
        WorkflowEvent.WORKFLOW_CREATED,
        {
            "name": workflow.name,
            "steps": [s.name for s in steps],
            "warnings": [w.code for w in warnings],
            **({"rerunOf": rerun_of} if rerun_of else {}),
        },
    )
    return CreatedWorkflow(workflow, steps, warnings)


async def start_workflow(tx: Tx, workflow_id: str) -> Workflow:
    """idle -> queued, and on to executing at once when the tenant has a free slot."""
    await lock_tenant_slots(tx)
    workflow = await lock_workflow(tx, workflow_id)
    workflow_act(tx, workflow, "start", reason="started")
    await promote_queued(tx)
    return workflow
