from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class CompleteToolStep(BaseModel):
    complete_tool_step: "CompleteToolStepCompleteToolStep" = Field(
        alias="completeToolStep"
    )


class CompleteToolStepCompleteToolStep(BaseModel):
    mission: Optional["CompleteToolStepCompleteToolStepMission"]
    hop: Optional["CompleteToolStepCompleteToolStepHop"]
    tool_step: Optional["CompleteToolStepCompleteToolStepToolStep"] = Field(
        alias="toolStep"
    )
    user_errors: list["CompleteToolStepCompleteToolStepUserErrors"] = Field(
        alias="userErrors"
    )


CompleteToolStepCompleteToolStepMission = MissionFields
CompleteToolStepCompleteToolStepHop = HopFields
CompleteToolStepCompleteToolStepToolStep = ToolStepFields
CompleteToolStepCompleteToolStepUserErrors = Problems
CompleteToolStep.model_rebuild()
CompleteToolStepCompleteToolStep.model_rebuild()
