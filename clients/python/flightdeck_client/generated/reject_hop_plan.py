from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class RejectHopPlan(BaseModel):
    reject_hop_plan: "RejectHopPlanRejectHopPlan" = Field(alias="rejectHopPlan")


class RejectHopPlanRejectHopPlan(BaseModel):
    mission: Optional["RejectHopPlanRejectHopPlanMission"]
    hop: Optional["RejectHopPlanRejectHopPlanHop"]
    tool_steps: list["RejectHopPlanRejectHopPlanToolSteps"] = Field(alias="toolSteps")
    user_errors: list["RejectHopPlanRejectHopPlanUserErrors"] = Field(
        alias="userErrors"
    )


RejectHopPlanRejectHopPlanMission = MissionFields
RejectHopPlanRejectHopPlanHop = HopFields
RejectHopPlanRejectHopPlanToolSteps = ToolStepFields
RejectHopPlanRejectHopPlanUserErrors = Problems
RejectHopPlan.model_rebuild()
RejectHopPlanRejectHopPlan.model_rebuild()
