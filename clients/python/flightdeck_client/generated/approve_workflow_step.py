from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import Problems, StepFields, WorkflowFields


class ApproveWorkflowStep(BaseModel):
    approve_workflow_step: "ApproveWorkflowStepApproveWorkflowStep" = Field(
        alias="approveWorkflowStep"
    )


class ApproveWorkflowStepApproveWorkflowStep(BaseModel):
    workflow: Optional["ApproveWorkflowStepApproveWorkflowStepWorkflow"]
    step: Optional["ApproveWorkflowStepApproveWorkflowStepStep"]
    user_errors: list["ApproveWorkflowStepApproveWorkflowStepUserErrors"] = Field(
        alias="userErrors"
    )


ApproveWorkflowStepApproveWorkflowStepWorkflow = WorkflowFields
ApproveWorkflowStepApproveWorkflowStepStep = StepFields
ApproveWorkflowStepApproveWorkflowStepUserErrors = Problems
ApproveWorkflowStep.model_rebuild()
ApproveWorkflowStepApproveWorkflowStep.model_rebuild()
