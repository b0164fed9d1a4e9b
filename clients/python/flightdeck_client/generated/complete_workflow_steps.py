from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import WorkflowStepStatus
from .fragments import Problems


class CompleteWorkflowSteps(BaseModel):
    complete_workflow_steps: "CompleteWorkflowStepsCompleteWorkflowSteps" = Field(
        alias="completeWorkflowSteps"
    )


class CompleteWorkflowStepsCompleteWorkflowSteps(BaseModel):
    results: list["CompleteWorkflowStepsCompleteWorkflowStepsResults"]
    user_errors: list["CompleteWorkflowStepsCompleteWorkflowStepsUserErrors"] = Field(
        alias="userErrors"
    )


class CompleteWorkflowStepsCompleteWorkflowStepsResults(BaseModel):
    step: Optional["CompleteWorkflowStepsCompleteWorkflowStepsResultsStep"]
    user_errors: list["CompleteWorkflowStepsCompleteWorkflowStepsResultsUserErrors"] = (
        Field(alias="userErrors")
    )


class CompleteWorkflowStepsCompleteWorkflowStepsResultsStep(BaseModel):
    id: str
    status: WorkflowStepStatus


CompleteWorkflowStepsCompleteWorkflowStepsResultsUserErrors = Problems
CompleteWorkflowStepsCompleteWorkflowStepsUserErrors = Problems
CompleteWorkflowSteps.model_rebuild()
CompleteWorkflowStepsCompleteWorkflowSteps.model_rebuild()
CompleteWorkflowStepsCompleteWorkflowStepsResults.model_rebuild()
