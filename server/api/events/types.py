"""The event log as GraphQL: one type for every domain's events."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON

from ...db.models import Event
from ...errors import ServiceError
from ...realtime import LoggedEvent
from ...services.history import EventQuery, check_event_query
from ...services.pages import as_utc
from ..errors import top_level_error


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


@strawberry.input(description="Every given condition must hold.")
class EventFilter:
    root_id: strawberry.ID | None = strawberry.field(
        default=None, description="Only events of this aggregate (a plan, mission, workflow)."
    )
    root_type: str | None = strawberry.field(
        default=None,
        description="Only events of this kind of aggregate: plan, skill_execution, mission, workflow, tool.",
    )
    entity_id: strawberry.ID | None = strawberry.field(
        default=None, description="Only events about this object (a step, a hop, a plan, ...)."
    )
    entity_type: str | None = strawberry.field(
        default=None, description="Only events about this kind of object: plan, step, hop, ..."
    )
    kinds: list[str] | None = strawberry.field(
        default=None,
        description='Only events of these kinds (past-tense names, at most 50), e.g. ["plan_stalled"].',
    )
    since: datetime | None = strawberry.field(default=None, description="Committed at or after this time.")
    until: datetime | None = strawberry.field(
        default=None, description="Committed before this time; must be later than `since`."
    )

    def query(self) -> EventQuery:
        return EventQuery(
            root_id=str(self.root_id) if self.root_id is not None else None,
            root_type=self.root_type,
            entity_id=str(self.entity_id) if self.entity_id is not None else None,
            entity_type=self.entity_type,
            kinds=tuple(self.kinds or ()),
            since=as_utc(self.since) if self.since is not None else None,
            until=as_utc(self.until) if self.until is not None else None,
        )

    def matches(self, event: LoggedEvent) -> bool:
        return (
            (self.root_id is None or event.root_id == str(self.root_id))
            and (self.root_type is None or event.root_type == self.root_type)
            and (self.entity_id is None or event.entity_id == str(self.entity_id))
            and (self.entity_type is None or event.entity_type == self.entity_type)
            and (not self.kinds or event.kind in self.kinds)
            and (self.since is None or event.created_at >= as_utc(self.since))
            and (self.until is None or event.created_at < as_utc(self.until))
        )

    def identity(self) -> tuple[object, ...]:
        kinds = tuple(sorted(self.kinds)) if self.kinds else None
        return (self.root_id, self.root_type, self.entity_id, self.entity_type, kinds, self.since, self.until)


def checked_filter(given: EventFilter) -> EventQuery:
    """The filter as a service query; a top-level VALIDATION_FAILED when it is out of bounds."""
    query = given.query()
    try:
        check_event_query(query)
    except ServiceError as exc:
        raise top_level_error(exc) from None
    return query
