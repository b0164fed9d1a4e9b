"""The mission review inbox in deadline order: the open decisions under missions by their deadline
(the nearest first, none last), then by age, read from the decisions' index; then the page's hops and
assets by their keys. Its age and its time range are the decision's opening, the moment the proposal
started waiting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_models import Decision
from ...db.mission_models import Asset, Hop, Mission
from ...machines.decision import DecisionKind
from ..decisions import due
from ..listing import ListQuery, waiting
from ..pages import Page
from .inbox import Proposal, ReviewKind
from .queries import MISSIONS

DECISION_KIND: dict[ReviewKind, DecisionKind] = {
    ReviewKind.MISSION: DecisionKind.MISSION_APPROVAL,
    ReviewKind.HOP_PLAN: DecisionKind.HOP_PLAN,
    ReviewKind.HOP_IMPLEMENTATION: DecisionKind.HOP_IMPLEMENTATION,
    ReviewKind.ASSET: DecisionKind.ASSET_ACCEPTANCE,
}
M = TypeVar("M", Hop, Asset)
REVIEW_KIND = {decision: review for review, decision in DECISION_KIND.items()}


async def _by_id(session: AsyncSession, model: type[M], ids: list[str]) -> dict[str, M]:
    if not ids:
        return {}
    rows = (await session.scalars(select(model).where(model.id.in_(ids)))).all()
    return {row.id: row for row in rows}


async def proposals_by_deadline(
    session: AsyncSession,
    tenant_id: str,
    first: int,
    after: str | None,
    kinds: Sequence[ReviewKind],
    wanted: ListQuery,
) -> Page[Proposal]:
    query = (
        select(Decision, Mission)
        .select_from(Decision)
        .join(Mission, Mission.id == Decision.root_id)
        .where(due.open_in(tenant_id, "mission"), Mission.tenant_id == tenant_id)
    )
    if kinds:
        query = query.where(Decision.kind.in_([DECISION_KIND[k].value for k in kinds]))
    query = waiting(session, query, Decision.created_at, MISSIONS, wanted)
    page = await due.due_rows(session, query, first, after)
    hops = await _by_id(session, Hop, [d.subject_id for d, _ in page.items if d.subject_type == "hop"])
    assets = await _by_id(session, Asset, [d.subject_id for d, _ in page.items if d.subject_type == "asset"])
    items = [
        Proposal(
            REVIEW_KIND[DecisionKind(decision.kind)],
            mission,
            hop=hops.get(decision.subject_id),
            asset=assets.get(decision.subject_id),
            decision=decision,
        )
        for decision, mission in page.items
    ]
    return Page(items, page.has_next_page)
