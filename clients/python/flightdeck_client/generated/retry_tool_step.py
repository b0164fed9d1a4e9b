from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class RetryToolStep(BaseModel):
    retry_tool_step: "RetryToolStepRetryToolStep" = Field(alias="retryToolStep")


class RetryToolStepRetryToolStep(BaseModel):
    mission: Optional["RetryToolStepRetryToolStepMission"]
    hop: Optional["RetryToolStepRetryToolStepHop"]
    tool_step: Optional["RetryToolStepRetryToolStepToolStep"] = Field(alias="toolStep")
    user_errors: list["RetryToolStepRetryToolStepUserErrors"] = Field(
        alias="userErrors"
    )


RetryToolStepRetryToolStepMission = MissionFields
RetryToolStepRetryToolStepHop = HopFields
RetryToolStepRetryToolStepToolStep = ToolStepFields
RetryToolStepRetryToolStepUserErrors = Problems
RetryToolStep.model_rebuild()
RetryToolStepRetryToolStep.model_rebuild()
