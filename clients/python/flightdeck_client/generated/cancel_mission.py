from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields, Problems


class CancelMission(BaseModel):
    cancel_mission: "CancelMissionCancelMission" = Field(alias="cancelMission")


class CancelMissionCancelMission(BaseModel):
    mission: Optional["CancelMissionCancelMissionMission"]
    user_errors: list["CancelMissionCancelMissionUserErrors"] = Field(
        alias="userErrors"
    )


CancelMissionCancelMissionMission = MissionFields
CancelMissionCancelMissionUserErrors = Problems
CancelMission.model_rebuild()
CancelMissionCancelMission.model_rebuild()
