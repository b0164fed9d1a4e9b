"""The event log as GraphQL: one type for every domain's events."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON

from ...db.models import Event
from ...realtime import LoggedEvent
from ..descriptions import EDGES, edge_node
from ..pagination import PageInfo


@strawberry.type(name="Event", description="One entry of the append-only event log.")
class EventType:
    seq: int = strawberry.field(description="Gap-free per tenant, in commit order.")
    kind: str = strawberry.field(description="Past tense: step_started, plan_transitioned, ...")
    entity_type: str = strawberry.field(
        description="What kind of object it is about: plan, step, mission, hop, workflow_step, ..."
    )
    entity_id: strawberry.ID = strawberry.field(description="The id of the object it is about.")
    root_type: str = strawberry.field(
        description="The kind of aggregate the object belongs to: plan, skill_execution, mission, workflow, "
        "tool."
    )
    root_id: strawberry.ID = strawberry.field(
        description="The aggregate's id (a step's plan, a hop's mission, ...)."
    )
    from_state: str | None = strawberry.field(description="A transition's state before; null otherwise.")
    to_state: str | None = strawberry.field(description="A transition's state after; null otherwise.")
    actor: str = strawberry.field(
        description="Who caused it: `dev`, `key:<name>`, or an engine loop (stall-monitor, "
        "workflow-timer, asset-expiry)."
    )
    data: JSON = strawberry.field(description="Details of this kind of event (a JSON object).")
    created_at: datetime = strawberry.field(description="When it was committed (UTC).")

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


@strawberry.type(description="An event and its position in the log.")
class EventEdge:
    cursor: str = strawberry.field(description="The event's seq, as a string.")
    node: EventType = strawberry.field(description=edge_node("event"))


@strawberry.type(description="A page of the event log, in seq order.")
class EventConnection:
    edges: list[EventEdge] = strawberry.field(description=EDGES)
    page_info: PageInfo = strawberry.field(
        description="Whether there are more events; endCursor is the last seq: pass it as `after`."
    )
