from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class CancelHop(BaseModel):
    cancel_hop: "CancelHopCancelHop" = Field(alias="cancelHop")


class CancelHopCancelHop(BaseModel):
    mission: Optional["CancelHopCancelHopMission"]
    hop: Optional["CancelHopCancelHopHop"]
    tool_steps: list["CancelHopCancelHopToolSteps"] = Field(alias="toolSteps")
    user_errors: list["CancelHopCancelHopUserErrors"] = Field(alias="userErrors")


CancelHopCancelHopMission = MissionFields
CancelHopCancelHopHop = HopFields
CancelHopCancelHopToolSteps = ToolStepFields
CancelHopCancelHopUserErrors = Problems
CancelHop.model_rebuild()
CancelHopCancelHop.model_rebuild()
