from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields, Problems


class RejectMission(BaseModel):
    reject_mission: "RejectMissionRejectMission" = Field(alias="rejectMission")


class RejectMissionRejectMission(BaseModel):
    mission: Optional["RejectMissionRejectMissionMission"]
    user_errors: list["RejectMissionRejectMissionUserErrors"] = Field(
        alias="userErrors"
    )


RejectMissionRejectMissionMission = MissionFields
RejectMissionRejectMissionUserErrors = Problems
RejectMission.model_rebuild()
RejectMissionRejectMission.model_rebuild()
