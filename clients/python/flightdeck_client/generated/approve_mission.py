from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields, Problems


class ApproveMission(BaseModel):
    approve_mission: "ApproveMissionApproveMission" = Field(alias="approveMission")


class ApproveMissionApproveMission(BaseModel):
    mission: Optional["ApproveMissionApproveMissionMission"]
    user_errors: list["ApproveMissionApproveMissionUserErrors"] = Field(
        alias="userErrors"
    )


ApproveMissionApproveMissionMission = MissionFields
ApproveMissionApproveMissionUserErrors = Problems
ApproveMission.model_rebuild()
ApproveMissionApproveMission.model_rebuild()
