"""Read side of the missions domain: lookups, lists, children batched per parent (no N+1), the inbox."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from ...errors import invalid, not_found
from ...machines.mission import AssetStatus, HopStatus, MissionStatus
from ..listing import Listed
from ..pages import decode_cursor, encode_cursor
from ..validation import parse_id

R = TypeVar("R", Hop, ToolStep, Asset)


async def get_mission(session: AsyncSession, tenant_id: str, mission_id: str, field: str = "id") -> Mission:
    mid = parse_id(mission_id, field)
    mission = await session.scalar(select(Mission).where(Mission.id == mid, Mission.tenant_id == tenant_id))
    if mission is None:
        raise not_found("mission", mission_id, [field])
    return mission


MISSIONS = Listed(Mission, "missions_fts", ("title",))


async def _grouped(
    session: AsyncSession, model: type[R], key: Any, parent_ids: Sequence[str], *order: Any
) -> list[list[R]]:
    rows = await session.scalars(select(model).where(key.in_(parent_ids)).order_by(*order))
    grouped: dict[str, list[R]] = defaultdict(list)
    for row in rows:
        grouped[getattr(row, key.key)].append(row)
    return [grouped.get(pid, []) for pid in parent_ids]


async def hops_by_mission(session: AsyncSession, mission_ids: Sequence[str]) -> list[list[Hop]]:
    return await _grouped(session, Hop, Hop.mission_id, mission_ids, Hop.sequence)


async def steps_by_hop(session: AsyncSession, hop_ids: Sequence[str]) -> list[list[ToolStep]]:
    return await _grouped(session, ToolStep, ToolStep.hop_id, hop_ids, ToolStep.position)


async def assets_by_mission(session: AsyncSession, mission_ids: Sequence[str]) -> list[list[Asset]]:
    return await _grouped(session, Asset, Asset.mission_id, mission_ids, Asset.created_at, Asset.id)


async def list_tools(session: AsyncSession, tenant_id: str) -> list[Tool]:
    rows = await session.scalars(select(Tool).where(Tool.tenant_id == tenant_id).order_by(Tool.name))
    return list(rows.all())


@dataclass
class AwaitingReview:
    missions: list[Mission]
    hop_plans: list[Hop]
    hop_implementations: list[Hop]
    assets: list[Asset]


async def awaiting_review(session: AsyncSession, tenant_id: str, first: int) -> AwaitingReview:
    """What waits for a person, oldest first (up to ``first`` of each kind)."""

    async def waiting(model: type[R] | type[Mission], status: str) -> list[Any]:
        rows = await session.scalars(
            select(model)
            .where(model.tenant_id == tenant_id, model.status == status)
            .order_by(model.created_at)
            .limit(first)
        )
        return list(rows.all())

    return AwaitingReview(
        missions=await waiting(Mission, MissionStatus.PROPOSED.value),
        hop_plans=await waiting(Hop, HopStatus.PLAN_PROPOSED.value),
        hop_implementations=await waiting(Hop, HopStatus.IMPLEMENTATION_PROPOSED.value),
        assets=await waiting(Asset, AssetStatus.PROPOSED.value),
    )


def child_cursor(position: int) -> str:
    return encode_cursor("pos", str(position))


def child_offset(after: str | None) -> int:
    """Index of the first child after ``after`` (a cursor of ``child_cursor``)."""
    if after is None:
        return 0
    _, raw = decode_cursor(after, 2)
    if not raw.isdigit():
        raise invalid("after is not a cursor this server issued", ["after"])
    return int(raw) + 1
