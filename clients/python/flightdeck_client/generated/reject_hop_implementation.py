from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class RejectHopImplementation(BaseModel):
    reject_hop_implementation: "RejectHopImplementationRejectHopImplementation" = Field(
        alias="rejectHopImplementation"
    )


class RejectHopImplementationRejectHopImplementation(BaseModel):
    mission: Optional["RejectHopImplementationRejectHopImplementationMission"]
    hop: Optional["RejectHopImplementationRejectHopImplementationHop"]
    tool_steps: list["RejectHopImplementationRejectHopImplementationToolSteps"] = Field(
        alias="toolSteps"
    )
    user_errors: list["RejectHopImplementationRejectHopImplementationUserErrors"] = (
        Field(alias="userErrors")
    )


RejectHopImplementationRejectHopImplementationMission = MissionFields
RejectHopImplementationRejectHopImplementationHop = HopFields
RejectHopImplementationRejectHopImplementationToolSteps = ToolStepFields
RejectHopImplementationRejectHopImplementationUserErrors = Problems
RejectHopImplementation.model_rebuild()
RejectHopImplementationRejectHopImplementation.model_rebuild()
