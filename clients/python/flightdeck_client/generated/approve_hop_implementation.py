from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class ApproveHopImplementation(BaseModel):
    approve_hop_implementation: "ApproveHopImplementationApproveHopImplementation" = (
        Field(alias="approveHopImplementation")
    )


class ApproveHopImplementationApproveHopImplementation(BaseModel):
    mission: Optional["ApproveHopImplementationApproveHopImplementationMission"]
    hop: Optional["ApproveHopImplementationApproveHopImplementationHop"]
    tool_steps: list["ApproveHopImplementationApproveHopImplementationToolSteps"] = (
        Field(alias="toolSteps")
    )
    user_errors: list["ApproveHopImplementationApproveHopImplementationUserErrors"] = (
        Field(alias="userErrors")
    )


ApproveHopImplementationApproveHopImplementationMission = MissionFields
ApproveHopImplementationApproveHopImplementationHop = HopFields
ApproveHopImplementationApproveHopImplementationToolSteps = ToolStepFields
ApproveHopImplementationApproveHopImplementationUserErrors = Problems
ApproveHopImplementation.model_rebuild()
ApproveHopImplementationApproveHopImplementation.model_rebuild()
