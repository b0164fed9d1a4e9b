from pydantic import Field

from .base_model import BaseModel
from .fragments import ClaimedWork


class ClaimWorkflowSteps(BaseModel):
    claim_workflow_steps: "ClaimWorkflowStepsClaimWorkflowSteps" = Field(
        alias="claimWorkflowSteps"
    )


ClaimWorkflowStepsClaimWorkflowSteps = ClaimedWork
ClaimWorkflowSteps.model_rebuild()
