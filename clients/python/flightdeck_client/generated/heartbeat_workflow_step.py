from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStepStatus
from .fragments import Problems


class HeartbeatWorkflowStep(BaseModel):
    heartbeat_workflow_step: "HeartbeatWorkflowStepHeartbeatWorkflowStep" = Field(
        alias="heartbeatWorkflowStep"
    )


class HeartbeatWorkflowStepHeartbeatWorkflowStep(BaseModel):
    step: Optional["HeartbeatWorkflowStepHeartbeatWorkflowStepStep"]
    user_errors: list["HeartbeatWorkflowStepHeartbeatWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


class HeartbeatWorkflowStepHeartbeatWorkflowStepStep(BaseModel):
    id: str
    status: WorkflowStepStatus
    timeout_at: Optional[datetime] = Field(alias="timeoutAt")


HeartbeatWorkflowStepHeartbeatWorkflowStepUserErrors = Problems
HeartbeatWorkflowStep.model_rebuild()
HeartbeatWorkflowStepHeartbeatWorkflowStep.model_rebuild()
