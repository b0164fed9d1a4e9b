"""The reviewer's queue in deadline order: gates with an open decision by its deadline (the nearest
first, none last) from the decisions' index, then the steps waiting with no decision point of their
own (governance escalations), the longest waiting first. A cursor says which of the two it is in."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_models import Decision
from ...db.workflow_models import WorkflowStep
from ...errors import invalid
from ..decisions import due
from ..listing import ListQuery
from ..pages import Page, decode_cursor, encode_cursor, keyset_page, time_cursor
from .queries import awaiting_review_query

UNDECIDED = "undecided"


@dataclass
class Gate:
    step: WorkflowStep
    decision: Decision | None


def gate_cursor(gate: Gate) -> str:
    if gate.decision is not None:
        return due.due_cursor(gate.decision)
    assert gate.step.started_at is not None
    return encode_cursor(UNDECIDED, time_cursor(gate.step.started_at, gate.step.id))


def _undecided_after(cursor: str) -> str:
    mark, inner = decode_cursor(cursor, 2)
    if mark != UNDECIDED:
        raise invalid("after is not a cursor this server issued", ["after"])
    return inner


async def gates_by_deadline(
    session: AsyncSession, tenant_id: str, first: int, after: str | None, wanted: ListQuery
) -> Page[Gate]:
    waiting = awaiting_review_query(session, tenant_id, wanted)
    found: list[Gate] = []
    undecided_after: str | None = None
    if after is None or due.is_due_cursor(after):
        decided = waiting.add_columns(Decision).join(Decision, Decision.subject_id == WorkflowStep.id)
        page = await due.due_rows(session, decided.where(due.open_in(tenant_id, "workflow")), first, after)
        found = [Gate(step, decision) for step, decision in page.items]
        if page.has_next_page:
            return Page(found, True)
    else:
        undecided_after = _undecided_after(after)
    open_about_it = exists().where(
        Decision.tenant_id == tenant_id, Decision.subject_id == WorkflowStep.id, Decision.due_key.is_not(None)
    )
    rest = await keyset_page(
        session,
        waiting.where(~open_about_it),
        WorkflowStep.started_at,
        WorkflowStep.id,
        first - len(found),
        undecided_after,
        newest_first=False,
    )
    return Page([*found, *(Gate(step, None) for step in rest.items)], rest.has_next_page)
