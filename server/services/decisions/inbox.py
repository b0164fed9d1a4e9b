"""Reading decisions: the open ones of a tenant (the review inbox across every domain), "mine" among
them, one decision, and the policies of a scope."""

from __future__ import annotations

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...auth import Principal
from ...db.decision_models import Decision, DecisionPolicy
from ...machines.decision import OPEN_STATUSES, DecisionKind
from ..pages import Page, keyset_page
from ..validation import parse_id


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
) -> Page[Decision]:
    """Open (and escalated) decisions, oldest first; ``mine``: assigned to the key's name or role."""
    return await keyset_page(
        session,
        _open(principal, mine, kind),
        Decision.created_at,
        Decision.id,
        first,
        after,
        newest_first=False,
    )


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
