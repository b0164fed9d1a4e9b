from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields


class MissionUpdated(BaseModel):
    mission_updated: "MissionUpdatedMissionUpdated" = Field(alias="missionUpdated")


MissionUpdatedMissionUpdated = MissionFields
MissionUpdated.model_rebuild()
