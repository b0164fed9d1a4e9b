from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStepStatus
from .fragments import Problems


class CompleteWorkflowStep(BaseModel):
    complete_workflow_step: "CompleteWorkflowStepCompleteWorkflowStep" = Field(
        alias="completeWorkflowStep"
    )


class CompleteWorkflowStepCompleteWorkflowStep(BaseModel):
    step: Optional["CompleteWorkflowStepCompleteWorkflowStepStep"]
    user_errors: list["CompleteWorkflowStepCompleteWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


class CompleteWorkflowStepCompleteWorkflowStepStep(BaseModel):
    id: str
    status: WorkflowStepStatus


CompleteWorkflowStepCompleteWorkflowStepUserErrors = Problems
CompleteWorkflowStep.model_rebuild()
CompleteWorkflowStepCompleteWorkflowStep.model_rebuild()
