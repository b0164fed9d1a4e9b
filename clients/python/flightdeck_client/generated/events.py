from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import EventFields


class Events(BaseModel):
    events: "EventsEvents"


class EventsEvents(BaseModel):
    edges: list["EventsEventsEdges"]
    page_info: "EventsEventsPageInfo" = Field(alias="pageInfo")
    total_count: int = Field(alias="totalCount")


class EventsEventsEdges(BaseModel):
    cursor: str
    node: "EventsEventsEdgesNode"


EventsEventsEdgesNode = EventFields


class EventsEventsPageInfo(BaseModel):
    has_next_page: bool = Field(alias="hasNextPage")
    end_cursor: Optional[str] = Field(alias="endCursor")


Events.model_rebuild()
EventsEvents.model_rebuild()
EventsEventsEdges.model_rebuild()
