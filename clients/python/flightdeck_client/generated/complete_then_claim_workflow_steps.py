from pydantic import Field

from .base_model import BaseModel
from .fragments import ClaimedWork, CompletionResults


class CompleteThenClaimWorkflowSteps(BaseModel):
    complete_workflow_steps: "CompleteThenClaimWorkflowStepsCompleteWorkflowSteps" = (
        Field(alias="completeWorkflowSteps")
    )
    claim_workflow_steps: "CompleteThenClaimWorkflowStepsClaimWorkflowSteps" = Field(
        alias="claimWorkflowSteps"
    )


CompleteThenClaimWorkflowStepsCompleteWorkflowSteps = CompletionResults
CompleteThenClaimWorkflowStepsClaimWorkflowSteps = ClaimedWork
CompleteThenClaimWorkflowSteps.model_rebuild()
