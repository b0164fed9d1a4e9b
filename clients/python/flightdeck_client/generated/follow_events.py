from .base_model import BaseModel
from .fragments import EventFields


class FollowEvents(BaseModel):
    events: "FollowEventsEvents"


FollowEventsEvents = EventFields
FollowEvents.model_rebuild()
