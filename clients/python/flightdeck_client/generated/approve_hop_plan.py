from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class ApproveHopPlan(BaseModel):
    approve_hop_plan: "ApproveHopPlanApproveHopPlan" = Field(alias="approveHopPlan")


class ApproveHopPlanApproveHopPlan(BaseModel):
    mission: Optional["ApproveHopPlanApproveHopPlanMission"]
    hop: Optional["ApproveHopPlanApproveHopPlanHop"]
    tool_steps: list["ApproveHopPlanApproveHopPlanToolSteps"] = Field(alias="toolSteps")
    user_errors: list["ApproveHopPlanApproveHopPlanUserErrors"] = Field(
        alias="userErrors"
    )


ApproveHopPlanApproveHopPlanMission = MissionFields
ApproveHopPlanApproveHopPlanHop = HopFields
ApproveHopPlanApproveHopPlanToolSteps = ToolStepFields
ApproveHopPlanApproveHopPlanUserErrors = Problems
ApproveHopPlan.model_rebuild()
ApproveHopPlanApproveHopPlan.model_rebuild()
