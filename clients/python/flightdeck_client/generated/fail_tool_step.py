from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class FailToolStep(BaseModel):
    fail_tool_step: "FailToolStepFailToolStep" = Field(alias="failToolStep")


class FailToolStepFailToolStep(BaseModel):
    mission: Optional["FailToolStepFailToolStepMission"]
    hop: Optional["FailToolStepFailToolStepHop"]
    tool_step: Optional["FailToolStepFailToolStepToolStep"] = Field(alias="toolStep")
    user_errors: list["FailToolStepFailToolStepUserErrors"] = Field(alias="userErrors")


FailToolStepFailToolStepMission = MissionFields
FailToolStepFailToolStepHop = HopFields
FailToolStepFailToolStepToolStep = ToolStepFields
FailToolStepFailToolStepUserErrors = Problems
FailToolStep.model_rebuild()
FailToolStepFailToolStep.model_rebuild()
