"""The mission review inbox: proposed missions, hop plans, hop implementations and assets waiting for a
person, one list across the four kinds, in waiting order, filtered and paged by cursor.

A proposal waits from when it entered its state: its ``updated_at`` (nothing else changes a row while
it waits). Each kind is read from its own index (tenant, status, updated_at, id), at most a page of
each after the cursor, and the four are merged here; the list's order is (waiting since, kind, id), so
equal times of two kinds still have one order and a cursor holds all three.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, Select, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_models import Decision
from ...db.mission_models import Asset, Hop, Mission
from ...errors import invalid
from ...machines.mission import AssetStatus, HopStatus, MissionStatus
from ..decisions.due import due_cursor
from ..listing import OLDEST_FIRST, ListQuery, waiting
from ..pages import Page, as_utc, decode_cursor, encode_cursor
from .queries import MISSIONS


class ReviewKind(StrEnum):
    MISSION = "mission"
    HOP_PLAN = "hop_plan"
    HOP_IMPLEMENTATION = "hop_implementation"
    ASSET = "asset"


# Each kind: its table, the state it waits in; the tuple's order is the kinds' order at equal times.
KINDS: dict[ReviewKind, tuple[type[Mission] | type[Hop] | type[Asset], str]] = {
    ReviewKind.MISSION: (Mission, MissionStatus.PROPOSED.value),
    ReviewKind.HOP_PLAN: (Hop, HopStatus.PLAN_PROPOSED.value),
    ReviewKind.HOP_IMPLEMENTATION: (Hop, HopStatus.IMPLEMENTATION_PROPOSED.value),
    ReviewKind.ASSET: (Asset, AssetStatus.PROPOSED.value),
}
RANK = {kind: rank for rank, kind in enumerate(KINDS)}


@dataclass
class Proposal:
    """One thing waiting: the mission it belongs to, and the hop or asset when it is one."""

    kind: ReviewKind
    mission: Mission
    hop: Hop | None = None
    asset: Asset | None = None
    # Read with the deadline order (due_inbox.py): its cursor is the decision's position.
    decision: Decision | None = None

    @property
    def row(self) -> Mission | Hop | Asset:
        return self.hop or self.asset or self.mission

    @property
    def waiting_since(self) -> datetime:
        return self.row.updated_at

    def position(self) -> tuple[datetime, int]:
        return (self.waiting_since, RANK[self.kind])


def proposal_cursor(item: Proposal) -> str:
    if item.decision is not None:
        return due_cursor(item.decision)
    return encode_cursor(item.waiting_since.isoformat(), str(RANK[item.kind]), item.row.id)


def _decode(after: str) -> tuple[datetime, int, str]:
    raw_time, raw_rank, row_id = decode_cursor(after, 3)
    try:
        rank = int(raw_rank)
        if not 0 <= rank < len(KINDS):
            raise ValueError(raw_rank)
        return as_utc(datetime.fromisoformat(raw_time)), rank, row_id
    except ValueError:
        raise invalid("after is not a cursor this server issued", ["after"]) from None


def _matching(session: AsyncSession, tenant_id: str, kind: ReviewKind, wanted: ListQuery) -> Select[Any]:
    model, status = KINDS[kind]
    query: Select[Any]
    if model is Mission:
        query = select(Mission)
    else:
        child: Any = model  # a hop or an asset: both carry their mission_id
        query = select(child, Mission).join(Mission, Mission.id == child.mission_id)
    query = query.where(model.tenant_id == tenant_id, model.status == status)
    return waiting(session, query, model.updated_at, MISSIONS, wanted)


def _after(kind: ReviewKind, mark: tuple[datetime, int, str], descending: bool) -> ColumnElement[bool]:
    """Rows of ``kind`` past the cursor's (time, kind, id) in the list's direction, by the kind's index."""
    model, _ = KINDS[kind]
    when, rank, row_id = mark
    if RANK[kind] == rank:
        position = tuple_(model.updated_at, model.id)
        return position < tuple_(when, row_id) if descending else position > tuple_(when, row_id)
    # Another kind at the same time lies after the cursor when its rank comes later in the direction.
    same_time_follows = (RANK[kind] < rank) if descending else (RANK[kind] > rank)
    if descending:
        return model.updated_at <= when if same_time_follows else model.updated_at < when
    return model.updated_at >= when if same_time_follows else model.updated_at > when


async def proposals_waiting(
    session: AsyncSession,
    tenant_id: str,
    first: int,
    after: str | None,
    kinds: Sequence[ReviewKind] = (),
    wanted: ListQuery = OLDEST_FIRST,
) -> Page[Proposal]:
    """The longest waiting first (the most recent with ``wanted.descending``), ``first`` of them."""
    mark = _decode(after) if after else None
    found: list[Proposal] = []
    for kind in kinds or list(KINDS):
        model, _ = KINDS[kind]
        query = _matching(session, tenant_id, kind, wanted)
        if mark is not None:
            query = query.where(_after(kind, mark, wanted.descending))
        order = (model.updated_at, model.id)
        query = query.order_by(*(o.desc() if wanted.descending else o.asc() for o in order)).limit(first + 1)
        if model is Mission:
            found += [Proposal(kind, mission) for mission in (await session.scalars(query)).all()]
        else:
            for row, mission in (await session.execute(query)).all():
                found.append(
                    Proposal(
                        kind,
                        mission,
                        hop=row if model is Hop else None,
                        asset=row if model is Asset else None,
                    )
                )
    # A stable sort keeps each kind's id order (the database's) among equal (time, kind).
    found.sort(key=Proposal.position, reverse=wanted.descending)
    return Page(found[:first], len(found) > first)


async def count_waiting(
    session: AsyncSession, tenant_id: str, kinds: Sequence[ReviewKind] = (), wanted: ListQuery = OLDEST_FIRST
) -> int:
    total = 0
    for kind in kinds or list(KINDS):
        counted = _matching(session, tenant_id, kind, wanted).with_only_columns(func.count())
        total += int(await session.scalar(counted) or 0)
    return total
