"""Read side of workflows: lookups, lists, steps, compensations and the reviewer's queue."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...errors import invalid, not_found
from ...machines.workflow import WorkflowStepStatus
from ..listing import OLDEST_FIRST, Listed, ListQuery, search_condition
from ..pages import Page, decode_cursor, encode_cursor, keyset_page, time_cursor
from ..validation import parse_id

Child = TypeVar("Child", WorkflowStep, WorkflowCompensation)


async def get_workflow(
    session: AsyncSession, tenant_id: str, workflow_id: str, field: str = "id"
) -> Workflow:
    wid = parse_id(workflow_id, field)
    row = await session.scalar(select(Workflow).where(Workflow.id == wid, Workflow.tenant_id == tenant_id))
    if row is None:
        raise not_found("workflow", workflow_id, [field])
    return row


async def get_step(session: AsyncSession, tenant_id: str, step_id: str, field: str = "id") -> WorkflowStep:
    sid = parse_id(step_id, field)
    row = await session.scalar(
        select(WorkflowStep).where(WorkflowStep.id == sid, WorkflowStep.tenant_id == tenant_id)
    )
    if row is None:
        raise not_found("step", step_id, [field])
    return row


async def reruns_of(session: AsyncSession, tenant_id: str, workflow_id: str) -> list[Workflow]:
    """The workflows made by rerunWorkflow from this one, oldest first (the (tenant, rerun_of_id) index)."""
    rows = await session.scalars(
        select(Workflow)
        .where(Workflow.tenant_id == tenant_id, Workflow.rerun_of_id == workflow_id)
        .order_by(Workflow.created_at, Workflow.id)
        .limit(100)
    )
    return list(rows.all())


WORKFLOWS = Listed(Workflow, "workflows_fts", ("name",))


async def _children_by_workflow(
    session: AsyncSession, model: type[Child], workflow_ids: Sequence[str]
) -> list[list[Child]]:
    """Steps or compensations of many workflows in one statement, each list in ``position`` order."""
    rows = await session.scalars(
        select(model).where(model.workflow_id.in_(workflow_ids)).order_by(model.workflow_id, model.position)
    )
    grouped: dict[str, list[Child]] = defaultdict(list)
    for row in rows:
        grouped[row.workflow_id].append(row)
    return [grouped.get(wid, []) for wid in workflow_ids]


async def steps_by_workflow(session: AsyncSession, workflow_ids: Sequence[str]) -> list[list[WorkflowStep]]:
    return await _children_by_workflow(session, WorkflowStep, workflow_ids)


def step_cursor(step: WorkflowStep) -> str:
    return encode_cursor(str(step.position))


def steps_page(steps: list[WorkflowStep], first: int, after: str | None) -> Page[WorkflowStep]:
    """A page of one workflow's steps in definition order (the steps are loaded whole anyway)."""
    start = 0
    if after:
        raw = decode_cursor(after, 1)[0]
        if not raw.isdigit():
            raise invalid("after is not a cursor this server issued", ["after"])
        start = next((i for i, s in enumerate(steps) if s.position > int(raw)), len(steps))
    return Page(steps[start : start + first], start + first < len(steps))


async def compensations_by_workflow(
    session: AsyncSession, workflow_ids: Sequence[str]
) -> list[list[WorkflowCompensation]]:
    """Each workflow's compensations in the order they run."""
    return await _children_by_workflow(session, WorkflowCompensation, workflow_ids)


async def workflows_by_id(session: AsyncSession, keys: Sequence[tuple[str, str]]) -> list[Workflow | None]:
    """Workflows by (tenant, id) in one statement; another tenant's id gives None."""
    ids = {wid for _, wid in keys}
    rows = await session.scalars(select(Workflow).where(Workflow.id.in_(ids)))
    found = {(w.tenant_id, w.id): w for w in rows}
    return [found.get(key) for key in keys]


async def definitions_by_id(session: AsyncSession, ids: Sequence[str]) -> list[dict[str, Any] | None]:
    """The stored definitions of workflows (ids already checked to be the caller's), in one statement."""
    rows = await session.execute(select(Workflow.id, Workflow.definition).where(Workflow.id.in_(set(ids))))
    found: dict[str, dict[str, Any]] = {wid: definition for wid, definition in rows}
    return [found.get(wid) for wid in ids]


def review_cursor(step: WorkflowStep) -> str:
    assert step.started_at is not None
    return time_cursor(step.started_at, step.id)


def awaiting_review_query(session: AsyncSession, tenant_id: str, wanted: ListQuery) -> Select[WorkflowStep]:
    """Waiting steps; ``wanted``'s range is on when the step started, its search on the workflow's name."""
    query = select(WorkflowStep).where(
        WorkflowStep.tenant_id == tenant_id,
        WorkflowStep.status == WorkflowStepStatus.RUNNING.value,
        WorkflowStep.blocked_on.is_not(None),
    )
    if wanted.since is not None:
        query = query.where(WorkflowStep.started_at >= wanted.since)
    if wanted.until is not None:
        query = query.where(WorkflowStep.started_at < wanted.until)
    if wanted.search is not None:
        named = select(Workflow.id).where(
            Workflow.tenant_id == tenant_id, search_condition(session, WORKFLOWS, wanted.search)
        )
        query = query.where(WorkflowStep.workflow_id.in_(named))
    return query


async def count_awaiting_review(
    session: AsyncSession, tenant_id: str, wanted: ListQuery = OLDEST_FIRST
) -> int:
    query = select(func.count()).select_from(awaiting_review_query(session, tenant_id, wanted).subquery())
    return int(await session.scalar(query) or 0)


async def awaiting_review(
    session: AsyncSession, tenant_id: str, first: int, after: str | None, wanted: ListQuery = OLDEST_FIRST
) -> Page[WorkflowStep]:
    """Steps that block their workflow until a reviewer answers (gates, escalations), oldest first
    unless ``wanted`` is descending."""
    query = awaiting_review_query(session, tenant_id, wanted)
    return await keyset_page(
        session, query, WorkflowStep.started_at, WorkflowStep.id, first, after, newest_first=wanted.descending
    )
