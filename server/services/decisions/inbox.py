"""Reading decisions: the open ones of a tenant (the review inbox across every domain), "mine" among
them, one decision, and the policies of a scope."""

from __future__ import annotations

from sqlalchemy import Select, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ...auth import Principal
from ...db.decision_models import Decision, DecisionPolicy
from ...machines.decision import OPEN_STATUSES, DecisionKind
from ..pages import Page, keyset_page
from ..validation import parse_id
from .due import ORDER, decode_due_cursor

# The roots every decision point lives under (points.py, which imports the services and so not here).
ROOT_TYPES = ("mission", "plan", "workflow")


def assignees_of(principal: Principal) -> list[str]:
    """The assignee values that mean this key: ``user:`` its name (as the key was created), and
    ``role:`` its role."""
    return [f"user:{principal.name.removeprefix('key:')}", f"role:{principal.role.value}"]


def _open(principal: Principal, mine: bool, kind: DecisionKind | None) -> Select[Decision]:
    """Open (and escalated) decisions of the key's tenant; ``mine``: assigned to its name or role."""
    query = select(Decision).where(
        Decision.tenant_id == principal.tenant_id, Decision.status.in_([s.value for s in OPEN_STATUSES])
    )
    if mine:
        query = query.where(Decision.assignee.in_(assignees_of(principal)))
    if kind is not None:
        query = query.where(Decision.kind == kind.value)
    return query


async def open_decisions(
    session: AsyncSession,
    principal: Principal,
    first: int,
    after: str | None,
    *,
    mine: bool = False,
    kind: DecisionKind | None = None,
    by_deadline: bool = False,
) -> Page[Decision]:
    """Open (and escalated) decisions, oldest first; ``mine``: assigned to the key's name or role.
    ``by_deadline``: the nearest deadline first, none last, then the oldest."""
    if by_deadline:
        return await _by_deadline(session, _open(principal, mine, kind), first, after)
    return await keyset_page(
        session,
        _open(principal, mine, kind),
        Decision.created_at,
        Decision.id,
        first,
        after,
        newest_first=False,
    )


async def _by_deadline(
    session: AsyncSession, query: Select[Decision], first: int, after: str | None
) -> Page[Decision]:
    """Each root type's page read in order from the decisions' due index (tenant, root type, due_key,
    ...), the few pages merged here."""
    mark = tuple_(*decode_due_cursor(after)) if after else None
    found: list[Decision] = []
    for root_type in ROOT_TYPES:
        ordered = query.where(Decision.root_type == root_type, Decision.due_key.is_not(None))
        if mark is not None:
            ordered = ordered.where(tuple_(*ORDER) > mark)
        found += (await session.scalars(ordered.order_by(*ORDER).limit(first + 1))).all()
    found.sort(key=lambda d: (d.due_key, d.created_at, d.id))
    return Page(found[:first], len(found) > first)


async def count_open_decisions(
    session: AsyncSession, principal: Principal, *, mine: bool = False, kind: DecisionKind | None = None
) -> int:
    """How many decisions ``open_decisions`` pages through."""
    counted = await session.scalar(select(func.count()).select_from(_open(principal, mine, kind).subquery()))
    return int(counted or 0)


async def decision_by_id(session: AsyncSession, tenant_id: str, decision_id: str) -> Decision | None:
    found = await session.get(Decision, parse_id(decision_id, "id"))
    return found if found is not None and found.tenant_id == tenant_id else None


async def decisions_about(session: AsyncSession, tenant_id: str, subject_id: str) -> list[Decision]:
    """Every decision about one step, gate, mission, hop or asset, oldest first."""
    return list(
        (
            await session.scalars(
                select(Decision)
                .where(
                    Decision.tenant_id == tenant_id, Decision.subject_id == parse_id(subject_id, "subjectId")
                )
                .order_by(Decision.created_at, Decision.id)
            )
        ).all()
    )


async def policies(session: AsyncSession, tenant_id: str) -> list[DecisionPolicy]:
    return list(
        (
            await session.scalars(
                select(DecisionPolicy)
                .where(DecisionPolicy.tenant_id == tenant_id)
                .order_by(DecisionPolicy.scope_type, DecisionPolicy.scope_id, DecisionPolicy.kind)
            )
        ).all()
    )
