from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import MissionFields, Problems


class ProposeMission(BaseModel):
    propose_mission: "ProposeMissionProposeMission" = Field(alias="proposeMission")


class ProposeMissionProposeMission(BaseModel):
    mission: Optional["ProposeMissionProposeMissionMission"]
    user_errors: list["ProposeMissionProposeMissionUserErrors"] = Field(
        alias="userErrors"
    )


ProposeMissionProposeMissionMission = MissionFields
ProposeMissionProposeMissionUserErrors = Problems
ProposeMission.model_rebuild()
ProposeMissionProposeMission.model_rebuild()
