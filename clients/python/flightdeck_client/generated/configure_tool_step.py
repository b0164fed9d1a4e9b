from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class ConfigureToolStep(BaseModel):
    configure_tool_step: "ConfigureToolStepConfigureToolStep" = Field(
        alias="configureToolStep"
    )


class ConfigureToolStepConfigureToolStep(BaseModel):
    mission: Optional["ConfigureToolStepConfigureToolStepMission"]
    hop: Optional["ConfigureToolStepConfigureToolStepHop"]
    tool_step: Optional["ConfigureToolStepConfigureToolStepToolStep"] = Field(
        alias="toolStep"
    )
    user_errors: list["ConfigureToolStepConfigureToolStepUserErrors"] = Field(
        alias="userErrors"
    )


ConfigureToolStepConfigureToolStepMission = MissionFields
ConfigureToolStepConfigureToolStepHop = HopFields
ConfigureToolStepConfigureToolStepToolStep = ToolStepFields
ConfigureToolStepConfigureToolStepUserErrors = Problems
ConfigureToolStep.model_rebuild()
ConfigureToolStepConfigureToolStep.model_rebuild()
