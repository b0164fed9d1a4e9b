from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class StartHop(BaseModel):
    start_hop: "StartHopStartHop" = Field(alias="startHop")


class StartHopStartHop(BaseModel):
    mission: Optional["StartHopStartHopMission"]
    hop: Optional["StartHopStartHopHop"]
    tool_steps: list["StartHopStartHopToolSteps"] = Field(alias="toolSteps")
    user_errors: list["StartHopStartHopUserErrors"] = Field(alias="userErrors")


StartHopStartHopMission = MissionFields
StartHopStartHopHop = HopFields
StartHopStartHopToolSteps = ToolStepFields
StartHopStartHopUserErrors = Problems
StartHop.model_rebuild()
StartHopStartHop.model_rebuild()
