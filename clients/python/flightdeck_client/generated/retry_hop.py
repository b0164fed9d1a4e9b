from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import HopFields, MissionFields, Problems, ToolStepFields


class RetryHop(BaseModel):
    retry_hop: "RetryHopRetryHop" = Field(alias="retryHop")


class RetryHopRetryHop(BaseModel):
    mission: Optional["RetryHopRetryHopMission"]
    hop: Optional["RetryHopRetryHopHop"]
    tool_steps: list["RetryHopRetryHopToolSteps"] = Field(alias="toolSteps")
    user_errors: list["RetryHopRetryHopUserErrors"] = Field(alias="userErrors")


RetryHopRetryHopMission = MissionFields
RetryHopRetryHopHop = HopFields
RetryHopRetryHopToolSteps = ToolStepFields
RetryHopRetryHopUserErrors = Problems
RetryHop.model_rebuild()
RetryHopRetryHop.model_rebuild()
