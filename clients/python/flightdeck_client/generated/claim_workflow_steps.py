from datetime import datetime
from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import ClaimOutcome, ClaimWaitReason
from .fragments import CompensationFields, Problems, StepFields


class ClaimWorkflowSteps(BaseModel):
    claim_workflow_steps: "ClaimWorkflowStepsClaimWorkflowSteps" = Field(
        alias="claimWorkflowSteps"
    )


class ClaimWorkflowStepsClaimWorkflowSteps(BaseModel):
    outcome: Optional[ClaimOutcome]
    reason: Optional[ClaimWaitReason]
    retry_at: Optional[datetime] = Field(alias="retryAt")
    steps: list["ClaimWorkflowStepsClaimWorkflowStepsSteps"]
    compensation: Optional["ClaimWorkflowStepsClaimWorkflowStepsCompensation"]
    user_errors: list["ClaimWorkflowStepsClaimWorkflowStepsUserErrors"] = Field(
        alias="userErrors"
    )


ClaimWorkflowStepsClaimWorkflowStepsSteps = StepFields
ClaimWorkflowStepsClaimWorkflowStepsCompensation = CompensationFields
ClaimWorkflowStepsClaimWorkflowStepsUserErrors = Problems
ClaimWorkflowSteps.model_rebuild()
ClaimWorkflowStepsClaimWorkflowSteps.model_rebuild()
