from pydantic import Field

from .base_model import BaseModel
from .fragments import CompletionResults


class CompleteWorkflowSteps(BaseModel):
    complete_workflow_steps: "CompleteWorkflowStepsCompleteWorkflowSteps" = Field(
        alias="completeWorkflowSteps"
    )


CompleteWorkflowStepsCompleteWorkflowSteps = CompletionResults
CompleteWorkflowSteps.model_rebuild()
