from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStepStatus
from .fragments import Problems


class FailWorkflowStep(BaseModel):
    fail_workflow_step: "FailWorkflowStepFailWorkflowStep" = Field(
        alias="failWorkflowStep"
    )


class FailWorkflowStepFailWorkflowStep(BaseModel):
    step: Optional["FailWorkflowStepFailWorkflowStepStep"]
    user_errors: list["FailWorkflowStepFailWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


class FailWorkflowStepFailWorkflowStepStep(BaseModel):
    id: str
    status: WorkflowStepStatus
    attempt: int
    next_attempt_at: Optional[datetime] = Field(alias="nextAttemptAt")


FailWorkflowStepFailWorkflowStepUserErrors = Problems
FailWorkflowStep.model_rebuild()
FailWorkflowStepFailWorkflowStep.model_rebuild()
