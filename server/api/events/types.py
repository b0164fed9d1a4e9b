"""The event log as GraphQL: one type for every domain's events."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON

from ...db.models import Event
from ...events.feed import LoggedEvent
from ..pagination import PageInfo


@strawberry.type(name="Event", description="One entry of the append-only event log.")
class EventType:
    seq: int = strawberry.field(description="Gap-free per tenant, in commit order.")
    kind: str = strawberry.field(description="Past tense: step_started, plan_transitioned, ...")
    entity_type: str
    entity_id: strawberry.ID
    root_type: str
    root_id: strawberry.ID
    from_state: str | None
    to_state: str | None
    actor: str
    data: JSON
    created_at: datetime

    @staticmethod
    def from_row(row: Event | LoggedEvent) -> EventType:
        return EventType(
            seq=row.seq,
            kind=row.kind,
            entity_type=row.entity_type,
            entity_id=strawberry.ID(row.entity_id),
            root_type=row.root_type,
            root_id=strawberry.ID(row.root_id),
            from_state=row.from_state,
            to_state=row.to_state,
            actor=row.actor,
            data=cast(JSON, row.data),
            created_at=row.created_at,
        )


@strawberry.type
class EventEdge:
    cursor: str
    node: EventType


@strawberry.type
class EventConnection:
    edges: list[EventEdge]
    page_info: PageInfo
