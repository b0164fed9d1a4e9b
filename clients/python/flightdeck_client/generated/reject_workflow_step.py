from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, StepFields, WorkflowFields


class RejectWorkflowStep(BaseModel):
    reject_workflow_step: "RejectWorkflowStepRejectWorkflowStep" = Field(
        alias="rejectWorkflowStep"
    )


class RejectWorkflowStepRejectWorkflowStep(BaseModel):
    workflow: Optional["RejectWorkflowStepRejectWorkflowStepWorkflow"]
    step: Optional["RejectWorkflowStepRejectWorkflowStepStep"]
    user_errors: list["RejectWorkflowStepRejectWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


RejectWorkflowStepRejectWorkflowStepWorkflow = WorkflowFields
RejectWorkflowStepRejectWorkflowStepStep = StepFields
RejectWorkflowStepRejectWorkflowStepUserErrors = Problems
RejectWorkflowStep.model_rebuild()
RejectWorkflowStepRejectWorkflowStep.model_rebuild()
